#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Turns a float graph into the operator structure of its int8 deployment as ONNX Runtime runs a
// statically quantized model: every op with an int8 kernel is marked precision="int8" and its
// activations become uint8; a QuantizeLinear is inserted where a float tensor (a graph input, the
// output of a float-only op such as Flatten) enters int8 ops and a DequantizeLinear where an int8
// tensor reaches a float-only op or a graph output. Scales and zero points are shape-only
// initializers: their values come from calibration, which is not part of this structural pass.
// A graph that is already quantized (QDQ or QLinear ops) is returned unchanged.
[[nodiscard]] graph::Graph quantize_int8(graph::Graph g);
}  // namespace hetcim::passes
