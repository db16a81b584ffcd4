// Schedules of a K-engine problem (multi_problem.h): the list-schedule simulator every solver
// result is replayed through, the energy and objective of a schedule, and the checker that
// verifies any schedule against the problem and lists every violation.
//
// Jobs: operator v is job v; the transfer of edge e over a serial link is job n + e. The
// simulator takes an assignment (an option per operator) and a list of jobs; it starts each job,
// in list order, as early as its inputs (producers plus transfer latency on a parallel link, or
// the transfer job on a serial one) and its machine (the last job placed on it) allow. Every
// semi-active schedule is the list schedule of its jobs sorted by start, so a list is a complete
// description of a solution.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "partition/multi_problem.h"

namespace hetcim::partition {

struct MultiTransfer {
  int edge = -1;  // index in dag.edges
  int link = -1;  // index in MultiProblem::links
  double start = 0.0, finish = 0.0;
};

struct MultiSchedule {
  std::vector<int> option;  // per operator: index into MultiProblem::options[v]
  std::vector<int> order;   // the job list it was simulated from
  std::vector<double> start, finish;
  std::vector<MultiTransfer> transfers;  // one per edge crossing engines, in edge order
  double makespan = 0.0;
  double energy = 0.0;     // J (multi_energy)
  double objective = 0.0;  // latency_weight * makespan + energy_weight * energy
};

// Energy of an assignment at a given makespan: options + transfers + static + idle.
[[nodiscard]] double multi_energy(const MultiProblem& p, const std::vector<int>& option,
                                  double makespan);

// A job list for an assignment: operators in topological order, each serial transfer right
// after its producer. Feasible, not the best.
[[nodiscard]] std::vector<int> multi_default_order(const MultiProblem& p,
                                                   const std::vector<int>& option);

// The list schedule (see above). UserError naming the operator when the assignment names an
// option an operator lacks, exceeds a capacity, puts an edge between engines with no link, or
// when the list is not a permutation of the operators and serial transfers in which every job
// follows its inputs.
[[nodiscard]] MultiSchedule multi_simulate(const MultiProblem& p, const std::vector<int>& option,
                                           const std::vector<int>& order);

enum class MultiViolationKind {
  Shape,       // vectors of the wrong length
  Option,      // option index out of range
  Capacity,    // an engine's capacity exceeded
  NoLink,      // an edge crosses engines that no link joins
  Duration,    // finish - start != the option's duration
  Precedence,  // a consumer starts before its input arrives
  Transfer,    // a transfer missing, extra, of the wrong length or outside its window
  Overlap,     // two jobs overlap on one machine (engine, exclusive group or serial link)
  Makespan,    // makespan != latest finish
  Objective,   // energy or objective != recomputed
};

struct MultiViolation {
  MultiViolationKind kind;
  std::string message;
};

// Absolute tolerance of the checker: 1e-9 of the sum of all durations and transfer times.
[[nodiscard]] double multi_time_tolerance(const MultiProblem& p);

[[nodiscard]] std::vector<MultiViolation> multi_check(const MultiProblem& p,
                                                      const MultiSchedule& s);

}  // namespace hetcim::partition
