#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Fuses a Relu or a constant-bound Clip (ReLU6 is Clip(0, 6)) into the Conv, Gemm, MatMul, Add
// or quantized equivalent that alone feeds it, as ONNX Runtime does. The producer keeps its name
// and takes the activation's output tensor; attributes record the activation:
//   activation = "Relu" | "Clip", activation_min / activation_max (Clip bounds, when known).
[[nodiscard]] graph::Graph fuse_activation(graph::Graph g);

// The ops that can absorb an activation.
[[nodiscard]] bool can_fuse_activation(const std::string& op_type);
}  // namespace hetcim::passes
