// Figures of a Dag in time near-linear in its nodes and edges, without the n x n transitive closure
// (dag.h's transitive_closure takes n^2 / 8 bytes: 1.25 GB for a 100,000-node chain): the cut nodes
// and the number of parallel pairs that `inspect` totals and the MILP size count.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/dag.h"

namespace hetcim::graph {

// The vertices comparable with every other one (a path to or from each), ascending: the same set as
// cut_nodes(transitive_closure(d)), in O((n + m) log n). In a topological order, the vertex at
// position p is one iff every vertex before it has a successor at a position <= p and every vertex
// after it a predecessor at a position >= p (following such edges from any earlier vertex must end
// at p; from any later one, start there).
[[nodiscard]] std::vector<int> cut_nodes(const Dag& d);

// |P|: unordered pairs with no path either way, parallel_pairs(transitive_closure(d)).size(). Only
// vertices between the same two consecutive cut nodes can be parallel, and a path between two of
// them stays there; each such segment of k vertices takes a closure in blocks of 4096 columns
// (k x 512 bytes at a time) over the vertices that can reach the block: linear for a chain,
// O(k m_k / 64) for a segment of k vertices and m_k edges.
[[nodiscard]] int64_t count_parallel_pairs(const Dag& d);

}  // namespace hetcim::graph
