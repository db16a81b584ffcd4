#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Evaluates the shape arithmetic PyTorch exports around Reshape/Resize (Shape, Gather, Unsqueeze,
// Squeeze, Concat, Cast, Slice, Add/Sub/Mul/Div on integer constants) into int64 initializers, so
// that only operators that do work on data remain. Nodes it cannot evaluate are left unchanged.
[[nodiscard]] graph::Graph fold_constants(const graph::Graph& g);
}  // namespace hetcim::passes
