// Seeded inputs for running a model without data (benchmarks, profiling, calibration).
#pragma once

#include <cstdint>

#include "exec/reference.h"
#include "graph/graph.h"

namespace hetcim::exec {

// One tensor per graph input, of its declared dtype and shape: float inputs uniform in [-1, 1)
// (about the spread of normalized images), 8-bit inputs uniform over their type's range, int32 /
// int64 inputs uniform in [0, 100). Draws come from SplitMix64 seeded with seed ^ FNV-1a(input
// name): same seed => same bytes on every platform. UserError for an input without a known shape.
[[nodiscard]] TensorMap random_inputs(const graph::Graph& g, uint64_t seed);

}  // namespace hetcim::exec
