// The exact solver of the K-engine problem (multi_problem.h), built on the ideas of the
// two-device solver (exact.h):
// - Cut-node segments: a cut node (comparable with every operator) that no edge jumps over splits
//   the DAG (edges over it that provably never bind are left out: endpoints always on one engine,
//   or a pure-delay transfer that a detour already covers, as in segments.h); every machine is idle
//   and every tensor delivered when it finishes, so the objective (makespan, energies, static and
//   idle power) is a sum of per-segment costs given the options of the cut nodes.
// - Per segment and per (engine of the entering cut node, option of the closing one): the Pareto
//   front (capacity used per engine with a capacity, cost) of its interior by depth-first
//   branch-and-bound over the operators' options, with an admissible bound (critical path with
//   the fastest undecided options; per machine its decided load plus the operators that can
//   leave it only by taking capacity, less a fractional knapsack over the free capacity;
//   cheapest undecided energies) and pruning against the front; every leaf is sequenced exactly.
// - Exact sequencing of a fixed assignment (jobs on machines: one-at-a-time engines, exclusive
//   groups, serial links; precedence delays: transfers on parallel links) by the two-device
//   solver's sequencer (sequencing.h, one machine per engine machine and serial link): active
//   schedules, Jackson's bound per machine, lazily bounded children, a Zobrist-keyed dominance
//   memo; one SeqCache per call answers a leaf input sequenced before (in the same solve, or in
//   the solve without reprogramming that precedes the full one).
// - A DP over the segments combines the fronts under the engines' capacities (a multiple-choice
//   knapsack whose state is the option of the current cut node and the capacity spent).
// - Reprogrammed options (multi_problem.h): the capacity vector carries, beside the resident
//   capacity per engine, the reserved reprogramming area so far (the largest reprogrammed
//   footprint); parts combine by sum and by max respectively and a point fits when resident +
//   reserved <= capacity. Both only grow, so the Pareto dominance over the vector stays exact
//   (the max is handled exactly, with no enumeration of reserved sizes).
// - With reprogrammed options the problem without them is solved first, on the same (shared)
//   limits: its proven optimum is the incumbent if the full search stops at a limit, so a limited
//   run is never worse than not reprogramming (`incumbent` says where a limited run's plan comes
//   from; nodes, leaves and seq_nodes count both solves).
// Every step is exact, so the result is a proven optimum (bound == objective). The solution is
// replayed by multi_simulate and checked by multi_check; a disagreement is an InternalError.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "partition/multi_problem.h"
#include "partition/multi_schedule.h"
#include "partition/status.h"

namespace hetcim::partition {

struct MultiExactOptions {
  double time_limit_seconds = std::numeric_limits<double>::infinity();  // > 0
  int64_t node_limit = 0;  // search nodes (assignment and sequencing); 0 = none
  // With reprogrammed options: solve the problem without them first (same limits, shared), and
  // if the full search stops at a limit return that plan when it is better than the fallback,
  // so a limited run is never worse than the proven optimum without reprogramming.
  bool seed_without_reprogramming = true;
};

struct MultiExactResult {
  SolveStatus status = SolveStatus::NoSolution;
  double objective = std::numeric_limits<double>::infinity();  // of the returned schedule
  double bound = 0.0;  // proven lower bound on the objective; == objective when Optimal
  MultiSchedule schedule;
  int64_t nodes = 0;      // assignment nodes
  int64_t leaves = 0;     // assignments sequenced
  int64_t seq_nodes = 0;  // sequencing nodes
  double seconds = 0.0;
  size_t cut_nodes = 0;        // cut nodes of the DAG
  size_t jumping_edges = 0;    // edges over a cut node
  size_t redundant_edges = 0;  // of those, proven never to bind (they do not merge segments)
  size_t segments = 0;         // after merging cut nodes that a non-redundant edge jumps over
  size_t largest_segment = 0;  // interior operators of the largest segment
  size_t front_points = 0;     // Pareto points over all segment fronts
  // Where the returned plan comes from when a limit stopped the search (empty when the search
  // completed): the fallback, or the optimum without reprogramming (seed_without_reprogramming).
  std::string incumbent;
  // Which exact solver ran: this one, or the two-device solver where solve_by_shape.h chose it.
  std::string solver = kKEngineSolver;
  static constexpr const char* kKEngineSolver =
      "exact K-engine solver (hetcim, partition/multi_exact.h)";
  static constexpr const char* kTwoDeviceSolver =
      "exact two-device solver (hetcim, partition/exact.h), chosen by the platform's shape "
      "(partition/solve_by_shape.h)";
};

[[nodiscard]] MultiExactResult solve_multi_exact(const MultiProblem& p,
                                                 const MultiExactOptions& opt = {});

}  // namespace hetcim::partition
