// The QDQ form of an executable int8 graph: standard ONNX operators with QuantizeLinear /
// DequantizeLinear around them, as ONNX Runtime's quantize_static writes a statically quantized
// model, so that another runtime (ONNX Runtime in bench/exec) runs the very same quantized network
// and hetcim can import it back (passes::fold_qdq folds it into the same QLinear operators).
//
//   QLinearConv(x, sx, zx, w, sw, zw, sy, zy, b)  ->  DQ(x) -> Conv(DQ(w, axis 0), DQ(b, sx*sw))
//                                                     [-> Relu | Clip] -> Q(sy, zy)
//   QGemm / QLinearMatMul / QLinearAdd / QLinearMul / QLinearSigmoid / QLinearLeakyRelu /
//   QLinear(Global)AveragePool / QLinearConcat    ->  the float op between DQs and a Q, likewise
//   layout Transposes (layout_only=1)              ->  removed (identities on the logical layout)
//   data movement on uint8 (MaxPool, Resize, Reshape, ...), boundary Q/DQ -> kept as they are
//
// Each consumer gets its own DequantizeLinear of a shared activation. The result needs opset >= 13
// (per-axis DequantizeLinear); a lower opset is raised to 13.
#pragma once

#include "graph/graph.h"

namespace hetcim::passes {

[[nodiscard]] graph::Graph to_qdq(const graph::Graph& executable_int8);

}  // namespace hetcim::passes
