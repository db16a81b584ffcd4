#include "partition/exact.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "model_shapes.h"
#include "partition/brute_force.h"
#include "partition/milp.h"
#include "resnet18_shape.h"
#include "test_problems.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

using testing::make_problem;
using testing::random_problem;
using testing::RandomSpec;

struct Coverage {
  size_t merged = 0, dropped = 0;
  int64_t deferred = 0;  // leaves whose sequencing waited
  int64_t probes = 0;    // searches of the hard segment with a cutoff below its incumbent
};

Coverage expect_equal_optima(const RandomSpec& spec, uint64_t first_seed, int count,
                             const ExactOptions& opt = {}) {
  Coverage cov;
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(i);
    const Problem p = random_problem(seed, spec);
    const BruteForceResult bf = solve_brute_force(p);
    const ExactResult ex = solve_exact(p, opt);
    EXPECT_EQ(ex.status, SolveStatus::Optimal) << "seed " << seed;
    EXPECT_NEAR(ex.objective, bf.objective, 1e-9 * bf.objective) << "seed " << seed;
    if (p.energy_weight == 0.0) {
      EXPECT_EQ(ex.objective, ex.makespan) << "seed " << seed;
    }
    EXPECT_EQ(ex.bound, ex.objective) << "seed " << seed;
    EXPECT_TRUE(check(p, ex.schedule).empty()) << "seed " << seed;
    cov.merged += ex.cut_nodes - ex.kept_cuts;
    cov.dropped += ex.redundant_edges;
    cov.deferred += ex.deferred;
    cov.probes += ex.probes;
  }
  return cov;
}

// Every hard segment's search first tries cutoffs just above its root bound (segment_front.cpp:
// run_best), so these problems' optima come from those searches as much as from the last one.
TEST(ExactVsBruteForce, SingleModeRandomDags) {
  EXPECT_GT(expect_equal_optima(RandomSpec{}, 1000, 300).probes, 300);  // 1,427 when written
}

TEST(ExactVsBruteForce, ChainsWithSkipEdges) {
  RandomSpec s;
  s.chain = true;
  s.edge_prob = 0.25;
  s.max_ops = 9;
  s.max_transfer = 25;
  const Coverage cov = expect_equal_optima(s, 17000, 200);
  // Both ways of handling an edge that jumps over a cut node must be exercised.
  EXPECT_GT(cov.merged, 20u);
  EXPECT_GT(cov.dropped, 20u);
}

TEST(ExactVsBruteForce, MultiModeRandomDags) {
  RandomSpec s;
  s.max_modes = 3;
  s.max_ops = 7;
  expect_equal_optima(s, 5000, 200);
}

TEST(ExactVsBruteForce, PerTensorDirectionRandomDags) {
  RandomSpec s;
  s.per_tensor = true;
  expect_equal_optima(s, 9000, 200);
}

// A solve stopped by a node limit: its plan is checked and no better than the brute-force
// optimum, its bound no higher (the root bounds of the hard segment's unfinished pairs are
// bounds), and it is exact once the limit covers the whole solve. Multi-mode DAGs with energy
// and accuracy budgets, so that every part of the bound is exercised; the hard segment's bound
// must beat the one a limit before the hard search leaves (critical path / host load) on some.
TEST(ExactVsBruteForce, LimitedSolvesBracketTheOptimum) {
  int searched = 0, tighter = 0;
  for (int k = 0; k < 3; ++k) {
    RandomSpec s;
    s.max_modes = 3;
    s.max_ops = 8;
    s.energy_weight = k == 1 ? 3 : 0;
    s.max_drop = k == 2 ? 40 : 0;
    for (uint64_t seed = 21000; seed < 21060; ++seed) {
      const Problem p = random_problem(seed + 1000 * static_cast<uint64_t>(k), s);
      const BruteForceResult bf = solve_brute_force(p);
      const ExactResult full = solve_exact(p);
      const int64_t work = full.nodes + full.seq_nodes;
      const double tol = 1e-9 * bf.objective;
      ExactOptions o;
      o.node_limit = 1;
      const double early = solve_exact(p, o).bound;
      for (int64_t limit : {work / 4, work / 2, work - 1}) {
        if (limit < 1) continue;
        o.node_limit = limit;
        const ExactResult r = solve_exact(p, o);
        ASSERT_EQ(r.status, SolveStatus::NodeLimit) << "seed " << seed << " limit " << limit;
        EXPECT_TRUE(check(p, r.schedule).empty()) << "seed " << seed;
        EXPECT_GE(r.objective, bf.objective - tol) << "seed " << seed << " limit " << limit;
        EXPECT_LE(r.bound, bf.objective + tol) << "seed " << seed << " limit " << limit;
        EXPECT_LE(r.bound, r.objective) << "seed " << seed;
        searched += r.incumbent == ExactResult::kSearchIncumbent ? 1 : 0;
        tighter += r.bound > early + tol ? 1 : 0;
      }
      o.node_limit = work;
      const ExactResult exact = solve_exact(p, o);
      EXPECT_EQ(exact.status, SolveStatus::Optimal) << "seed " << seed;
      EXPECT_NEAR(exact.objective, bf.objective, tol) << "seed " << seed;
    }
  }
  EXPECT_GT(searched, 30);
  EXPECT_GT(tighter, 30);  // 38 of the limited solves (counted when written); 12 without the
                           // hard segment's bound where a plan was found
}

TEST(ExactVsBruteForce, SparseDagsWithLargeTransfers) {
  RandomSpec s;
  s.edge_prob = 0.2;
  s.max_transfer = 30;
  s.max_ops = 9;
  expect_equal_optima(s, 13000, 150);
}

TEST(ExactVsBruteForce, SerialBusRandomDags) {
  RandomSpec s;
  s.serial_bus = true;
  s.max_ops = 7;
  s.edge_prob = 0.3;
  expect_equal_optima(s, 21000, 200);
}

TEST(ExactVsBruteForce, SerialBusPerTensorRandomDags) {
  RandomSpec s;
  s.serial_bus = true;
  s.per_tensor = true;
  s.max_ops = 7;
  expect_equal_optima(s, 23000, 200);
}

TEST(ExactVsBruteForce, SerialBusChainsWithSkipEdges) {
  RandomSpec s;
  s.serial_bus = true;
  s.chain = true;
  s.edge_prob = 0.25;
  s.max_ops = 6;
  s.max_transfer = 25;
  const Coverage cov = expect_equal_optima(s, 25000, 200);
  // Cuts under a skip edge that may carry a transfer must be merged, never dropped.
  EXPECT_GT(cov.merged, 20u);
}

TEST(ExactVsBruteForce, EnergyWeightedRandomDags) {
  RandomSpec s;
  s.energy_weight = 2;
  expect_equal_optima(s, 27000, 200);
}

TEST(ExactVsBruteForce, EnergyWeightedMultiModePerTensorChains) {
  RandomSpec s;
  s.energy_weight = 1;
  s.max_modes = 3;
  s.per_tensor = true;
  s.chain = true;
  s.edge_prob = 0.25;
  s.max_ops = 8;
  const Coverage cov = expect_equal_optima(s, 29000, 200);
  EXPECT_GT(cov.merged, 20u);
}

// Edges over cut nodes whose bus energy counts: dropped when one endpoint is host-only (their
// energy then belongs to the other endpoint's mode, segments.h), kept otherwise.
TEST(ExactVsBruteForce, EnergyWeightedChainsWithSkipEdges) {
  RandomSpec s;
  s.energy_weight = 2;
  s.chain = true;
  s.edge_prob = 0.25;
  s.max_ops = 9;
  s.max_transfer = 25;
  const Coverage cov = expect_equal_optima(s, 33000, 200);
  EXPECT_GT(cov.merged, 20u);
  EXPECT_GT(cov.dropped, 20u);
}

TEST(ExactVsBruteForce, EnergyWeightedSerialBus) {
  RandomSpec s;
  s.energy_weight = 3;
  s.serial_bus = true;
  s.max_ops = 6;
  expect_equal_optima(s, 31000, 200);
}

// The pruning of segment_front.cpp by the parent's bound on problems like YOLOv5n's serial
// bus with replicas: several accelerator modes per operator, serial bus, per-tensor transfers;
// exact == brute force, and the pruning fires.
TEST(ExactVsBruteForce, SerialBusMultiModePerTensorPruning) {
  RandomSpec s;
  s.serial_bus = true;
  s.per_tensor = true;
  s.max_modes = 3;
  s.max_ops = 7;
  s.max_crossbars = 4;
  int64_t parent = 0;
  for (const bool chain : {false, true}) {
    s.chain = chain;
    s.edge_prob = chain ? 0.25 : 0.35;
    const uint64_t first = chain ? 39000 : 38000;
    expect_equal_optima(s, first, 150);
    for (uint64_t seed = first; seed < first + 150; ++seed) {
      const ExactResult ex = solve_exact(random_problem(seed, s));
      parent += ex.parent_pruned;
    }
  }
  EXPECT_GT(parent, 0);
}

// Replicated modes as partition/build.cpp makes them (r copies: r x the crossbars, ceil(n_mvm / r)
// MVMs, one energy; issue 37's replicas mode): parallel and serial bus, with and without an energy
// weight; exact == brute force.
TEST(ExactVsBruteForce, ReplicaModes) {
  RandomSpec s;
  s.replicas = 4;
  s.max_ops = 6;
  s.max_crossbars = 4;
  s.edge_prob = 0.4;
  expect_equal_optima(s, 43000, 150);
  s.chain = true;
  s.edge_prob = 0.2;
  expect_equal_optima(s, 44000, 100);
  s.energy_weight = 3;
  expect_equal_optima(s, 45000, 100);
  s.chain = false;
  s.serial_bus = true;
  s.per_tensor = true;
  expect_equal_optima(s, 46000, 100);
}

// The same problems stopped by node limits: the bound of a limited solve (the root bounds of the
// hard segment's unfinished searches) never exceeds the brute-force optimum, and beats the bound
// a limit before the hard search leaves on some.
TEST(ExactVsBruteForce, ReplicaModesLimitedBoundsStayBelowTheOptimum) {
  RandomSpec s;
  s.replicas = 4;
  s.max_ops = 6;
  s.max_crossbars = 4;
  int tighter = 0;
  for (int k = 0; k < 2; ++k) {
    s.energy_weight = 3 * k;
    for (uint64_t seed = 47000; seed < 47080; ++seed) {
      const Problem p = random_problem(seed + 1000 * static_cast<uint64_t>(k), s);
      const double best = solve_brute_force(p).objective, tol = 1e-9 * best;
      const ExactResult full = solve_exact(p);
      ExactOptions o;
      o.node_limit = 1;
      const double early = solve_exact(p, o).bound;
      for (int64_t limit : {int64_t{2}, (full.nodes + full.seq_nodes) / 2}) {
        o.node_limit = limit;
        const ExactResult r = solve_exact(p, o);
        if (r.status == SolveStatus::Optimal) continue;
        EXPECT_LE(r.bound, best + tol) << "seed " << seed << " limit " << limit;
        EXPECT_GE(r.objective, best - tol) << "seed " << seed << " limit " << limit;
        tighter += r.bound > early + tol ? 1 : 0;
      }
    }
  }
  EXPECT_GT(tighter, 3);  // 7 when written
}

// Leaves whose sequencing takes more than ExactOptions::defer_leaf_after nodes wait until their
// segment's assignment search is over (segment_front.cpp). With a one-node allowance most leaves
// of these problems wait, so the deferred path carries the solve: the single-objective search
// (serial bus, per-tensor, several modes, energy weights) and the Pareto fronts of the other
// segments (accuracy budgets over blocks); the optima must still equal the brute force's.
TEST(ExactVsBruteForce, DeferredLeavesKeepTheOptima) {
  ExactOptions o;
  o.defer_leaf_after = 1;
  int64_t deferred = 0;
  RandomSpec s;
  s.serial_bus = true;
  s.max_ops = 7;
  s.edge_prob = 0.3;
  deferred += expect_equal_optima(s, 21000, 40, o).deferred;
  s.per_tensor = true;
  s.max_modes = 3;
  s.max_crossbars = 4;
  deferred += expect_equal_optima(s, 38000, 40, o).deferred;
  RandomSpec e;
  e.energy_weight = 3;
  e.serial_bus = true;
  e.max_ops = 6;
  deferred += expect_equal_optima(e, 31000, 40, o).deferred;
  RandomSpec a;
  a.max_drop = 9;
  a.max_modes = 3;
  a.blocks = 2;
  const Coverage fronts = expect_equal_optima(a, 36000, 40, o);
  deferred += fronts.deferred;
  EXPECT_GT(fronts.deferred, 100);  // 457 and 1,457 when written
  EXPECT_GT(deferred, 500);
}

// ExactOptions::cutoff: with the brute-force optimum as the cutoff nothing lies strictly below it
// (Infeasible, no schedule, the cutoff as the bound); just above it the optimum itself comes back.
TEST(ExactVsBruteForce, CutoffAtAndAboveTheOptimum) {
  RandomSpec s;
  s.max_modes = 2;
  s.serial_bus = true;
  s.energy_weight = 2;
  s.max_ops = 6;
  for (uint64_t seed = 41000; seed < 41060; ++seed) {
    const Problem p = random_problem(seed, s);
    const double best = solve_brute_force(p).objective;
    ExactOptions o;
    o.cutoff = best * (1 - 1e-9);
    const ExactResult none = solve_exact(p, o);
    EXPECT_EQ(none.status, SolveStatus::Infeasible) << "seed " << seed;
    EXPECT_TRUE(none.schedule.assignment.mode.empty()) << "seed " << seed;
    EXPECT_EQ(none.bound, o.cutoff) << "seed " << seed;
    o.cutoff = best * (1 + 1e-9);
    const ExactResult at = solve_exact(p, o);
    EXPECT_EQ(at.status, SolveStatus::Optimal) << "seed " << seed;
    EXPECT_NEAR(at.objective, best, 1e-9 * best) << "seed " << seed;
    EXPECT_TRUE(check(p, at.schedule).empty()) << "seed " << seed;
  }
  ExactOptions bad;
  bad.cutoff = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW((void)solve_exact(random_problem(41000, s), bad), UserError);
}

// The accuracy drop as a second knapsack resource (problem.h): exact == brute force over every
// assignment within both budgets; `binding` counts the instances where the accuracy budget
// changes the optimum (the same problem without it is faster), so the constraint is exercised.
size_t expect_equal_optima_with_accuracy(const RandomSpec& spec, uint64_t first_seed, int count) {
  size_t binding = 0;
  expect_equal_optima(spec, first_seed, count);
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(i);
    const Problem p = random_problem(seed, spec);
    const ExactResult ex = solve_exact(p);
    EXPECT_LE(drop_used(p, ex.schedule.assignment), p.drop_budget_ppm) << "seed " << seed;
    Problem free = p;
    free.drop_ppm.clear();
    if (solve_exact(free).objective < ex.objective - 1e-9) ++binding;
  }
  return binding;
}

TEST(ExactVsBruteForce, AccuracyBudgetRandomDags) {
  RandomSpec s;
  s.max_drop = 9;
  EXPECT_GT(expect_equal_optima_with_accuracy(s, 33000, 150), 30u);
}

TEST(ExactVsBruteForce, AccuracyBudgetBlocks) {
  RandomSpec s;
  s.max_drop = 9;
  s.blocks = 3;  // segments with parallel operators: per-segment fronts over (crossbars, drop)
  EXPECT_GT(expect_equal_optima_with_accuracy(s, 35000, 100), 20u);
}

TEST(ExactVsBruteForce, AccuracyBudgetMultiModeBlocks) {
  RandomSpec s;
  s.max_drop = 9;
  s.max_modes = 3;
  s.blocks = 2;
  EXPECT_GT(expect_equal_optima_with_accuracy(s, 36000, 100), 20u);
}

TEST(ExactVsBruteForce, AccuracyBudgetEnergyWeightedSerialBus) {
  RandomSpec s;
  s.max_drop = 5;
  s.energy_weight = 2;
  s.serial_bus = true;
  s.max_ops = 6;
  EXPECT_GT(expect_equal_optima_with_accuracy(s, 37000, 100), 10u);
}

// Two diamonds 0 -> {1, 2} -> 3 -> {A = 4, B = 5} -> 6, ops 1, 2 and A at 9 ppm each, B free,
// a drop budget of 10: one of 1, 2, A may go. The second segment's front (the first one is the
// hard segment) must keep the plan with B offloaded and A on the host (segment latency 12 + 1)
// although A offloaded and B on the host is faster (10 + 1) for fewer crossbars: it costs 9 ppm.
// Hand-computed optimum: op 1 (host 20) offloaded, B offloaded: 1 + max(0.5, 1) + 1 + 12 + 1 = 16.
TEST(ExactSolver, AccuracyFrontKeepsSlowerPlansThatCostNoAccuracy) {
  const std::vector<std::pair<int, int>> edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3},
                                                  {3, 4}, {3, 5}, {4, 6}, {5, 6}};
  Problem p = make_problem(7, edges, {1, 20, 1, 1, 12, 10, 1},
                           {{}, {{1, 0.5}}, {{1, 0.5}}, {}, {{1, 1.0}}, {{3, 2.0}}, {}},
                           std::vector<double>(edges.size(), 0.0), 10);
  p.drop_ppm = {0, 9, 9, 0, 9, 0, 0};
  p.drop_budget_ppm = 10;
  const ExactResult ex = solve_exact(p);
  EXPECT_DOUBLE_EQ(ex.makespan, 16.0);
  EXPECT_EQ(ex.schedule.assignment.mode,
            (std::vector<int>{kHost, 0, kHost, kHost, kHost, 0, kHost}));
  EXPECT_DOUBLE_EQ(solve_brute_force(p).makespan, 16.0);
}

// A zero budget keeps every operator with a positive accuracy cost on the host, and the drop is
// reported as a violation by the checker.
TEST(ExactSolver, ZeroAccuracyBudgetKeepsCostlyOperatorsOnTheHost) {
  RandomSpec s;
  s.max_drop = 9;
  s.offload_prob = 1.0;
  for (uint64_t seed = 39000; seed < 39020; ++seed) {
    Problem p = random_problem(seed, s);
    p.drop_budget_ppm = 0;
    const ExactResult ex = solve_exact(p);
    for (size_t v = 0; v < p.size(); ++v) {
      if (p.drop_ppm[v] > 0) {
        EXPECT_EQ(ex.schedule.assignment.mode[v], kHost) << "seed " << seed;
      }
    }
  }
  Problem p = random_problem(39000, s);
  p.drop_budget_ppm = 0;
  Schedule sch = solve_exact(p).schedule;
  for (size_t v = 0; v < p.size(); ++v)
    if (p.drop_ppm[v] > 0) {
      sch.assignment.mode[v] = 0;
      const std::vector<Violation> viol = check(p, simulate_best(p, sch.assignment));
      EXPECT_TRUE(std::any_of(viol.begin(), viol.end(), [](const Violation& x) {
        return x.kind == ViolationKind::AccuracyBudget;
      }));
      break;
    }
}

// 0 -> 1 -> 2 and 0 -> 2; op 0 may go to the accelerator (host 10, acc 1), op 1 takes t1 on the
// host. Edge 0 -> 2 jumps over the cut node 1 and carries a transfer of 5.
Problem jump(double t1, double t01, double t12) {
  return make_problem(3, {{0, 1}, {1, 2}, {0, 2}}, {10, t1, 1}, {{{1, 1.0}}, {}, {}}, {t01, t12, 5},
                      1);
}

TEST(ExactDecomposition, MergesACutUnderABindingEdge) {
  // Free transfers on the path, op 1 short: the jump binds. 0 on acc [0,1], 1 [1,2], 2 waits
  // for 1 + 5 = 6 -> 7 (all host: 12).
  const Problem p = jump(1, 0, 0);
  const ExactResult r = solve_exact(p);
  EXPECT_DOUBLE_EQ(r.makespan, 7.0);
  EXPECT_DOUBLE_EQ(solve_brute_force(p).makespan, 7.0);
  EXPECT_EQ(r.cut_nodes, 3u);
  EXPECT_EQ(r.kept_cuts, 2u);
  EXPECT_EQ(r.jumping_edges, 1u);
  EXPECT_EQ(r.redundant_edges, 0u);
}

TEST(ExactDecomposition, DropsAnEdgeCoveredByTheDetour) {
  // Op 1 takes 10 >= 5: the detour always covers the jump. 0 on acc [0,1], 1 [1,11], 2 [11,12].
  const Problem p = jump(10, 0, 0);
  const ExactResult r = solve_exact(p);
  EXPECT_DOUBLE_EQ(r.makespan, 12.0);
  EXPECT_DOUBLE_EQ(solve_brute_force(p).makespan, 12.0);
  EXPECT_EQ(r.kept_cuts, 3u);
  EXPECT_EQ(r.redundant_edges, 1u);
}

TEST(ExactDecomposition, DetourTransferCountsWhenDevicesDiffer) {
  // Op 1 takes 1 and both detour edges transfer 4: if 0 and 2 sit on different devices, some
  // detour edge crosses too, so the detour takes >= 1 + 4 >= 5: redundant.
  const Problem p = jump(1, 4, 4);
  const ExactResult r = solve_exact(p);
  EXPECT_EQ(r.redundant_edges, 1u);
  EXPECT_EQ(r.kept_cuts, 3u);
  EXPECT_DOUBLE_EQ(r.makespan, solve_brute_force(p).makespan);
}

TEST(ExactSolver, TinyProblems) {
  Problem empty = make_problem(0, {}, {}, {}, {}, 0);
  EXPECT_EQ(solve_exact(empty).makespan, 0.0);
  EXPECT_EQ(solve_milp(empty).objective, 0.0);
  // One operator: the accelerator (2 s, 3 crossbars) only when the budget allows it.
  for (auto [budget, want] : {std::pair<int64_t, double>{2, 5.0}, {3, 2.0}}) {
    const Problem one = make_problem(1, {}, {5}, {{{3, 2.0}}}, {}, budget);
    EXPECT_EQ(solve_exact(one).makespan, want);
    EXPECT_EQ(solve_milp(one).objective, want);
    EXPECT_EQ(solve_brute_force(one).makespan, want);
  }
}

// The host-load bound moves away the host latency of a 0/1 knapsack, not of its fractional
// relaxation (segment_front.cpp: removable_): three independent 10 s operators between a 1 s
// source and a 1 s sink, each offloadable (1 s) on 2 of the 3 crossbars: one can go, the optimum
// is 1 + 20 + 1 = 22 s; the fractional knapsack would move 1.5 of them away (a bound of 17 s). So
// a cutoff just below the optimum is settled by the hard segment's root alone.
TEST(ExactSolver, TheHostLoadBoundIsAnIntegerKnapsack) {
  const std::vector<std::vector<AccMode>> acc = {{}, {{2, 1.0}}, {{2, 1.0}}, {{2, 1.0}}, {}};
  const Problem p = make_problem(5, {{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 4}, {3, 4}},
                                 {1, 10, 10, 10, 1}, acc, {0, 0, 0, 0, 0, 0}, 3);
  const ExactResult full = solve_exact(p);
  ASSERT_EQ(full.status, SolveStatus::Optimal);
  EXPECT_EQ(full.objective, 22.0);
  EXPECT_EQ(solve_brute_force(p).objective, 22.0);
  ExactOptions o;
  o.cutoff = 21.5;
  const ExactResult none = solve_exact(p, o);
  EXPECT_EQ(none.status, SolveStatus::Infeasible);
  EXPECT_EQ(none.bound, 21.5);
  EXPECT_EQ(none.probes, 0);  // the root bound is above the cutoff: nothing to probe
  const auto hard = std::max_element(none.segments.begin(), none.segments.end(),
                                     [](const ExactSegmentStats& a, const ExactSegmentStats& b) {
                                       return a.decisions < b.decisions;
                                     });
  ASSERT_EQ(hard->decisions, 3u);
  EXPECT_EQ(hard->nodes, 1);  // its root; with the fractional knapsack, 80 nodes and 9 probes
}

TEST(ExactSolver, ResNet18ShapeMatchesTheMilp) {
  for (int64_t budget : {0, 5, 20, 60}) {
    const Problem p = testing::resnet18_shape(budget);
    const ExactResult ex = solve_exact(p);
    const MilpResult mi = solve_milp(p);
    ASSERT_EQ(mi.status, SolveStatus::Optimal) << "budget " << budget;
    EXPECT_NEAR(ex.makespan, mi.objective, 1e-9 * ex.makespan) << "budget " << budget;
  }
}

TEST(ExactSolver, YoloLikeProvenOptimalAndReplayable) {
  testing::CostSpec c;
  c.budget = 50;
  const Problem p = testing::to_problem(testing::yolov5n(), c);
  ASSERT_EQ(p.num_offloadable(), 60u);
  const ExactResult r = solve_exact(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.bound, r.makespan);
  EXPECT_TRUE(check(p, r.schedule).empty());
  EXPECT_LE(crossbars_used(p, r.schedule.assignment), 50);
  double cpu_only = 0.0;
  for (double t : p.t_host) cpu_only += t;
  EXPECT_LT(r.makespan, cpu_only);
  // Re-sequencing the optimal assignment cannot do better (or the optimum was not optimal).
  EXPECT_NEAR(simulate_best(p, r.schedule.assignment).makespan, r.makespan, 1e-12);
  size_t big = 0;
  for (const ExactSegmentStats& s : r.segments) big = std::max(big, s.decisions);
  EXPECT_GE(big, 10u);  // the Detect/PANet tail is one segment with many offloadable convs
}

// A limit that strikes before any plan is found leaves the all-host plan, with a valid bound.
TEST(ExactSolver, AnEarlyLimitReturnsTheAllHostPlan) {
  testing::CostSpec c;
  c.budget = 100;
  c.replication_modes = 3;
  const Problem p = testing::to_problem(testing::yolov5n(), c);
  ExactOptions opt;
  opt.node_limit = 1;
  const ExactResult r = solve_exact(p, opt);
  ASSERT_EQ(r.status, SolveStatus::NodeLimit);
  EXPECT_EQ(r.incumbent, ExactResult::kFallbackIncumbent);
  EXPECT_TRUE(check(p, r.schedule).empty());
  double cpu_only = 0.0;
  for (double t : p.t_host) cpu_only += t;
  EXPECT_NEAR(r.makespan, cpu_only, 1e-9 * cpu_only);
  EXPECT_GT(r.bound, 0.0);
  EXPECT_LE(r.bound, r.makespan);
  opt.node_limit = 0;
  opt.time_limit_seconds = 0;
  EXPECT_THROW((void)solve_exact(p, opt), UserError);
}

// A limit that strikes in the hard segment's search keeps the best plan found so far: checked,
// no better than the optimum, far better than all-host here, the same at the same limit, and
// never worse at a larger one (the search path is the same, the incumbent only improves).
TEST(ExactSolver, ALimitInTheSearchReturnsItsBestPlan) {
  testing::CostSpec c;
  c.budget = 50;
  c.replication_modes = 2;
  const Problem p = testing::to_problem(testing::yolov5n(), c);
  const ExactResult full = solve_exact(p);
  ASSERT_EQ(full.status, SolveStatus::Optimal);
  EXPECT_TRUE(full.incumbent.empty());
  // Every node is charged once; the hard segment (the most decisions) is searched last.
  const int64_t work = full.nodes + full.seq_nodes;
  const auto hard = std::max_element(full.segments.begin(), full.segments.end(),
                                     [](const ExactSegmentStats& a, const ExactSegmentStats& b) {
                                       return a.decisions < b.decisions;
                                     });
  const int64_t in_hard = hard->nodes + hard->seq_nodes;
  ASSERT_GT(in_hard, 100);
  double cpu_only = 0.0;
  for (double t : p.t_host) cpu_only += t;
  double previous = cpu_only;
  for (int64_t limit : {work - in_hard / 2, work - 1}) {
    ExactOptions opt;
    opt.node_limit = limit;
    const ExactResult r = solve_exact(p, opt);
    ASSERT_EQ(r.status, SolveStatus::NodeLimit) << limit;
    EXPECT_EQ(r.incumbent, ExactResult::kSearchIncumbent) << limit;
    EXPECT_TRUE(check(p, r.schedule).empty()) << limit;
    EXPECT_LE(crossbars_used(p, r.schedule.assignment), 50) << limit;
    EXPECT_GE(r.makespan, full.makespan * (1 - 1e-12)) << limit;
    EXPECT_LE(r.makespan, previous * (1 + 1e-12)) << limit;
    EXPECT_LT(r.makespan, 0.9 * cpu_only) << limit;
    EXPECT_LE(r.bound, full.makespan * (1 + 1e-12)) << limit;
    EXPECT_EQ(solve_exact(p, opt).makespan, r.makespan) << limit;
    previous = r.makespan;
  }
}

}  // namespace
}  // namespace hetcim::partition
