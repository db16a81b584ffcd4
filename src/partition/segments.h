// Decomposition of the DAG at cut nodes (operators comparable with every other operator): every
// schedule runs a cut node after all its ancestors and before all its descendants, so the
// latency is the sum of per-segment latencies, where segment k spans from the finish of cut
// k-1 to the finish of cut k. An edge that jumps over a cut node couples two segments unless it
// is redundant: when its endpoints sit on different devices, some edge on every other path
// between them crosses devices too, so if a path's minimal latencies plus its smallest transfer
// already cover the edge's own transfer, its constraint never binds. Cut nodes under a
// non-redundant edge are merged away (their segments fused). On a serial bus an edge that may
// cross devices is never redundant: its transfer would hold the bus inside the later segment.
// An edge whose bus energy counts in the objective may be dropped only when one endpoint has one
// device and transfers are per edge: it then crosses exactly when the other endpoint sits on the
// other device, so its energy is that endpoint's own (energy_on_host / energy_on_acc), and the
// segment holding that endpoint pays it with the endpoint's mode.
#pragma once

#include <vector>

#include "partition/problem.h"
#include "util/bitset.h"

namespace hetcim::partition {

struct Segment {
  int in = -1;                // cut node finishing just before the segment, -1 for the first
  int out = -1;               // cut node closing the segment, -1 for the last
  std::vector<int> interior;  // the operators strictly between, in topological order
};

struct DecomposeInput {
  const Problem* problem = nullptr;
  const std::vector<DynBitset>* reach = nullptr;  // transitive closure of problem->dag
  // Modes each operator may take (kHost = -1 and/or accelerator modes), one list per operator.
  const std::vector<std::vector<int>>* allowed = nullptr;
};

struct Decomposition {
  std::vector<int> cuts;          // the cut nodes kept, in execution order
  std::vector<Segment> segments;  // cuts.size() + 1 segments; segments[k].out == cuts[k]
  std::vector<char> dropped;      // per dag edge: redundant and jumping over a cut node
  // Per operator: bus energy (J, unweighted) of the dropped edges that cross exactly when the
  // operator runs on the host / on the accelerator (their other endpoint has one device).
  std::vector<double> energy_on_host, energy_on_acc;
  size_t cut_nodes = 0;        // cut nodes of the DAG before merging
  size_t jumping_edges = 0;    // edges jumping over at least one cut node
  size_t redundant_edges = 0;  // of those, proven redundant (dropped)
};

[[nodiscard]] Decomposition decompose(const DecomposeInput& in);

}  // namespace hetcim::partition
