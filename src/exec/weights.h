// Seeded weights for architecture-only graphs (the zoo describes networks without weights).
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace hetcim::exec {

// Gives every initializer that has a shape but no values the values of onnxio's export rule
// (onnxio/weight_fill.h: Kaiming-uniform by fan-in for Conv/Gemm/MatMul weights, zeros for
// biases and BatchNorm bias/mean, ones for BatchNorm scale/variance), so that `hetcim run
// resnet18 --seed S` and `hetcim export resnet18 --seed S` describe the same network. Call it on
// the graph as built (before passes::lower), so BatchNorm folding sees the values. Returns the
// number of initializers filled. Same seed => same bytes.
size_t materialize_weights(graph::Graph& g, uint64_t seed);

}  // namespace hetcim::exec
