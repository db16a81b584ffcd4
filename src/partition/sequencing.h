// Exact host sequencing for a fixed assignment. Jobs are the operators of a (sub-)DAG with fixed
// latencies; host jobs share one machine, the other jobs (accelerator) start as soon as their
// inputs arrive; every edge carries a delay (its transfer, or 0). The problem is one machine with
// heads, tails and delayed precedences (1|prec(l_ij)|Cmax, NP-hard), solved by depth-first
// branch-and-bound over active schedules (Giffler-Thompson: the next host job starts before the
// earliest completion of the eligible ones) with Jackson's preemptive bound over the unscheduled
// host jobs and critical-path bounds over the rest.
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

struct SeqInput {
  std::vector<double> duration;
  std::vector<char> on_host;
  std::vector<SeqEdge> edges;
};

struct SeqOptions {
  // Only schedules with makespan < cutoff are of interest; with a finite cutoff the search may
  // report found = false (no such schedule exists).
  double cutoff = std::numeric_limits<double>::infinity();
  int64_t max_nodes = -1;  // < 0: unlimited; otherwise stop after that many nodes (proven = false)
  const Deadline* deadline = nullptr;  // checked every 1024 nodes; stops with proven = false
};

struct SeqOutput {
  bool found = false;   // a schedule with makespan < cutoff was found (the best one is returned)
  bool proven = true;   // the search finished: found ? optimal : none below the cutoff exists
  double makespan = std::numeric_limits<double>::infinity();
  std::vector<int> host_order;
  std::vector<double> start;  // per job, semi-active schedule of host_order
  int64_t nodes = 0;
};

[[nodiscard]] SeqOutput sequence_host(const SeqInput& in, const SeqOptions& opt = {});

}  // namespace hetcim::partition
