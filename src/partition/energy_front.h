// The latency-energy trade-off of a partition (beyond seed 000). Total energy (energy.h) is the
// dynamic energy plus static power over the makespan; for a fixed assignment both fall with the
// makespan, and
//   makespan + w * total = (1 + w c) * (makespan + w / (1 + w c) * dynamic')
// with c = p_cim_static + p_host_idle and dynamic' the dynamic energy with the host's energies
// reduced by its idle power over their latency (e_host - p_host_idle * t_host). So every weighted
// total-energy objective is a weighted dynamic objective the solvers minimise exactly
// (with_total_energy_weight), and the supported points of the (latency, total energy) Pareto
// front follow from a dichotomic search over the weight (Aneja and Nair, 1979): solve at the two
// extremes, then at the slope between two neighbouring points, until no point falls below the
// segment between them. Every point is a proven optimum of its weighted problem; points of the
// front that no weight reaches (inside the convex hull) are not found.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "partition/energy.h"
#include "partition/problem.h"
#include "partition/schedule.h"

namespace hetcim::partition {

// `p` with the objective makespan + weight * total energy (weight in s/J, >= 0) expressed as the
// solvers' makespan + energy_weight * dynamic energy. UserError when `p` has no energy model or
// an operator's host energy is below idle power times its latency (active power < idle power).
[[nodiscard]] Problem with_total_energy_weight(const Problem& p, double weight);

struct FrontPoint {
  double weight = 0.0;  // a weight (s/J) at which this point minimises makespan + weight * total
  double makespan = 0.0;
  EnergyBreakdown energy;  // of the schedule below, for `p` as given
  Schedule schedule;
};

struct FrontOptions {
  double time_limit_seconds = std::numeric_limits<double>::infinity();  // per exact solve
  size_t max_points = 64;  // stop refining once the front has this many points (>= 2)
};

struct FrontResult {
  std::vector<FrontPoint> points;  // ascending makespan, strictly descending total energy
  size_t solves = 0;               // exact solves run
  bool complete = true;  // every supported point found (false: max_points or a time limit)
  double seconds = 0.0;
};

[[nodiscard]] FrontResult latency_energy_front(const Problem& p, const FrontOptions& opt = {});

}  // namespace hetcim::partition
