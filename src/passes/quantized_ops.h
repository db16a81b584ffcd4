// What ONNX Runtime runs in int8, as the passes and the workload analysis see it: queries over the
// operator registry's rows (ops/registry.h), so the QDQ folding, the int8 annotation, calibration
// and the layout pass agree on the operator set.
#pragma once

#include <string>

#include "graph/graph.h"

namespace hetcim::passes {

// True when the node computes on quantized (int8/uint8) tensors: a QLinear*/QGemm op, a float op
// the int8 pass annotated with precision="int8", or a data-movement op reading a quantized tensor.
[[nodiscard]] bool is_quantized(const graph::Graph& g, const graph::Node& n);

// Ops ONNX Runtime executes on int8 data in a quantized model (either with a QLinear kernel or as
// pure data movement). Everything else runs in float between a DequantizeLinear and a
// QuantizeLinear (e.g. Flatten, Softmax, Pow, Div).
[[nodiscard]] bool has_int8_kernel(const std::string& op_type);

// Data-movement ops whose int8 version is exact when input and output share one quantization.
[[nodiscard]] bool is_int8_passthrough(const std::string& op_type);

// Ops that ONNX Runtime's NHWC layout transformer rewrites to channels-last when quantized.
[[nodiscard]] bool is_nhwc_capable(const std::string& op_type);

}  // namespace hetcim::passes
