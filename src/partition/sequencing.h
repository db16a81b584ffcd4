// Exact sequencing for a fixed assignment. Jobs are the operators of a (sub-)DAG with fixed
// latencies, plus the transfers when the bus is serial; host jobs share one machine, bus jobs
// (serial transfers) a second one, the other jobs (accelerator operators, transfers on a parallel
// bus) start as soon as their inputs arrive; every edge carries a delay (a parallel transfer, or
// 0). With the host alone this is one machine with heads, tails and delayed precedences
// (1|prec(l_ij)|Cmax, NP-hard); with the bus, a two-machine job shop with general precedences.
// Both are solved by depth-first branch-and-bound over active schedules (Giffler-Thompson: on
// the machine of the earliest possible completion, branch on the jobs that can start before it)
// with Jackson's preemptive bound per machine, critical-path bounds, and dominance between
// partial schedules with the same scheduled jobs.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "partition/deadline.h"

namespace hetcim::partition {

struct SeqEdge {
  int from = 0, to = 0;  // from < to: jobs are numbered in a topological order
  double delay = 0.0;
};

inline constexpr int8_t kNoMachine = -1, kHostMachine = 0, kBusMachine = 1;

struct SeqInput {
  std::vector<double> duration;
  std::vector<int8_t> machine;  // per job: kNoMachine, kHostMachine or kBusMachine
  std::vector<SeqEdge> edges;
};

struct SeqOptions {
  // Only schedules with makespan < cutoff are of interest; with a finite cutoff the search may
  // report found = false (no such schedule exists).
  double cutoff = std::numeric_limits<double>::infinity();
  int64_t max_nodes = -1;  // < 0: unlimited; otherwise stop after that many nodes (proven = false)
  const Deadline* deadline = nullptr;  // charged every node; stops with proven = false
};

struct SeqOutput {
  bool found = false;  // a schedule with makespan < cutoff was found (the best one is returned)
  bool proven = true;  // the search finished: found ? optimal : none below the cutoff exists
  double makespan = std::numeric_limits<double>::infinity();
  std::vector<int> host_order;  // host jobs in execution order
  std::vector<int> bus_order;   // bus jobs in execution order
  std::vector<double> start;    // per job, semi-active schedule of the two orders
  int64_t nodes = 0;
};

[[nodiscard]] SeqOutput sequence(const SeqInput& in, const SeqOptions& opt = {});

}  // namespace hetcim::partition
