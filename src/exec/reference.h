// The reference interpreter: a straightforward, single-threaded implementation of every operator
// hetcim executes, written for clarity (plain loops over logical NCHW tensors, double accumulation
// for float convolutions and matrix products). It is the oracle of the tests and the semantics the
// oneDNN engine must reproduce; it is not meant to be fast.
//
// Operators: those of the kernel rows of exec/reference/<family>.cpp and the registry rows that
// hold their own reference kernel (ops/registry.h `reference`), with the fused activations that
// passes::fuse_activation records (reference_runs says which). The int8 operators follow
// quantize.h exactly:
//   QLinearConv/MatMul/QGemm        acc = sum (x - zx)(w - zw) [+ bias],
//                                   y = requantize(acc, sx*sw/sy, zy)
//   QLinearAdd/Mul/Sigmoid/...      y = Quantize(f(Dequantize(a), Dequantize(b))) in float
//   QLinear(Global)AveragePool      acc = sum (x - zx) over the window,
//                                   y = requantize(acc, sx/(sy*count), zy)
// and a fused Relu/Clip on a quantized op clamps in the quantized domain (max(y, zy), or
// clamp(y, Q(lo), Q(hi))), which equals quantizing the activated value since Q is monotone.
#pragma once

#include <map>
#include <string>

#include "exec/tensor.h"
#include "graph/graph.h"

namespace hetcim::exec {

using TensorMap = std::map<std::string, Tensor>;

// Runs g on `inputs` (one per graph input, shapes and dtypes as declared). Returns the graph
// outputs, or every tensor computed (inputs and node outputs) when keep_all is set. Initializers
// must carry values. UserError names the node for an unsupported operator or bad operand.
[[nodiscard]] TensorMap run_reference(const graph::Graph& g, const TensorMap& inputs,
                                      bool keep_all = false);

// Checks `inputs` against g's declared inputs: every input present, dtype and shape as declared,
// no unknown names. UserError: "input 'x': expected float32 1x3x224x224, got float32 1x3x32x32".
void check_inputs(const graph::Graph& g, const TensorMap& inputs);

// Whether run_reference has a kernel for n's operator in n's domain: a kernel row of
// exec/reference/<family>.cpp or its registry row's own `reference` (ops/registry.h).
[[nodiscard]] bool reference_runs(const graph::Node& n);

}  // namespace hetcim::exec
