// Shape and dtype inference over the operator registry (ops/registry.h): every row with a shape
// rule (`Family::shape`, written in its family's file src/ops/<family>.cpp) is an operator this
// understands; constant evaluation (`Family::fold`) resolves shape subgraphs. For the ONNX
// operators hetcim understands (ONNX semantics, opset 11-17
// attribute and input conventions; older conventions are accepted where they are unambiguous:
// Split/Squeeze/Unsqueeze axes as attributes, Slice bounds as attributes, Clip bounds as
// attributes, Upsample scales as an attribute).
//
// Supported: every operator whose registry row has a shape rule (`ops::row(op)->shape`); every
// other op is a UserError "unsupported op 'X' at node 'n'".
//
// Operands that decide a shape (Reshape's shape, Slice's bounds, Resize's scales or sizes, Split's
// sizes, Squeeze/Unsqueeze axes) must be constants: initializers with values, or - inside
// infer_shapes - small tensors computed from such constants and from static shapes
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains as exporters emit them; the rules are
// in the family files, each with its rule and evaluator).
#pragma once

#include <optional>
#include <vector>

#include "graph/graph.h"

namespace hetcim::ops {

// dtype and shape of every output of `n` (one entry per entry of n.outputs, including optional
// outputs left unnamed), from the infos of its inputs in `g` (g.values and g.initializers).
// Throws UserError naming the node and what was expected when the inputs are inconsistent, an
// input's shape is unknown, or the op is unsupported.
[[nodiscard]] std::vector<graph::TensorInfo> infer_outputs(const graph::Graph& g,
                                                           const graph::Node& n);

// Shape of the first output of `n` (use infer_outputs for Split and other multi-output ops).
[[nodiscard]] graph::Shape infer_output_shape(const graph::Graph& g, const graph::Node& n);

// The value of n's single output when n computes it from constants (initializers with values)
// and static shapes alone, as the shape subgraphs of exporters do: Shape, Size, Identity, Cast,
// Squeeze, Unsqueeze, Reshape, Flatten, Transpose, Concat, Gather, Slice, Expand, Tile, Range,
// ConstantOfShape, ScatterND, Where, Not, Neg, Abs, ReduceProd, Add, Sub, Mul, Div, Mod (integer
// Div truncates, integer Mod takes the divisor's sign unless fmod = 1), Equal, Less, Greater,
// LessOrEqual, GreaterOrEqual, And, Or, Xor; at most `max_elements` output elements. nullopt
// when n is none of these or cannot be evaluated (an operand that is not constant, an unknown
// dimension, an integer overflow, a float64 result). The result has n's output dtype.
inline constexpr int64_t kShapeArithmeticElements = 4096;
[[nodiscard]] std::optional<graph::Initializer> fold_shape_arithmetic(
    const graph::Graph& g, const graph::Node& n, int64_t max_elements = kShapeArithmeticElements);

// Validates g (which puts the nodes in topological order), then fills g.values for every node
// output in that order. Graph inputs must already have an entry in g.values with a shape. Infos
// the graph already declares for node outputs (ONNX value_info) are checked against the inferred
// ones: a known dimension that disagrees is a UserError; an inferred unknown dimension (-1) takes
// the declared value.
void infer_shapes(graph::Graph& g);

}  // namespace hetcim::ops
