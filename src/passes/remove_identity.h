#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Removes Identity, inference-mode Dropout, a Cast to its input's dtype and a Pad of zeros,
// rewiring their readers to the source tensor.
[[nodiscard]] graph::Graph remove_identity(graph::Graph g);
}  // namespace hetcim::passes
