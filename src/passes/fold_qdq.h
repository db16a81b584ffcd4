#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Recognises the QDQ form of an int8 model (DequantizeLinear on every input of an op and a
// QuantizeLinear on its output, as PyTorch's quantization flow and ONNX Runtime's quantize_static
// export it) and rewrites each such op into the quantized operator ONNX Runtime executes:
//   Conv -> QLinearConv, MatMul -> QLinearMatMul (ai.onnx); Gemm -> QGemm, Add -> QLinearAdd,
//   Mul -> QLinearMul, Sigmoid -> QLinearSigmoid, GlobalAveragePool -> QLinearGlobalAveragePool,
//   AveragePool -> QLinearAveragePool, Concat -> QLinearConcat (com.microsoft), with the inputs in
//   those operators' order; data-movement ops (MaxPool, Resize, Reshape, Transpose, ...) whose
//   input and output quantization agree run directly on the int8 tensor. The Q/DQ nodes that remain
//   are the model's real float boundaries.
[[nodiscard]] graph::Graph fold_qdq(graph::Graph g);
}  // namespace hetcim::passes
