#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// Folds an inference-mode BatchNormalization into the Conv (or ConvTranspose) that feeds it alone:
//   W' = W * s,  b' = beta + (b - mean) * s,  s = gamma / sqrt(var + eps)  (per output channel).
// When the graph carries no weight values (an architecture-only zoo graph) the Conv just gains a
// shape-only bias. A BatchNormalization not fed by a single-use Conv is left alone.
[[nodiscard]] graph::Graph fold_batchnorm(graph::Graph g);
}  // namespace hetcim::passes
