// The latency x total energy x accuracy-drop front of a problem with accuracy costs (problem.h):
// latency-energy fronts (energy_front.h: exact solves, every supported point) under a shrinking
// accuracy budget (epsilon constraint: each next budget 1 ppm below the largest drop the previous
// front used, until a front uses none), then the points no other point dominates in all three.
// Every point is a proven optimum of its weighted problem under its budget; points of a slice
// inside the convex hull of its latency-energy front are not found (as in energy_front.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "partition/problem.h"
#include "partition/schedule.h"

namespace hetcim::partition {

struct Front3dPoint {
  double makespan = 0.0;
  double energy = 0.0;     // total energy, J
  int64_t drop_ppm = 0;    // additive accuracy drop (problem.h)
  int64_t budget_ppm = 0;  // the accuracy budget it was found under
  Schedule schedule;
};

struct Front3d {
  std::vector<Front3dPoint> points;  // ascending drop, then latency
  size_t fronts = 0, solves = 0;     // latency-energy fronts computed, exact solves in them
  bool complete = true;              // false: max_fronts or a front's cap or time limit
};

// UserError when `p` has no accuracy costs or no energy model.
[[nodiscard]] Front3d latency_energy_accuracy_front(
    const Problem& p, double time_limit_seconds = std::numeric_limits<double>::infinity(),
    size_t max_fronts = 64);

}  // namespace hetcim::partition
