#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Fuses the LayerNorm decomposition exporters emit before opset 17 into one LayerNormalization
// node (ops/layer_norm.cpp runs it), as ONNX Runtime's LayerNormFusion does:
//   m = ReduceMean(x, axes); d = Sub(x, m); v = ReduceMean(Pow(d, 2) | Mul(d, d), axes);
//   y = Div(d, Sqrt(Add(v, eps))) [* Scale] [+ B]
// where axes are the trailing axes from some `axis` on (keepdims 1; attribute or, from opset 18,
// constant input), eps, Scale and B are constants (Scale and B of the normalized shape or one
// value, operands in any order), every intermediate is read only inside the pattern and is no
// graph output, and x is float32. The LayerNormalization node takes the first ReduceMean's name
// and the pattern's output tensor, with axis and epsilon; a missing Scale or B becomes a constant
// of ones or zeros.
[[nodiscard]] graph::Graph fuse_layer_norm(graph::Graph g);
}  // namespace hetcim::passes
