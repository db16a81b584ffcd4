// Our exact solver for the partitioning problem. The DAG is cut at its cut nodes into segments
// (segments.h) whose latencies add up. For every segment but the hardest (the one with the most
// operators to decide) and every pair of modes of its boundary cut nodes, a multi-objective
// branch-and-bound gives the Pareto front (crossbars, latency) of its interior
// (segment_front.h, exact host sequencing at the leaves: sequencing.h). A forward DP over the
// segments before the hardest one and a backward DP over those after it combine the fronts
// under the budget (a multiple-choice knapsack whose state is the mode of the current cut node
// and the crossbars spent); the hardest segment is then searched with a single objective, its
// latency plus the best the rest can do with the crossbars it leaves (segment_best). Every step
// is exact, so the result is a proven optimum (bound == makespan); it is replayed by the
// simulator and checked, and a disagreement is an InternalError. A time or node limit stops the
// search with the best plan it has (ExactResult::incumbent), replayed and checked the same way.
// With an accuracy model (problem.h) the accuracy drop is a second knapsack resource: the fronts,
// the DP states and rest() carry (crossbars, drop) and both budgets bound every step.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "partition/problem.h"
#include "partition/schedule.h"
#include "partition/status.h"

namespace hetcim::partition {

class SeqCache;

struct ExactOptions {
  // Wall-clock limit in seconds (> 0; infinity = none). When it strikes the result is
  // TimeLimit with the best plan found so far (ExactResult::incumbent says which) and a lower
  // bound: the critical path / host load one, or where higher, the least root bound of the hard
  // segment's searches that did not finish (segment_best_bound).
  double time_limit_seconds = std::numeric_limits<double>::infinity();
  // Deterministic work limit: search nodes charged, ExactResult::nodes + seq_nodes (segment
  // branch-and-bound and exact sequencing); 0 = none. When it strikes the result is NodeLimit,
  // as TimeLimit otherwise (incumbent, bound); unlike the wall clock it stops every run of the
  // same problem at the same point on any machine.
  int64_t node_limit = 0;
  // Answers of the exact sequencings of earlier solves (sequencing.h: a memo of the input, valid
  // for any problem), e.g. the solves of one latency-energy front; nullptr: one per solve.
  SeqCache* seq_cache = nullptr;
  // A leaf assignment whose exact sequencing takes more nodes than this waits until the rest of
  // its segment's search is over, then is sequenced to the end (SegmentFrontInput::defer_after;
  // 0: never). Changes the search's path only, never its answer.
  int64_t defer_leaf_after = 4096;
  // solve_exact only: just the plans whose objective is below this are sought. When none is, the
  // result is Infeasible (proven: nothing below the cutoff) with no schedule and the cutoff as
  // its bound. The latency-energy front's dichotomy asks exactly this (energy_front.cpp).
  double cutoff = std::numeric_limits<double>::infinity();
};

struct ExactSegmentStats {
  int in = -1, out = -1;    // boundary cut nodes (-1: none)
  size_t interior = 0;      // operators strictly inside
  size_t decisions = 0;     // interior operators with a choice of device or mode
  size_t fronts = 0;        // boundary-mode pairs solved
  size_t front_points = 0;  // Pareto points over all those fronts
  int64_t nodes = 0, leaves = 0, seq_nodes = 0;
  double seconds = 0.0;
};

struct ExactResult {
  SolveStatus status = SolveStatus::NoSolution;
  double makespan = std::numeric_limits<double>::infinity();  // of the returned schedule
  // makespan + energy_weight * dynamic energy (== makespan without an energy weight)
  double objective = std::numeric_limits<double>::infinity();
  double bound = 0.0;  // proven lower bound on the objective; == objective when Optimal
  Schedule schedule;   // replayed by simulate() and checked by check()
  int64_t nodes = 0, leaves = 0, seq_nodes = 0;
  int64_t parent_pruned = 0;  // of the nodes, those pruned by their parent's bound alone
  int64_t deferred = 0;       // of the leaves, those whose sequencing waited (defer_leaf_after)
  int64_t probes = 0;         // searches of the hard segment with a cutoff below its incumbent
  double seconds = 0.0;
  size_t cut_nodes = 0;        // cut nodes of the DAG
  size_t kept_cuts = 0;        // cut nodes left after merging under non-redundant edges
  size_t jumping_edges = 0;    // edges over a cut node
  size_t redundant_edges = 0;  // of those, proven redundant
  std::vector<ExactSegmentStats> segments;
  // Where a limited solve's plan comes from ("" when Optimal): the hard segment's best leaf so
  // far with the other segments' optimal share of the rest (the limit struck in the hard
  // segment's search, after a first leaf), or the all-host plan (it struck before).
  std::string incumbent;
  static constexpr const char* kSearchIncumbent =
      "the best plan the search found before the limit (not proven optimal)";
  static constexpr const char* kFallbackIncumbent =
      "the all-host plan (the limit struck before the search found a plan)";
};

[[nodiscard]] ExactResult solve_exact(const Problem& p, const ExactOptions& opt = {});

// The exact (latency, dynamic energy) Pareto front under the budget, every non-dominated point
// (those inside the convex hull included): the energy is a second resource of every segment
// front (segment_front.h), of the DP states, and the forward DP runs over all the segments; the
// final states' (time, energy) staircase is the front. Energy = host + cim + bus dynamic energy
// of `p` as given (energy.h; the energy weight is ignored). Every point is assembled, replayed
// by simulate() and checked; its makespan and energy must equal the DP's (else InternalError).
// UserError without an energy model or with accuracy costs. A time or node limit leaves no
// points (status TimeLimit / NodeLimit).
struct ExactFrontPoint {
  double makespan = 0.0;
  double energy = 0.0;    // dynamic energy (J) of the schedule's assignment
  int64_t crossbars = 0;  // crossbars it uses
  Schedule schedule;
};

struct ExactFront {
  SolveStatus status = SolveStatus::Optimal;
  std::vector<ExactFrontPoint> points;  // ascending makespan, strictly descending energy
  int64_t nodes = 0, leaves = 0, seq_nodes = 0;
  size_t dp_states = 0;  // DP states kept over all segments
  size_t cut_nodes = 0, kept_cuts = 0;
  std::vector<ExactSegmentStats> segments;
  double seconds = 0.0;
};

[[nodiscard]] ExactFront solve_exact_energy_front(const Problem& p, const ExactOptions& opt = {});

// The same machinery with every operator fixed to its mode in `a`: the optimal host order of a
// given assignment (used by simulate_best). The budget is not checked here.
[[nodiscard]] ExactResult sequence_exact(const Problem& p, const Assignment& a,
                                         const ExactOptions& opt = {});

// The best schedule of `a` (schedule.h's simulate with the host and bus orders of the exact
// sequencing above).
[[nodiscard]] Schedule simulate_best(const Problem& p, const Assignment& a);

}  // namespace hetcim::partition
