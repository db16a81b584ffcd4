// The one way a node's problem is reported, and the one axis normalisation: shape inference, the
// passes and both executors name a node as "node 'NAME' (OP): ..." and check an axis against a
// rank the same way.
#pragma once

#include <cstdint>
#include <string_view>

#include "graph/graph.h"
#include "util/error.h"

namespace hetcim::graph {

// UserError "node 'NAME' (OP): <args...>".
template <typename... Args>
[[nodiscard]] UserError node_error(const Node& n, const Args&... args) {
  return user_error("node '", n.name, "' (", n.op_type, "): ", args...);
}

// `axis` in [-rank, rank) mapped to [0, rank); otherwise node_error naming `what`.
[[nodiscard]] inline int64_t normalize_axis(const Node& n, int64_t axis, int64_t rank,
                                            std::string_view what = "axis") {
  if (axis < -rank || axis >= rank)
    throw node_error(n, what, " ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

}  // namespace hetcim::graph
