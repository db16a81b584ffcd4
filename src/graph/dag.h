// Operator DAG: nodes 0..n-1 and unique directed edges. It is what partitioners, schedules and
// analyses see of a Graph (one vertex per operator, one edge per producer->consumer pair,
// however many tensors flow along it).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "util/bitset.h"

namespace hetcim::graph {

struct Graph;

struct Dag {
  size_t n = 0;
  std::vector<std::pair<int, int>> edges;  // unique (u, v), sorted
  std::vector<std::vector<int>> succ, pred;

  // Builds the adjacency, removes duplicate edges, rejects self-loops, out-of-range vertices and
  // cycles (UserError naming the vertex).
  static Dag from_edges(size_t n, std::vector<std::pair<int, int>> edges);
};

// One vertex per node of g (in g.nodes order), an edge u->v when v reads a tensor u writes.
[[nodiscard]] Dag dag_of(const Graph& g);

// Deterministic topological order (smallest index first among ready vertices).
[[nodiscard]] std::vector<int> topological_order(const Dag& d);

// reach[u].test(v) iff there is a path u -> v of length >= 1 (the closure E+ of seed 000).
[[nodiscard]] std::vector<DynBitset> transitive_closure(const Dag& d);

// Unordered pairs {u, v}, u < v, with no path either way (the set P of seed 000, eq. 10).
[[nodiscard]] std::vector<std::pair<int, int>> parallel_pairs(const std::vector<DynBitset>& reach);

// Vertices comparable with every other vertex (a path to or from each): every schedule passes
// through them one at a time, so a DAG decomposes into independent segments at these points.
[[nodiscard]] std::vector<int> cut_nodes(const std::vector<DynBitset>& reach);

}  // namespace hetcim::graph
