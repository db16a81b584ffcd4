#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Evaluates constant subgraphs into initializers, so that only operators that do work on data
// remain, as ONNX Runtime's constant folding does for a model whose input shapes are fixed: the
// shape subgraphs exporters emit around Reshape/Expand/Resize/Slice and attention masks (Shape,
// Gather, Unsqueeze, Squeeze, Concat, Slice, Range, Equal, Where, Expand, Mod, Cast,
// ConstantOfShape, ScatterND, Not, Tile, ReduceProd, Transpose, integer and float Add/Sub/Mul/Div:
// ops::fold_shape_arithmetic, the evaluator shape inference uses, here up to 2^22 elements),
// Cast of any constant and ConstantOfShape of a constant shape (the torch.ao exporter's zero
// points). Output shapes ONNX's inference left open are refined with ops::infer_outputs on the
// way. Nodes it cannot evaluate are left unchanged.
// When every graph input's shape is known, every tensor's shape must be known afterwards: else a
// UserError names the first node whose output shape stays open and its first operand that is not
// a constant, saying whether that depends on data (or the rule's own message, e.g. an
// unsupported operator). With an open input dimension the check is left to later steps.
[[nodiscard]] graph::Graph fold_constants(graph::Graph g);
}  // namespace hetcim::passes
