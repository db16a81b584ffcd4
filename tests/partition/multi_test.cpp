// The K-engine solver (multi_exact.h) against a brute force on random small platforms, against
// seed 000's two-device solver on its own instances, and the simulator and checker by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "partition/exact.h"
#include "partition/multi_brute_force.h"
#include "partition/multi_convert.h"
#include "partition/multi_exact.h"
#include "partition/multi_schedule.h"
#include "test_problems.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

// A random platform of 2-4 engines and 2-14 operators: engine 0 runs everything one job at a
// time; the others support an operator with probability 0.6, may run one job at a time, may have
// a capacity; two of them may be mutually exclusive; links join all engines (one shared bus,
// serial or not) or random pairs (some pairs then cannot talk). Integer figures keep the
// objectives exact. Above 8 operators the DAG contains the chain 0 -> 1 -> ... (plus random
// edges jumping over it) and operators have fewer options, to keep the brute force quick.
MultiProblem random_multi(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto coin = [&](double q) { return std::uniform_real_distribution<double>(0, 1)(rng) < q; };
  MultiProblem p;
  const int k = uni(2, 4);
  const size_t n = static_cast<size_t>(uni(2, 14));
  const bool energy = coin(0.3);
  for (int e = 0; e < k; ++e) {
    MultiEngine g;
    g.name = "e" + std::to_string(e);
    g.one_at_a_time = e == 0 || coin(0.6);
    g.capacity = e > 0 && coin(0.6) ? uni(1, 6) : -1;
    if (energy) {
      g.static_power = uni(0, 2);
      g.idle_power = g.one_at_a_time ? uni(0, 2) : 0;
    }
    p.engines.push_back(g);
  }
  if (k >= 3 && coin(0.5)) p.exclusive.push_back({1, 2});
  if (coin(0.5)) {
    std::vector<int> all;
    for (int e = 0; e < k; ++e) all.push_back(e);
    p.links.push_back({"bus", all, static_cast<double>(uni(0, 1)), static_cast<double>(uni(1, 2)),
                       coin(0.5), energy ? 1.0 : 0.0});
  } else {
    for (int a = 0; a < k; ++a)
      for (int b = a + 1; b < k; ++b)
        if (a == 0 || coin(0.6))
          p.links.push_back({"l" + std::to_string(a) + std::to_string(b),
                             {a, b},
                             static_cast<double>(uni(0, 1)),
                             1.0,
                             coin(0.4),
                             energy ? 1.0 : 0.0});
  }
  std::vector<std::pair<int, int>> edges;
  const double edge_prob = n > 8 ? 0.1 : 0.35;
  for (size_t v = 1; v < n; ++v)
    for (size_t u = 0; u < v; ++u)
      if ((u + 1 == v && (n > 8 || coin(0.7))) || coin(edge_prob))
        edges.emplace_back(static_cast<int>(u), static_cast<int>(v));
  p.dag = graph::Dag::from_edges(n, edges);
  const double support = n > 10 ? 0.3 : (n > 7 ? 0.45 : 0.6);
  for (size_t v = 0; v < n; ++v) {
    p.names.push_back("op" + std::to_string(v));
    std::vector<MultiOption> opts;
    opts.push_back(
        {0, static_cast<double>(uni(1, 20)), energy ? static_cast<double>(uni(0, 9)) : 0, 0, "e0"});
    for (int e = 1; e < k; ++e)
      if (coin(support))
        opts.push_back({e, static_cast<double>(uni(0, 14)),
                        energy ? static_cast<double>(uni(0, 9)) : 0,
                        p.engines[static_cast<size_t>(e)].capacity >= 0 ? uni(1, 3) : 0,
                        "e" + std::to_string(e)});
    p.options.push_back(opts);
  }
  for (size_t e = 0; e < p.dag.edges.size(); ++e) p.edge_bytes.push_back(uni(0, 6));
  if (energy) p.energy_weight = 1.0;
  p.validate();
  return p;
}

TEST(MultiExact, EqualsBruteForceOnRandomPlatforms) {
  int instances = 0, with_serial = 0, with_group = 0, large = 0;
  int skipped = 0;
  for (uint64_t seed = 1; instances < 210; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const MultiProblem p = random_multi(seed);
    // Instances whose brute force would try too many machine orders are drawn again.
    MultiBruteForceOptions bo;
    bo.max_work = 1e8;  // an upper bound: orders against the precedence are never tried
    if (multi_brute_force_work(p) > bo.max_work) {
      ++skipped;
      continue;
    }
    const MultiBruteForceResult b = solve_multi_brute_force(p, bo);
    const MultiExactResult x = solve_multi_exact(p);
    ++instances;
    large += p.size() >= 10 ? 1 : 0;
    with_group += p.exclusive.empty() ? 0 : 1;
    for (const MultiLink& l : p.links) with_serial += l.serial ? 1 : 0;
    if (!b.feasible) {
      EXPECT_EQ(x.status, SolveStatus::Infeasible);
      continue;
    }
    ASSERT_EQ(x.status, SolveStatus::Optimal);
    EXPECT_NEAR(x.objective, b.objective, 1e-9 * std::max(1.0, b.objective));
    EXPECT_EQ(x.bound, x.objective);
    EXPECT_TRUE(multi_check(p, x.schedule).empty());
    EXPECT_TRUE(multi_check(p, b.schedule).empty()) << multi_check(p, b.schedule)[0].message;
  }
  EXPECT_GE(instances, 200);
  EXPECT_LT(skipped, instances);
  EXPECT_GT(large, 20);
  EXPECT_GT(with_group, 20);
  EXPECT_GT(with_serial, 20);
}

// Chains with edges over their cut nodes (u -> u+2..u+4), for the redundancy test of edges over a
// cut node (multi_exact.cpp, redundant_edge): 2-3 engines, some operators on engine 0 only (their
// edges never cross), parallel links with small transfers that detours cover, sometimes a serial
// bus or transfer energy in the objective (edges that must stay inside a segment).
MultiProblem random_jumping_chain(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto coin = [&](double q) { return std::uniform_real_distribution<double>(0, 1)(rng) < q; };
  MultiProblem p;
  const int k = uni(2, 3);
  const size_t n = static_cast<size_t>(uni(5, 11));
  const bool energy = coin(0.2);
  for (int e = 0; e < k; ++e)
    p.engines.push_back({"e" + std::to_string(e), e == 0 || coin(0.5),
                         e > 0 && coin(0.5) ? uni(2, 5) : -1,
                         energy ? static_cast<double>(uni(0, 1)) : 0.0, 0.0});
  std::vector<int> all;
  for (int e = 0; e < k; ++e) all.push_back(e);
  p.links.push_back({"bus", all, static_cast<double>(uni(0, 1)), static_cast<double>(uni(1, 2)),
                     coin(0.2), energy && coin(0.5) ? 1.0 : 0.0});
  std::vector<std::pair<int, int>> edges;
  for (size_t v = 1; v < n; ++v) {
    edges.emplace_back(static_cast<int>(v - 1), static_cast<int>(v));
    for (size_t d = 2; d <= 4 && d <= v; ++d)
      if (coin(0.25)) edges.emplace_back(static_cast<int>(v - d), static_cast<int>(v));
  }
  p.dag = graph::Dag::from_edges(n, edges);
  for (size_t v = 0; v < n; ++v) {
    p.names.push_back("op" + std::to_string(v));
    std::vector<MultiOption> opts{
        {0, static_cast<double>(uni(1, 10)), energy ? static_cast<double>(uni(0, 5)) : 0, 0, "e0"}};
    if (!coin(0.35))
      for (int e = 1; e < k; ++e)
        if (coin(0.6))
          opts.push_back({e, static_cast<double>(uni(0, 6)),
                          energy ? static_cast<double>(uni(0, 5)) : 0,
                          p.engines[static_cast<size_t>(e)].capacity >= 0 ? uni(1, 2) : 0,
                          "e" + std::to_string(e)});
    p.options.push_back(opts);
  }
  for (size_t e = 0; e < p.dag.edges.size(); ++e) p.edge_bytes.push_back(uni(0, 4));
  if (energy) p.energy_weight = 1.0;
  p.validate();
  return p;
}

TEST(MultiExact, RedundantEdgesOverCutNodesKeepTheOptimum) {
  int instances = 0, with_redundant = 0, split = 0, kept_jumping = 0;
  for (uint64_t seed = 1; instances < 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const MultiProblem p = random_jumping_chain(seed);
    MultiBruteForceOptions bo;
    bo.max_work = 1e7;
    if (multi_brute_force_work(p) > bo.max_work) continue;
    const MultiBruteForceResult b = solve_multi_brute_force(p, bo);
    const MultiExactResult x = solve_multi_exact(p);
    ++instances;
    with_redundant += x.redundant_edges > 0 ? 1 : 0;
    split += x.redundant_edges > 0 && x.segments > 1 ? 1 : 0;
    kept_jumping += x.jumping_edges > x.redundant_edges ? 1 : 0;
    if (!b.feasible) {
      EXPECT_EQ(x.status, SolveStatus::Infeasible);
      continue;
    }
    ASSERT_EQ(x.status, SolveStatus::Optimal);
    EXPECT_NEAR(x.objective, b.objective, 1e-9 * std::max(1.0, b.objective));
    EXPECT_TRUE(multi_check(p, x.schedule).empty());
  }
  // The argument is exercised: many instances drop edges and still split, some keep edges.
  EXPECT_GT(with_redundant, 100);
  EXPECT_GT(split, 50);
  EXPECT_GT(kept_jumping, 30);
}

// Seed 000's instances (host + one crossbar accelerator, parallel or serial bus): the K-engine
// optimum equals the two-device solver's.
TEST(MultiExact, EqualsTwoDeviceSolverOnSeed000Instances) {
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    testing::RandomSpec spec;
    spec.max_ops = 12;
    spec.max_modes = 2;
    spec.chain = seed % 3 == 0;
    spec.serial_bus = seed % 2 == 0;
    const Problem p = testing::random_problem(seed, spec);
    const ExactResult two = solve_exact(p);
    ASSERT_EQ(two.status, SolveStatus::Optimal);
    const MultiExactResult k = solve_multi_exact(to_multi_problem(p));
    ASSERT_EQ(k.status, SolveStatus::Optimal);
    EXPECT_NEAR(k.objective, two.makespan, 1e-9 * std::max(1.0, two.makespan));
  }
}

// Two engines on a chain a -> b -> c, by hand: cores (one at a time) and a crossbar engine with
// capacity 2 (b needs 2, c needs 1: only one of them fits) and a serial link of 1 B/s.
MultiProblem hand_problem() {
  MultiProblem p;
  p.dag = graph::Dag::from_edges(3, {{0, 1}, {1, 2}});
  p.names = {"a", "b", "c"};
  p.engines = {{"cores", true, -1, 0, 0}, {"xbar", true, 2, 0, 0}};
  p.links = {{"bus", {0, 1}, 0.0, 1.0, true, 0.0}};
  p.edge_bytes = {2.0, 3.0};
  p.options = {{{0, 4, 0, 0, "cores"}},
               {{0, 10, 0, 0, "cores"}, {1, 1, 0, 2, "xbar"}},
               {{0, 10, 0, 0, "cores"}, {1, 1, 0, 1, "xbar"}}};
  return p;
}

TEST(MultiExact, HandInstance) {
  const MultiProblem p = hand_problem();
  // b on the crossbar: 4 + 2 (transfer) + 1 + 3 (transfer back) + 10 = 20; c on the crossbar:
  // 4 + 10 + 3 + 1 = 18; both: over capacity; neither: 24.
  const MultiExactResult r = solve_multi_exact(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_DOUBLE_EQ(r.objective, 18.0);
  EXPECT_EQ(r.schedule.option, (std::vector<int>{0, 0, 1}));
  ASSERT_EQ(r.schedule.transfers.size(), 1u);
  EXPECT_DOUBLE_EQ(r.schedule.transfers[0].start, 14.0);
  EXPECT_DOUBLE_EQ(r.schedule.transfers[0].finish, 17.0);
}

TEST(MultiSchedule, CheckerFindsEveryViolation) {
  const MultiProblem p = hand_problem();
  MultiSchedule s = multi_simulate(p, {0, 0, 1}, {0, 1, 4, 2});
  ASSERT_TRUE(multi_check(p, s).empty());
  MultiSchedule early = s;
  early.start[2] -= 1;
  early.finish[2] -= 1;
  early.makespan -= 1;
  early.objective -= 1;
  ASSERT_FALSE(multi_check(p, early).empty());
  EXPECT_EQ(multi_check(p, early)[0].kind, MultiViolationKind::Precedence);
  MultiSchedule over = s;
  over.option = {0, 1, 1};
  bool capacity = false;
  for (const MultiViolation& v : multi_check(p, over))
    capacity = capacity || v.kind == MultiViolationKind::Capacity;
  EXPECT_TRUE(capacity);
  EXPECT_THROW((void)multi_simulate(p, {0, 1, 1}, {0, 3, 1, 4, 2}), UserError);
  // A job list that puts an operator before its input.
  EXPECT_THROW((void)multi_simulate(p, {0, 0, 1}, {1, 0, 4, 2}), UserError);
}

TEST(MultiExact, ExclusiveEnginesNeverOverlap) {
  // Two independent operators, each only on its own engine; the engines share a port.
  MultiProblem p;
  p.dag = graph::Dag::from_edges(2, {});
  p.names = {"x", "y"};
  p.engines = {{"ima", true, -1, 0, 0}, {"dw", true, -1, 0, 0}};
  p.links = {{"tcdm", {0, 1}, 0.0, 1.0, false, 0.0}};
  p.options = {{{0, 5, 0, 0, "ima"}}, {{1, 7, 0, 0, "dw"}}};
  EXPECT_DOUBLE_EQ(solve_multi_exact(p).objective, 7.0);
  p.exclusive = {{0, 1}};
  EXPECT_DOUBLE_EQ(solve_multi_exact(p).objective, 12.0);
}

TEST(MultiProblem, ValidateNamesTheField) {
  MultiProblem p = hand_problem();
  p.exclusive = {{0, 0}};
  EXPECT_THROW(
      {
        try {
          p.validate();
        } catch (const UserError& e) {
          EXPECT_NE(std::string(e.what()).find("listed twice"), std::string::npos) << e.what();
          throw;
        }
      },
      UserError);
  p = hand_problem();
  p.engines[1].capacity = 0;
  EXPECT_THROW(p.validate(), UserError);
  p = hand_problem();
  p.options[1].clear();
  EXPECT_THROW(p.validate(), UserError);
  p = hand_problem();
  p.links[0].engines = {0, 5};
  EXPECT_THROW(p.validate(), UserError);
}

TEST(MultiExact, TooManyMachinesIsAUserError) {
  // 2 + 125 one-at-a-time engines and the serial link: 128 machines, one more than the
  // sequencer numbers (int8_t).
  MultiProblem p = hand_problem();
  for (int i = 0; i < 125; ++i) p.engines.push_back({"idle" + std::to_string(i)});
  EXPECT_THROW(
      {
        try {
          (void)solve_multi_exact(p);
        } catch (const UserError& e) {
          EXPECT_NE(std::string(e.what()).find("128 machines"), std::string::npos) << e.what();
          throw;
        }
      },
      UserError);
  p.engines.pop_back();  // 127 machines: solved
  EXPECT_DOUBLE_EQ(solve_multi_exact(p).objective, 18.0);
}

}  // namespace
}  // namespace hetcim::partition
