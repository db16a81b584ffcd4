#include "partition/energy_front.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "partition/energy.h"
#include "partition/exact.h"
#include "partition/sequencing.h"
#include "util/error.h"

namespace hetcim::partition {

Problem with_total_energy_weight(const Problem& p, double weight) {
  if (!p.has_energy()) throw user_error("energy objective: the problem has no energy model");
  if (!std::isfinite(weight) || weight < 0.0)
    throw user_error("energy objective: weight ", weight, " s/J, expected a finite value >= 0");
  Problem q = p;
  for (size_t v = 0; v < q.size(); ++v) {
    const double idle = p.p_host_idle * p.t_host[v];
    if (p.e_host[v] < idle * (1.0 - 1e-12))
      throw user_error("energy objective: operator '", p.names[v], "' costs ", p.e_host[v],
                       " J on the host, less than the host's idle power over its latency (", idle,
                       " J): the host's active power must not be below its idle power");
    q.e_host[v] = std::max(0.0, p.e_host[v] - idle);
  }
  const double c = p.p_cim_static + p.p_host_idle;
  q.energy_weight = weight / (1.0 + weight * c);
  return q;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class Dichotomy {
 public:
  Dichotomy(const Problem& p, const FrontOptions& opt) : p_(p), opt_(opt) {}

  FrontResult run() {
    if (opt_.max_points < 2)
      throw user_error("Pareto front: max_points ", opt_.max_points, ", expected >= 2");
    const auto t0 = std::chrono::steady_clock::now();
    FrontPoint fast = *solve(0.0);
    // A weight large enough that a joule outweighs the whole latency range.
    const double big = 1e6 * std::max(fast.makespan, 1e-12) / std::max(total(fast), 1e-30);
    FrontPoint frugal = *solve(big);
    points_.push_back(fast);
    points_.push_back(frugal);
    refine(fast, frugal);
    std::sort(points_.begin(), points_.end(), [](const FrontPoint& a, const FrontPoint& b) {
      return a.makespan < b.makespan || (a.makespan == b.makespan && total(a) < total(b));
    });
    FrontResult r;
    for (FrontPoint& q : points_)  // keep strictly decreasing total energy
      if (r.points.empty() || total(q) < total(r.points.back()) * (1 - 1e-12))
        r.points.push_back(std::move(q));
    r.solves = solves_;
    r.complete = complete_;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  static double total(const FrontPoint& q) { return q.energy.total; }

  // The optimum at `weight` among the plans whose weighted objective is below `cutoff` (nullopt:
  // there is none, proven).
  std::optional<FrontPoint> solve(double weight, double cutoff = kInf) {
    ++solves_;
    ExactOptions eo;
    eo.time_limit_seconds = opt_.time_limit_seconds;
    eo.seq_cache = &seq_cache_;  // the solves differ in weights only: the same leaves recur
    eo.cutoff = cutoff;
    const ExactResult e = solve_exact(with_total_energy_weight(p_, weight), eo);
    if (e.status == SolveStatus::Infeasible) return std::nullopt;
    if (e.status != SolveStatus::Optimal) complete_ = false;
    FrontPoint q;
    q.weight = weight;
    q.makespan = e.makespan;
    q.schedule = e.schedule;
    q.energy = energy_of(p_, e.schedule);
    return q;
  }

  // a is faster, b uses less energy; look for a point below the segment between them.
  void refine(const FrontPoint& a, const FrontPoint& b) {
    if (!(b.makespan > a.makespan) || !(total(a) > total(b))) return;
    if (points_.size() >= opt_.max_points) {
      complete_ = false;
      return;
    }
    const double w = (b.makespan - a.makespan) / (total(a) - total(b));
    // Only a plan below the segment matters, and a and b lie on it: the solve looks strictly
    // below their weighted objective (the solver's, an increasing affine map of makespan + w x
    // total energy), where a search that finds nothing is a cheap proof (segment_front.cpp).
    const Problem q = with_total_energy_weight(p_, w);
    const std::optional<FrontPoint> c =
        solve(w, std::min(objective_value(q, a.schedule), objective_value(q, b.schedule)));
    if (!c) return;
    const double on_segment = a.makespan + w * total(a);
    if (!(c->makespan + w * total(*c) < on_segment * (1 - 1e-9))) return;
    points_.push_back(*c);
    refine(a, *c);
    refine(*c, b);
  }

  const Problem& p_;
  const FrontOptions& opt_;
  std::vector<FrontPoint> points_;
  SeqCache seq_cache_;
  size_t solves_ = 0;
  bool complete_ = true;
};

// The full front: the (makespan, D') front of one exact solve, re-evaluated and filtered in
// (makespan, total); hull vertices marked supported.
FrontResult full_front(const Problem& p, const FrontOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  ExactOptions eo;
  eo.time_limit_seconds = opt.time_limit_seconds;
  const ExactFront e = solve_exact_energy_front(with_total_energy_weight(p, 0.0), eo);
  FrontResult r;
  r.kind = FrontKind::Full;
  r.solves = 1;
  r.complete = e.status == SolveStatus::Optimal;
  std::vector<FrontPoint> all;
  for (const ExactFrontPoint& pt : e.points) {
    FrontPoint q;
    q.makespan = pt.schedule.makespan;
    q.schedule = pt.schedule;
    q.energy = energy_of(p, pt.schedule);
    all.push_back(std::move(q));
  }
  std::sort(all.begin(), all.end(), [](const FrontPoint& a, const FrontPoint& b) {
    return a.makespan < b.makespan || (a.makespan == b.makespan && a.energy.total < b.energy.total);
  });
  for (FrontPoint& q : all)  // keep strictly decreasing total energy
    if (r.points.empty() || q.energy.total < r.points.back().energy.total * (1 - 1e-12))
      r.points.push_back(std::move(q));
  // The lower-left convex hull (monotone chain over ascending makespan, descending total): a
  // point stays a vertex unless it lies on or above the segment between its neighbours.
  std::vector<size_t> hull;
  const auto cross = [&](size_t o, size_t a, size_t b) {
    const FrontPoint &po = r.points[o], &pa = r.points[a], &pb = r.points[b];
    return (pa.makespan - po.makespan) * (pb.energy.total - po.energy.total) -
           (pa.energy.total - po.energy.total) * (pb.makespan - po.makespan);
  };
  for (size_t i = 0; i < r.points.size(); ++i) {
    while (hull.size() >= 2) {
      const size_t o = hull[hull.size() - 2], a = hull.back();
      // a is a vertex only when o -> a -> i turns left (strictly convex); relative tolerance.
      const double scale = (r.points[i].makespan - r.points[o].makespan) *
                           std::abs(r.points[o].energy.total - r.points[i].energy.total);
      if (cross(o, a, i) > 1e-9 * scale) break;
      hull.pop_back();
    }
    hull.push_back(i);
  }
  for (FrontPoint& q : r.points) {
    q.supported = false;
    q.weight = -1.0;
  }
  for (size_t h = 0; h < hull.size(); ++h) {
    FrontPoint& q = r.points[hull[h]];
    q.supported = true;
    // The weight at which it ties with the previous vertex (0 for the fastest).
    if (h == 0) {
      q.weight = 0.0;
      continue;
    }
    const FrontPoint& prev = r.points[hull[h - 1]];
    q.weight = (q.makespan - prev.makespan) / (prev.energy.total - q.energy.total);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

const char* front_kind_name(FrontKind k) {
  return k == FrontKind::Full ? "full" : "supported";
}

FrontResult latency_energy_front(const Problem& p, const FrontOptions& opt) {
  p.validate();
  if (!p.has_energy()) throw user_error("Pareto front: the problem has no energy model");
  if (opt.kind == FrontKind::Full) return full_front(p, opt);
  return Dichotomy(p, opt).run();
}

}  // namespace hetcim::partition
