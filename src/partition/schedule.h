// Replaying an assignment: the schedule simulator and the checker every solver result goes
// through. The simulator builds the semi-active schedule of an assignment for a given host order
// (each operator starts as soon as its inputs, their transfers and, on the host, the previous host
// operator allow); check() verifies any schedule, from a solver or a user file, against the
// problem and lists every violation.
#pragma once

#include <string>
#include <vector>

#include "partition/problem.h"

namespace hetcim::partition {

struct Assignment {
  std::vector<int> mode;  // per operator: kHost (-1) or accelerator mode k >= 0
};

[[nodiscard]] Assignment all_host(const Problem& p);
[[nodiscard]] int64_t crossbars_used(const Problem& p, const Assignment& a);

// One bus transfer. PerEdge: one per edge crossing devices (consumers = {v}). PerTensorDirection:
// one per producer and direction (consumers = every consumer on the other device).
struct Transfer {
  int producer = -1;
  std::vector<int> consumers;
  bool to_host = false;  // direction: accelerator -> host
  double start = 0.0;    // = finish of the producer
  double finish = 0.0;
};

struct Schedule {
  Assignment assignment;
  std::vector<int> host_order;  // host operators in execution order
  std::vector<double> start, finish;
  std::vector<Transfer> transfers;
  double makespan = 0.0;
};

// Semi-active schedule of `a` with the host running its operators in `host_order`. Throws
// UserError if `a` names a mode an operator lacks, or if `host_order` is not a permutation of the
// host operators compatible with the DAG (naming the operators).
[[nodiscard]] Schedule simulate(const Problem& p, const Assignment& a,
                                const std::vector<int>& host_order);

// The best schedule of `a`: the host order comes from the exact sequencing of exact.h.
[[nodiscard]] Schedule simulate_best(const Problem& p, const Assignment& a);

enum class ViolationKind {
  Shape,            // vectors of the wrong length
  UnsupportedMode,  // mode not offered by the operator (incl. offloading a host-only operator)
  Budget,           // crossbars used > budget
  Duration,         // finish - start != latency of the chosen mode
  NegativeStart,
  Precedence,       // s_v < f_u + transfer delay
  HostOverlap,      // two host operators overlap in time
  HostOrder,        // host_order does not list the host operators in start order
  Makespan,         // makespan != max finish
};

[[nodiscard]] const char* violation_kind_name(ViolationKind k);

struct Violation {
  ViolationKind kind;
  int op = -1;     // the operator concerned (-1 if none)
  int other = -1;  // the second operator (precedence: the producer; overlap: the other one)
  std::string message;
};

// Absolute time tolerance used by check(): 1e-9 of the sum of all latencies and transfers.
[[nodiscard]] double time_tolerance(const Problem& p);

[[nodiscard]] std::vector<Violation> check(const Problem& p, const Schedule& s);

}  // namespace hetcim::partition
