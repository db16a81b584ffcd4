#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Removes Identity and inference-mode Dropout nodes, rewiring their readers to the source tensor.
[[nodiscard]] graph::Graph remove_identity(graph::Graph g);
}  // namespace hetcim::passes
