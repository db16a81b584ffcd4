// The Pareto front (crossbars, latency) of one segment for fixed modes of its boundary cut
// nodes: multi-objective depth-first branch-and-bound over the modes of the interior operators.
// Bounds at a node: the critical path with undecided operators at their fastest and their
// transfers free; Jackson's preemptive bound over the operators surely on the host; and a
// host-load bound that keeps the host latency of the undecided operators except what the
// crossbars still spendable can move away (a 0/1 knapsack by depth, its fractional relaxation
// where the table would be too large). A node is pruned when no
// total of crossbars it may reach could give a latency below what the front already has for
// that many crossbars; before its own bounds are computed, a node is tested with its parent's
// (valid for all its completions; the front may have improved since), raised to the parent's
// longest path through the operator just decided, at its chosen latency. An operator with several
// accelerator modes (copies) is first given its device only, its copies decided after every
// device: such a node counts the fewest crossbars and the fastest latency of the accelerator
// modes, and where every device is decided one sequencing with the fastest copies bounds all the
// copy choices below (the makespan never falls when an accelerator job gets longer), settling
// them at once when nothing lies below the node's threshold. Leaves are sequenced
// exactly (sequencing.h) with that latency as cutoff. With an accuracy model the front has a third
// coordinate, the accuracy drop (a second knapsack resource, problem.h): a node whose drop exceeds
// the budget is cut, and a node is compared only with the points that spend no more drop than it
// already has (any completion spends more).
//
// segment_best() searches the same tree with a single objective instead: the segment's latency
// plus rest(c), the best latency of everything outside the segment with the crossbars the
// segment leaves over (a non-decreasing step function known from the other segments), against
// a shared incumbent. This is the knapsack coupling made exact inside one search, far stronger
// than a full front when the segment is the hard one; where rest() cannot change any more, the
// fastest accelerator mode of an operator dominates its slower ones. Its children are tried in
// order of their own latency (+ weighted energy) plus rest() at the crossbars and drop they
// leave, so that good incumbents come early (the order changes the path, not the optimum).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "partition/deadline.h"
#include "partition/pareto.h"
#include "partition/problem.h"
#include "partition/segments.h"
#include "partition/sequencing.h"

namespace hetcim::partition {

struct SegmentPlan {
  std::vector<int> modes;       // per interior operator, in Segment::interior order
  std::vector<int> host_order;  // the interior host operators in execution order
  std::vector<int> bus_order;   // serial bus: Transfer::key of the segment's transfers in order
};

struct SegmentFrontInput {
  const Problem* problem = nullptr;
  const Segment* segment = nullptr;
  const std::vector<std::vector<int>>* allowed = nullptr;  // per operator
  const Decomposition* decomposition = nullptr;            // dropped edges and their energies
  int in_mode = kNoMode;   // mode of segment->in (ignored when in == -1)
  int out_mode = kNoMode;  // mode of segment->out (ignored when out == -1)
  int64_t budget = 0;      // interior crossbars above this are not wanted
  const Deadline* deadline = nullptr;
  int64_t drop_budget = std::numeric_limits<int64_t>::max() / 4;  // interior drop (ppm) wanted
  SeqCache* seq_cache = nullptr;  // answers of earlier leaf sequencings (sequencing.h), or none
  // A leaf whose sequencing is not settled within this many nodes waits until the assignment
  // search is over (segment_front.cpp: Deferred); 0: never.
  int64_t defer_after = 4096;
  // segment_front() only: the front's second resource is the segment's dynamic energy (J, the
  // problem's energy_weight times the energies, 1 for joules) instead of the accuracy drop, and
  // the latency is the segment's latency alone (no energy term). No accuracy model allowed.
  bool energy_resource = false;

  static constexpr int kNoMode = -2;
};

struct SegmentFrontOutput {
  // Latency = finish of `out` (or of the last interior operator) minus finish of `in` (or 0);
  // crossbars = interior crossbars only.
  ParetoFront<SegmentPlan> front;
  int64_t nodes = 0;          // assignment nodes explored
  int64_t leaves = 0;         // complete assignments sequenced
  int64_t seq_nodes = 0;      // sequencing nodes
  int64_t parent_pruned = 0;  // nodes pruned by their parent's bound alone
  int64_t deferred = 0;       // leaves whose sequencing waited (defer_after)
  int64_t device_leaves = 0;  // nodes with every device decided and copies open (one sequencing)
  int64_t device_pruned = 0;  // of them, those that sequencing at the fastest copies settled
  size_t decisions = 0;       // interior operators with a choice
  bool timed_out = false;
};

[[nodiscard]] SegmentFrontOutput segment_front(const SegmentFrontInput& in);

// rest(c, d): the best latency outside the segment when the segment's interior uses c crossbars
// and an accuracy drop of d (infinity when nothing fits): the smallest latency[i] with
// c <= crossbars[i] and d <= drop[i]. Non-decreasing in c and in d.
struct RestCost {
  std::vector<int64_t> crossbars;  // segment crossbars <= crossbars[i] ...
  std::vector<int64_t> drop;       // ... and segment drop <= drop[i] ...
  std::vector<double> latency;     // ... leave the rest a best latency of latency[i]
  void add(int64_t c, int64_t d, double l) {
    crossbars.push_back(c);
    drop.push_back(d);
    latency.push_back(l);
  }
  [[nodiscard]] double at(int64_t c, int64_t d) const {
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < crossbars.size(); ++i)
      if (c <= crossbars[i] && d <= drop[i]) best = std::min(best, latency[i]);
    return best;
  }
  // True when at(c, d) == at(hi, d) for every c in [lo, hi] and every d: no crossbar threshold
  // in [lo, hi).
  [[nodiscard]] bool flat(int64_t lo, int64_t hi) const {
    for (int64_t t : crossbars)
      if (t >= lo && t < hi) return false;
    return true;
  }
};

struct SegmentBestOutput {
  bool improved = false;  // found a plan with latency + rest < the incumbent passed in
  double total = std::numeric_limits<double>::infinity();  // its latency + rest(crossbars, drop)
  double latency = 0.0;
  int64_t crossbars = 0;
  int64_t drop = 0;  // interior accuracy drop (ppm)
  SegmentPlan plan;
  int64_t nodes = 0, leaves = 0, seq_nodes = 0, parent_pruned = 0, deferred = 0;
  int64_t probes = 0;  // searches with a cutoff below the incumbent passed in (segment_front.cpp)
  size_t decisions = 0;
  bool timed_out = false;
};

[[nodiscard]] SegmentBestOutput segment_best(const SegmentFrontInput& in, const RestCost& rest,
                                             double incumbent);

// A lower bound on latency + rest over every plan of the segment, from the bounds of the search's
// root (critical path, Jackson's over the surely-host operators, the host load less what the
// crossbars each step of rest() leaves can move away); infinity when no plan fits.
[[nodiscard]] double segment_best_bound(const SegmentFrontInput& in, const RestCost& rest);

}  // namespace hetcim::partition
