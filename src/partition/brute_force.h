// The oracle: every assignment within the budget times every host order compatible with the DAG
// (times, on a serial bus, every order of the transfers), each replayed by the simulator.
// Exponential twice over; meant for instances of about ten operators, to check the other solvers.
#pragma once

#include <cstdint>

#include "partition/problem.h"
#include "partition/schedule.h"

namespace hetcim::partition {

struct BruteForceOptions {
  size_t max_operators = 12;  // refuse larger problems (UserError)
};

struct BruteForceResult {
  double makespan = 0.0;    // of the schedule below
  double objective = 0.0;   // makespan + energy_weight * dynamic energy, minimised
  Schedule schedule;        // a best one (the first found)
  int64_t assignments = 0;  // assignments within the budget
  int64_t schedules = 0;    // (assignment, host order[, bus order]) feasible and simulated
};

[[nodiscard]] BruteForceResult solve_brute_force(const Problem& p,
                                                 const BruteForceOptions& opt = {});

}  // namespace hetcim::partition
