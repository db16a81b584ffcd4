// Replaying an assignment: the schedule simulator and the checker every solver result goes
// through. The simulator builds the semi-active schedule of an assignment for a given host order
// and, with a serial bus, a given bus order (each operator starts as soon as its inputs, their
// transfers and, on the host, the previous host operator allow; each transfer as soon as its
// producer and, on a serial bus, the previous transfer allow); check() verifies any schedule,
// from a solver or a user file, against the problem and lists every violation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "partition/problem.h"

namespace hetcim::partition {

struct Assignment {
  std::vector<int> mode;  // per operator: kHost (-1) or accelerator mode k >= 0
};

[[nodiscard]] Assignment all_host(const Problem& p);
[[nodiscard]] int64_t crossbars_used(const Problem& p, const Assignment& a);
// The additive accuracy cost of `a` (ppm; 0 without an accuracy model).
[[nodiscard]] int64_t drop_used(const Problem& p, const Assignment& a);

// One bus transfer. PerEdge: one per edge crossing devices (consumers = {v}). PerTensorDirection:
// one per producer and direction (consumers = every consumer on the other device).
struct Transfer {
  int key = -1;  // index in dag.edges of its first edge: names the transfer in a bus order
  int producer = -1;
  std::vector<int> consumers;
  bool to_host = false;  // direction: accelerator -> host
  double start = 0.0;    // >= finish of the producer (equal on a parallel bus)
  double finish = 0.0;
};

struct Schedule {
  Assignment assignment;
  std::vector<int> host_order;  // host operators in execution order
  std::vector<int> bus_order;   // serial bus: Transfer::key of every transfer in bus order
  std::vector<double> start, finish;
  std::vector<Transfer> transfers;  // in key order
  double makespan = 0.0;
};

// The transfers `a` implies, in key order, with start = finish = 0.
[[nodiscard]] std::vector<Transfer> implied_transfers(const Problem& p, const Assignment& a);
// Bus time of a transfer: t_transfer[key] (PerEdge) or t_out[producer] (PerTensorDirection).
[[nodiscard]] double transfer_duration(const Problem& p, const Transfer& t);

// Semi-active schedule of `a` with the host running its operators in `host_order` and, on a
// serial bus, the bus carrying the transfers in `bus_order` (Transfer::key; must be empty on a
// parallel bus). Throws UserError if `a` names a mode an operator lacks, or if the orders are not
// permutations of the host operators / transfers that can run in that order (naming them).
[[nodiscard]] Schedule simulate(const Problem& p, const Assignment& a,
                                const std::vector<int>& host_order,
                                const std::vector<int>& bus_order = {});

// The same without exceptions for orders that deadlock (each waits on something placed later):
// nullopt. Still throws for malformed input (wrong sizes, unknown operators or transfers).
[[nodiscard]] std::optional<Schedule> try_simulate(const Problem& p, const Assignment& a,
                                                   const std::vector<int>& host_order,
                                                   const std::vector<int>& bus_order = {});

// A feasible schedule of `a`, not the best: host operators in a topological order, transfers in
// the order of their producers in it.
[[nodiscard]] Schedule simulate_in_topological_order(const Problem& p, const Assignment& a);

// UserError unless `a` has one mode per operator, each the host or one of the operator's modes.
void require_valid_assignment(const Problem& p, const Assignment& a);

enum class ViolationKind {
  Shape,            // vectors of the wrong length
  UnsupportedMode,  // mode not offered by the operator (incl. offloading a host-only operator)
  Budget,           // crossbars used > budget
  AccuracyBudget,   // accuracy cost (sum of drop_ppm) > drop_budget_ppm
  Duration,         // finish - start != latency of the chosen mode
  NegativeStart,
  Precedence,   // s_v < f_u + transfer delay
  HostOverlap,  // two host operators overlap in time
  HostOrder,    // host_order does not list the host operators in start order
  Transfer,     // a transfer missing, extra, of the wrong length, or out of its window
  BusOverlap,   // serial bus: two transfers overlap in time
  BusOrder,     // serial bus: bus_order does not list the transfers in start order
  Makespan,     // makespan != max finish
};

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
