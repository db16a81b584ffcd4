#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Evaluates constant subgraphs into initializers, so that only operators that do work on data
// remain: the shape arithmetic PyTorch exports around Reshape/Resize/Slice (Shape, Gather,
// Unsqueeze, Squeeze, Concat, Slice, Add/Sub/Mul/Div on integer constants; graph::
// fold_shape_arithmetic, the evaluator shape inference uses), Cast of any constant and
// ConstantOfShape of a constant shape (the torch.ao exporter's zero points). Output shapes ONNX's
// inference left open are refined with graph::infer_outputs on the way. Nodes it cannot evaluate
// are left unchanged.
[[nodiscard]] graph::Graph fold_constants(graph::Graph g);
}  // namespace hetcim::passes
