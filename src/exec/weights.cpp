#include "exec/weights.h"

#include "onnxio/weight_fill.h"

namespace hetcim::exec {

size_t materialize_weights(graph::Graph& g, uint64_t seed) {
  size_t filled = 0;
  for (auto& [name, init] : g.initializers) {
    if (init.has_values() || !init.info.shape) continue;
    if (graph::element_count(*init.info.shape) <= 0) continue;
    init.raw = onnxio::generate_initializer_values(g, name, seed);
    ++filled;
  }
  return filled;
}

}  // namespace hetcim::exec
