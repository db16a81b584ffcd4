#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Fuses the two GELU decompositions torch exports before opset 20 into one Gelu node (ONNX opset
// 20's operator; ops/gelu.cpp runs it), as ONNX Runtime's GeluFusion does:
//   erf:  x * (1 + Erf(x / sqrt 2)) * 0.5        (Div by ~1.41421 or Mul by ~0.707107; the 0.5
//                                                  on either product, operands in any order)
//   tanh: x * (1 + Tanh(0.797885 (x + 0.044715 x^3))) * 0.5   (x^3 as Pow(x, 3) or x * (x * x))
// Every intermediate must be read only inside the pattern and be no graph output; the constants
// must match to 1e-4 relative; x must be float32. The Gelu node takes the Erf / Tanh node's name
// and the pattern's output tensor, with approximate = "none" | "tanh".
[[nodiscard]] graph::Graph fuse_gelu(graph::Graph g);
}  // namespace hetcim::passes
