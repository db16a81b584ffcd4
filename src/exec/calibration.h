// From a model with (possibly seeded) weights to a graph the engines execute, at the operator
// granularity of passes::lower, in fp32 or int8.
//
// int8 follows ONNX Runtime's static quantization (quantize_static, MinMax calibration, QDQ
// format, per-channel weights): passes::quantize_int8 decides which operators run in int8 and
// where the float/int8 boundaries are, with shape-only scales; calibration fills them:
//   1. the fp32 lowering of the same model runs on the user's calibration inputs
//      (CalibrationOptions::data), or on `samples` seeded random inputs (exec::random_inputs,
//      seed = CalibrationOptions::seed + sample), in the oneDNN engine, and every float tensor's
//      range is recorded: min and max over all samples (MinMax), or the mean over samples of the
//      per-sample [100 - p, p] percentiles (Percentile);
//   2. activations get asymmetric uint8 parameters from their range (quantize.h:
//      activation_params); data-movement operators (MaxPool, Resize, Reshape, Transpose, Slice,
//      Split, ...) and layout Transposes pass their input's parameters on, so they stay exact;
//   3. every annotated operator becomes its QLinear form with the same node name: Conv ->
//      QLinearConv, Gemm -> QGemm, MatMul -> QLinearMatMul, Add -> QLinearAdd, Mul -> QLinearMul,
//      Sigmoid -> QLinearSigmoid, LeakyRelu -> QLinearLeakyRelu, GlobalAveragePool ->
//      QLinearGlobalAveragePool, AveragePool -> QLinearAveragePool, Concat -> QLinearConcat;
//      constant weights are quantized symmetric int8 per output channel (weight_params), biases
//      to int32 with scale x_scale * w_scale, other float constants (an Add's operand) to uint8
//      with their own range.
// The operator count and names stay those of passes::lower (and of `hetcim inspect`).
// Calibration runs single-threaded, so the scales do not depend on the thread count.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exec/tensor.h"
#include "graph/graph.h"
#include "passes/apply_calibration.h"
#include "passes/pipeline.h"

namespace hetcim::exec {

enum class CalibrationMethod {
  MinMax,     // the range of every value seen (ORT's MinMax)
  Percentile  // per sample the [100 - p, p] percentiles of the values, averaged over samples
};

struct CalibrationOptions {
  uint64_t seed = 1;  // seeded random calibration inputs (exec::random_inputs, seed + sample)
  int samples = 2;    // >= 1; number of random inputs
  // The user's calibration inputs (one TensorMap per sample, one tensor per graph input, shapes
  // as declared). When non-empty they replace the random inputs and `seed`/`samples` are unused.
  std::vector<std::map<std::string, Tensor>> data;
  CalibrationMethod method = CalibrationMethod::MinMax;
  double percentile = 99.99;  // Percentile only: in (50, 100]
};

[[nodiscard]] std::string_view calibration_method_name(CalibrationMethod m);

// The ranges and the rewrite that fills an int8 graph's quantization from them are a pass
// (passes/apply_calibration.h); exec runs the networks that measure the ranges.
using passes::apply_calibration;
using passes::Ranges;
using passes::TensorRange;

// min/max of every float tensor (graph inputs and node outputs) of an fp32 lowered graph.
[[nodiscard]] Ranges calibrate(const graph::Graph& fp32_lowered, const CalibrationOptions& options);

struct PrepareOptions {
  passes::Precision precision = passes::Precision::Fp32;
  uint64_t weight_seed = 1;  // for initializers without values (onnxio::materialize_weights)
  CalibrationOptions calibration;
};

// materialize_weights -> passes::lower -> (int8, when the lowered graph still has shape-only
// quantization parameters) calibrate + apply_calibration. An imported QDQ model already carries
// its scales and is executed as it is.
[[nodiscard]] graph::Graph prepare(graph::Graph model, const PrepareOptions& options);

}  // namespace hetcim::exec
