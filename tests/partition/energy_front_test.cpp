#include "partition/energy_front.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "partition/accuracy_front.h"
#include "partition/brute_force.h"
#include "partition/exact.h"
#include "test_problems.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

using testing::random_problem;
using testing::RandomSpec;

// A random problem with energies whose host active power (>= 0.5 W on top of the idle 0.25 W)
// is above its idle power, and static powers; exact binary fractions keep sums exact.
Problem energetic(uint64_t seed, RandomSpec s) {
  s.energy_weight = 1;
  Problem p = random_problem(seed, s);
  p.energy_weight = 0.0;
  int64_t crossbars = 0;
  for (size_t v = 0; v < p.size(); ++v) {
    p.e_host[v] += 0.5 * p.t_host[v];
    for (AccMode& m : p.acc[v]) {  // a frugal, slower accelerator with room for most operators
      m.energy = std::floor(m.energy / 4);
      m.t_acc += 6;
      crossbars += m.crossbars;
    }
  }
  p.crossbar_budget = std::max(p.crossbar_budget, crossbars * 3 / 4);
  p.p_host_idle = 0.25;
  p.p_cim_static = 0.125;
  return p;
}

Problem energetic(uint64_t seed, bool per_tensor) {
  RandomSpec s;
  s.per_tensor = per_tensor;
  s.max_ops = 7;
  return energetic(seed, s);
}

TEST(TotalEnergyWeight, IsTheScaledDynamicObjective) {
  // makespan + w * total = (1 + w c) (makespan + w' * dynamic') on any schedule.
  std::mt19937_64 rng(5);
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const Problem p = energetic(seed, seed % 2 == 0);
    Assignment a = all_host(p);
    for (size_t v = 0; v < p.size(); ++v)
      if (!p.acc[v].empty() && rng() % 2 == 0) a.mode[v] = 0;
    const Schedule s = simulate_in_topological_order(p, a);
    for (double w : {0.0, 0.3, 2.0, 40.0}) {
      const Problem q = with_total_energy_weight(p, w);
      const double c = p.p_cim_static + p.p_host_idle;
      const double lhs = s.makespan + w * energy_of(p, s).total;
      EXPECT_NEAR(lhs, (1 + w * c) * objective_value(q, s), 1e-9 * lhs) << "seed " << seed;
    }
  }
}

TEST(TotalEnergyWeight, RejectsAHostBelowItsIdlePower) {
  Problem p = energetic(3, false);
  p.p_host_idle = 100.0;
  try {
    (void)with_total_energy_weight(p, 1.0);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("idle power"), std::string::npos) << e.what();
  }
  p.e_host.clear();
  EXPECT_THROW((void)latency_energy_front(p), UserError);
}

// For every weight, the best point of the front is as good as the brute force over every
// assignment and host order: the front holds every supported point.
// (makespan, total energy) of the best schedule of every assignment within the budget.
std::vector<std::pair<double, double>> every_assignment(const Problem& p) {
  std::vector<std::pair<double, double>> out;
  Assignment a = all_host(p);
  std::function<void(size_t, int64_t)> rec = [&](size_t v, int64_t used) {
    if (v == p.size()) {
      const Schedule s = simulate_best(p, a);
      out.emplace_back(s.makespan, energy_of(p, s).total);
      return;
    }
    a.mode[v] = kHost;
    rec(v + 1, used);
    for (size_t k = 0; k < p.acc[v].size(); ++k) {
      if (used + p.acc[v][k].crossbars > p.crossbar_budget) continue;
      a.mode[v] = static_cast<int>(k);
      rec(v + 1, used + p.acc[v][k].crossbars);
    }
    a.mode[v] = kHost;
  };
  rec(0, 0);
  return out;
}

// Returns how many fronts had `long_front` points or more.
size_t expect_front_matches_brute_force(const std::function<Problem(uint64_t)>& make,
                                        uint64_t first, int count, size_t long_front = 3) {
  size_t long_fronts = 0;
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first + static_cast<uint64_t>(i);
    const Problem p = make(seed);
    const FrontResult f = latency_energy_front(p);
    EXPECT_FALSE(f.points.empty());
    EXPECT_TRUE(f.complete);
    long_fronts += f.points.size() >= long_front ? 1 : 0;
    // No assignment dominates a point of the front.
    for (const FrontPoint& q : f.points)
      for (const auto& [l, e] : every_assignment(p))
        EXPECT_FALSE((l <= q.makespan && e < q.energy.total * (1 - 1e-12)) ||
                     (l < q.makespan * (1 - 1e-12) && e <= q.energy.total))
            << "seed " << seed;
    for (size_t k = 1; k < f.points.size(); ++k) {
      EXPECT_GT(f.points[k].makespan, f.points[k - 1].makespan) << "seed " << seed;
      EXPECT_LT(f.points[k].energy.total, f.points[k - 1].energy.total) << "seed " << seed;
    }
    const double c = p.p_cim_static + p.p_host_idle;
    for (double w : {0.0, 0.01, 0.1, 0.5, 2.0, 10.0, 1e4}) {
      double front = std::numeric_limits<double>::infinity();
      for (const FrontPoint& q : f.points) front = std::min(front, q.makespan + w * q.energy.total);
      const double brute =
          (1 + w * c) * solve_brute_force(with_total_energy_weight(p, w)).objective;
      EXPECT_NEAR(front, brute, 1e-9 * brute) << "seed " << seed << " weight " << w;
    }
  }
  return long_fronts;
}

size_t expect_front_matches_brute_force(bool per_tensor, uint64_t first, int count) {
  return expect_front_matches_brute_force(
      [per_tensor](uint64_t seed) { return energetic(seed, per_tensor); }, first, count);
}

TEST(LatencyEnergyFront, MatchesTheBruteForceAtEveryWeight) {
  EXPECT_GE(expect_front_matches_brute_force(false, 100, 100), 4u);  // the recursion is exercised
}

TEST(LatencyEnergyFront, PerTensorTransfers) {
  EXPECT_GE(expect_front_matches_brute_force(true, 300, 60), 4u);
}

// Weight replication as partition::build_problem makes it (build.cpp): an offloadable
// operator's one mode split into a fixed part (its input and output) and `mvm` MVM steps; r
// copies take r times the crossbars and ceil(mvm / r) steps at the same energy (the
// crossbar-MVMs add up alike), and a copy that does not shorten the operator is not a mode.
// The budget leaves room for some copies but not all.
Problem replicated(uint64_t seed, RandomSpec s, int max_replicas) {
  s.max_acc = 8;  // MVM steps 0..8 on top of energetic()'s fixed 6
  Problem p = energetic(seed, s);
  int64_t all = 0;
  for (std::vector<AccMode>& modes : p.acc) {
    if (modes.empty()) continue;
    const AccMode base = modes.front();
    const double fixed = 6.0, mvm = base.t_acc - fixed;
    modes.clear();
    for (int r = 1; r <= max_replicas; ++r) {
      const double t = fixed + std::ceil(mvm / r);
      if (!modes.empty() && t >= modes.back().t_acc) break;
      modes.push_back(AccMode{r * base.crossbars, t, base.energy});
    }
    all += modes.back().crossbars;
  }
  p.crossbar_budget = all * 2 / 3;
  return p;
}

TEST(LatencyEnergyFront, HandComputedTwoPointFront) {
  // One operator: host 4 s at 1 J (active power 0.25 W over the idle 0), accelerator 10 s at
  // 0.5 J. No static power. The front: (4 s, 1 J) and (10 s, 0.5 J); the slope between them is
  // 6 s / 0.5 J = 12 s/J.
  Problem p = testing::make_problem(1, {}, {4}, {{{1, 10.0, 0.5}}}, {}, 1);
  p.e_host = {1.0};
  const FrontResult f = latency_energy_front(p);
  ASSERT_EQ(f.points.size(), 2u);
  EXPECT_DOUBLE_EQ(f.points[0].makespan, 4.0);
  EXPECT_DOUBLE_EQ(f.points[0].energy.total, 1.0);
  EXPECT_DOUBLE_EQ(f.points[1].makespan, 10.0);
  EXPECT_DOUBLE_EQ(f.points[1].energy.total, 0.5);
  EXPECT_EQ(f.solves, 3u);  // both extremes, then the slope finds nothing below the segment
}

// The (makespan, total energy) points no other pair dominates, ascending makespan (ties within a
// relative 1e-12 are one point).
std::vector<std::pair<double, double>> non_dominated(std::vector<std::pair<double, double>> pts) {
  std::sort(pts.begin(), pts.end());
  std::vector<std::pair<double, double>> front;
  for (const auto& q : pts)
    if (front.empty() || q.second < front.back().second * (1 - 1e-12)) front.push_back(q);
  return front;
}

// The full front (every non-dominated point) equals the brute force's over every assignment
// (each at its best host order, which minimises its makespan and so its total energy); its
// supported points are the weighted-sum front's. Returns how many points no weight reaches.
size_t expect_full_front_matches_brute_force(const std::function<Problem(uint64_t)>& make,
                                             uint64_t first, int count) {
  size_t unsupported = 0;
  FrontOptions full;
  full.kind = FrontKind::Full;
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first + static_cast<uint64_t>(i);
    const Problem p = make(seed);
    const FrontResult f = latency_energy_front(p, full);
    EXPECT_EQ(f.kind, FrontKind::Full);
    EXPECT_TRUE(f.complete);
    const auto brute = non_dominated(every_assignment(p));
    EXPECT_EQ(f.points.size(), brute.size()) << "seed " << seed;
    if (f.points.size() != brute.size()) continue;
    for (size_t k = 0; k < brute.size(); ++k) {
      const FrontPoint& q = f.points[k];
      EXPECT_NEAR(q.makespan, brute[k].first, 1e-9 * brute[k].first) << "seed " << seed;
      EXPECT_NEAR(q.energy.total, brute[k].second, 1e-9 * brute[k].second) << "seed " << seed;
      // A solved plan: its schedule is valid and its numbers are the evaluator's.
      EXPECT_TRUE(check(p, q.schedule).empty()) << "seed " << seed;
      EXPECT_DOUBLE_EQ(q.energy.total, energy_of(p, q.schedule).total) << "seed " << seed;
      unsupported += q.supported ? 0 : 1;
    }
    // The supported points are exactly the dichotomic search's.
    const FrontResult sup = latency_energy_front(p);
    std::vector<const FrontPoint*> hull;
    for (const FrontPoint& q : f.points)
      if (q.supported) hull.push_back(&q);
    EXPECT_EQ(hull.size(), sup.points.size()) << "seed " << seed;
    if (hull.size() != sup.points.size()) continue;
    for (size_t k = 0; k < hull.size(); ++k) {
      EXPECT_NEAR(hull[k]->makespan, sup.points[k].makespan, 1e-9 * sup.points[k].makespan)
          << "seed " << seed;
      EXPECT_NEAR(hull[k]->energy.total, sup.points[k].energy.total,
                  1e-9 * sup.points[k].energy.total)
          << "seed " << seed;
    }
  }
  return unsupported;
}

size_t expect_full_front_matches_brute_force(const RandomSpec& spec, uint64_t first, int count) {
  return expect_full_front_matches_brute_force(
      [&spec](uint64_t seed) { return energetic(seed, spec); }, first, count);
}

TEST(FullLatencyEnergyFront, MatchesTheBruteForce) {
  RandomSpec s;
  s.max_ops = 7;
  EXPECT_GE(expect_full_front_matches_brute_force(s, 700, 80), 5u);
}

TEST(FullLatencyEnergyFront, PerTensorTransfers) {
  RandomSpec s;
  s.max_ops = 7;
  s.per_tensor = true;
  EXPECT_GE(expect_full_front_matches_brute_force(s, 800, 50), 3u);
}

TEST(FullLatencyEnergyFront, SerialBus) {
  RandomSpec s;
  s.max_ops = 6;
  s.serial_bus = true;
  EXPECT_GE(expect_full_front_matches_brute_force(s, 900, 50), 3u);
}

TEST(FullLatencyEnergyFront, SeveralModes) {
  RandomSpec s;
  s.max_ops = 6;
  s.max_modes = 3;
  EXPECT_GE(expect_full_front_matches_brute_force(s, 1000, 40), 3u);
}

TEST(FullLatencyEnergyFront, ChainsWithCutNodes) {
  RandomSpec s;
  s.blocks = 4;
  EXPECT_GE(expect_full_front_matches_brute_force(s, 1100, 40), 3u);
  RandomSpec c;
  c.max_ops = 7;
  c.chain = true;
  EXPECT_GE(expect_full_front_matches_brute_force(c, 1200, 40), 3u);
}

// How many of the problems make(first .. first + count - 1) have an operator with two copies or
// more that fit the budget (the replicas tests are about those).
int with_copies(const std::function<Problem(uint64_t)>& make, uint64_t first, int count) {
  int n = 0;
  for (int i = 0; i < count; ++i) {
    const Problem p = make(first + static_cast<uint64_t>(i));
    bool some = false;
    for (const auto& modes : p.acc)
      some = some || (modes.size() > 1 && modes[1].crossbars <= p.crossbar_budget);
    n += some ? 1 : 0;
  }
  return n;
}

// Replicas (issue 15: the YOLOv5n fronts with --replicas 4): modes that differ in crossbars and
// latency only, both fronts against the brute force over every assignment.
TEST(LatencyEnergyFront, Replicas) {
  RandomSpec s;
  s.max_ops = 6;
  const auto make = [&s](uint64_t seed) { return replicated(seed, s, 4); };
  EXPECT_GE(with_copies(make, 1300, 50), 40);
  // Copies cost no energy of their own: of these fronts none of 120 had three points, 20 of
  // these 50 have two (the copies shape the fast one).
  EXPECT_GE(expect_front_matches_brute_force(make, 1300, 50, 2), 10u);
}

TEST(FullLatencyEnergyFront, Replicas) {
  RandomSpec s;
  s.max_ops = 6;
  const auto make = [&s](uint64_t seed) { return replicated(seed, s, 4); };
  EXPECT_GE(with_copies(make, 1400, 50), 40);
  EXPECT_GE(expect_full_front_matches_brute_force(make, 1400, 50), 2u);
  RandomSpec serial = s;
  serial.serial_bus = true;
  serial.per_tensor = true;
  EXPECT_GE(expect_full_front_matches_brute_force(
                [&serial](uint64_t seed) { return replicated(seed, serial, 3); }, 1500, 40),
            1u);
}

TEST(FullLatencyEnergyFront, HandComputedUnsupportedPoint) {
  // One operator, no static or idle power (total = dynamic energy): host 4 s at 1 J, mode 0
  // 6 s at 0.8 J, mode 1 10 s at 0.2 J. All three are non-dominated; the segment from (4, 1) to
  // (10, 0.2) passes t = 6 s at 1 - 0.8 * 2/6 = 0.733 J < 0.8 J, so the middle point is
  // unsupported. The hull's slope: (10 - 4) s / (1 - 0.2) J = 7.5 s/J.
  Problem p = testing::make_problem(1, {}, {4}, {{{1, 6.0, 0.8}, {1, 10.0, 0.2}}}, {}, 1);
  p.e_host = {1.0};
  FrontOptions full;
  full.kind = FrontKind::Full;
  const FrontResult f = latency_energy_front(p, full);
  ASSERT_EQ(f.points.size(), 3u);
  const double makespan[] = {4, 6, 10}, energy[] = {1, 0.8, 0.2}, weight[] = {0, -1, 7.5};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(f.points[k].makespan, makespan[k]);
    EXPECT_DOUBLE_EQ(f.points[k].energy.total, energy[k]);
    EXPECT_EQ(f.points[k].supported, k != 1);
    EXPECT_DOUBLE_EQ(f.points[k].weight, weight[k]);
  }
  EXPECT_EQ(latency_energy_front(p).points.size(), 2u);  // the weighted sums miss (6 s, 0.8 J)
}

// The latency x energy x accuracy front (accuracy_front.h): its points are mutually
// non-dominated, each within the budget it was found under, and its fastest point with no more
// than the full (or a zero) accuracy drop is the exact solver's optimum under that budget.
TEST(AccuracyFront, NonDominatedAndItsExtremesAreExactOptima) {
  for (uint64_t seed = 61000; seed < 61030; ++seed) {
    Problem p = energetic(seed, false);
    std::mt19937_64 rng(seed);
    int64_t total = 0;
    p.drop_ppm.assign(p.size(), 0);
    for (size_t v = 0; v < p.size(); ++v)
      if (!p.acc[v].empty()) total += p.drop_ppm[v] = static_cast<int64_t>(rng() % 10);
    p.drop_budget_ppm = total;
    const Front3d f = latency_energy_accuracy_front(p);
    ASSERT_FALSE(f.points.empty());
    EXPECT_TRUE(f.complete);
    double fastest = std::numeric_limits<double>::infinity(), fastest_free = fastest;
    for (size_t i = 0; i < f.points.size(); ++i) {
      const Front3dPoint& a = f.points[i];
      EXPECT_EQ(drop_used(p, a.schedule.assignment), a.drop_ppm);
      EXPECT_LE(a.drop_ppm, a.budget_ppm);
      fastest = std::min(fastest, a.makespan);
      if (a.drop_ppm == 0) fastest_free = std::min(fastest_free, a.makespan);
      for (size_t j = 0; j < f.points.size(); ++j) {
        const Front3dPoint& b = f.points[j];
        if (i == j) continue;
        EXPECT_FALSE(b.makespan <= a.makespan && b.energy <= a.energy && b.drop_ppm <= a.drop_ppm)
            << "seed " << seed;
      }
    }
    EXPECT_NEAR(fastest, solve_exact(p).makespan, 1e-9) << "seed " << seed;
    Problem none = p;
    none.drop_budget_ppm = 0;
    EXPECT_NEAR(fastest_free, solve_exact(none).makespan, 1e-9) << "seed " << seed;
  }
}

}  // namespace
}  // namespace hetcim::partition
