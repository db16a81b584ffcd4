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
//
// FrontKind::Full gives every non-dominated point, those inside the hull too. For every plan,
// total = D' + c * makespan with D' = dynamic' above (a plan's dynamic energy net of the host's
// idle power over its operators): a plan that has no larger makespan and no larger D' than
// another has no larger total energy either, so the (makespan, total) front is contained in the
// (makespan, D') front. That front is exact from one solve with D' as the second resource of the
// segment fronts and of the DP (solve_exact_energy_front, exact.h); its points are re-evaluated
// with energy_of() on `p` and the ones some other point dominates in (makespan, total) dropped.
// A point is `supported` when it is a vertex of the lower-left convex hull of the front (the
// points a weighted sum reaches: the Supported front's).
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

enum class FrontKind {
  Supported,  // the dichotomic search over weights: the hull's vertices
  Full,       // every non-dominated point (exact bi-objective DP)
};

[[nodiscard]] const char* front_kind_name(FrontKind k);  // "supported" / "full"

struct FrontPoint {
  // A weight (s/J) at which this point minimises makespan + weight * total; -1 for a point no
  // weight reaches (Full front, not supported).
  double weight = 0.0;
  bool supported = true;  // a vertex of the front's convex hull
  double makespan = 0.0;
  EnergyBreakdown energy;  // of the schedule below, for `p` as given
  Schedule schedule;
};

struct FrontOptions {
  double time_limit_seconds = std::numeric_limits<double>::infinity();  // per exact solve
  size_t max_points = 64;  // Supported: stop refining once the front has this many points (>= 2)
  FrontKind kind = FrontKind::Supported;
};

struct FrontResult {
  std::vector<FrontPoint> points;  // ascending makespan, strictly descending total energy
  size_t solves = 0;               // exact solves run
  FrontKind kind = FrontKind::Supported;
  // every point of its kind found (false: max_points or a time limit; Full: no points then)
  bool complete = true;
  double seconds = 0.0;
};

[[nodiscard]] FrontResult latency_energy_front(const Problem& p, const FrontOptions& opt = {});

}  // namespace hetcim::partition
