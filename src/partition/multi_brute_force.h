// The oracle of the K-engine solver: every assignment within the capacities and the links, times
// every order of the jobs on every machine (engines, exclusive groups, serial links), each
// evaluated by a longest-path pass over the precedence and machine arcs (not the list
// simulator). Exponential twice over; meant for about ten operators, to check the exact solver.
#pragma once

#include <cstdint>

#include "partition/multi_problem.h"
#include "partition/multi_schedule.h"

namespace hetcim::partition {

struct MultiBruteForceOptions {
  size_t max_operators = 14;  // refuse larger problems (UserError)
  double max_work = 5e5;      // refuse problems whose multi_brute_force_work exceeds this
};

// An upper bound on the machine orders the brute force evaluates: the sum over assignments of
// the product over machines of (jobs on the machine)!. Saturates at 1e300.
[[nodiscard]] double multi_brute_force_work(const MultiProblem& p);

struct MultiBruteForceResult {
  bool feasible = false;  // some assignment fits the capacities and the links
  double objective = 0.0;
  MultiSchedule schedule;   // a best one (start times from the longest path)
  int64_t assignments = 0;  // assignments within the capacities and links
  int64_t schedules = 0;    // machine orders evaluated (deadlocked ones included)
};

[[nodiscard]] MultiBruteForceResult solve_multi_brute_force(const MultiProblem& p,
                                                            const MultiBruteForceOptions& opt = {});

}  // namespace hetcim::partition
