// The K-engine MILP on CBC (multi_milp.h) against the K-engine exact solver and the brute force on
// random small platforms, against seed 000's two-device solvers on the converted instances, and on
// a hand instance.
#include "partition/multi_milp.h"

#include <Cbc_C_Interface.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "partition/exact.h"
#include "partition/milp.h"
#include "partition/multi_brute_force.h"
#include "partition/multi_convert.h"
#include "partition/multi_exact.h"
#include "partition/multi_schedule.h"
#include "test_problems.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

// A random platform of 2-4 engines and 2-10 operators (the generator of multi_test.cpp, smaller):
// engine 0 runs everything one job at a time; the others support an operator with probability
// 0.55, may run one job at a time, may have a capacity; engines 1 and 2 may be mutually exclusive;
// one shared bus (serial or not) or random pairwise links (some engines then cannot talk).
// Integer figures keep the objectives exact.
MultiProblem random_platform(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto coin = [&](double q) { return std::uniform_real_distribution<double>(0, 1)(rng) < q; };
  MultiProblem p;
  const int k = uni(2, 4);
  const size_t n = static_cast<size_t>(uni(2, 10));
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
  for (size_t v = 1; v < n; ++v)
    for (size_t u = 0; u < v; ++u)
      if ((u + 1 == v && coin(0.7)) || coin(n > 7 ? 0.15 : 0.3))
        edges.emplace_back(static_cast<int>(u), static_cast<int>(v));
  p.dag = graph::Dag::from_edges(n, edges);
  for (size_t v = 0; v < n; ++v) {
    p.names.push_back("op" + std::to_string(v));
    std::vector<MultiOption> opts;
    opts.push_back(
        {0, static_cast<double>(uni(1, 20)), energy ? static_cast<double>(uni(0, 9)) : 0, 0, "e0"});
    for (int e = 1; e < k; ++e)
      if (coin(0.55))
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

TEST(MultiMilp, EqualsExactAndBruteForceOnRandomPlatforms) {
  int instances = 0, infeasible = 0, with_serial = 0, with_group = 0, with_energy = 0;
  for (uint64_t seed = 1; instances < 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const MultiProblem p = random_platform(seed);
    MultiBruteForceOptions bo;
    bo.max_work = 2e6;
    if (multi_brute_force_work(p) > bo.max_work) continue;  // drawn again
    ++instances;
    with_group += p.exclusive.empty() ? 0 : 1;
    with_energy += p.energy_weight > 0 ? 1 : 0;
    for (const MultiLink& l : p.links) with_serial += l.serial ? 1 : 0;
    const MultiBruteForceResult b = solve_multi_brute_force(p, bo);
    const MultiExactResult x = solve_multi_exact(p);
    MultiMilpOptions mo;
    mo.time_limit_seconds = 30;
    const MultiMilpResult m = solve_multi_milp(p, mo);
    ASSERT_EQ(m.call, CallStatus::Ok) << m.message;
    if (!b.feasible) {
      ++infeasible;
      EXPECT_EQ(x.status, SolveStatus::Infeasible);
      EXPECT_EQ(m.status, SolveStatus::Infeasible);
      continue;
    }
    ASSERT_EQ(x.status, SolveStatus::Optimal);
    ASSERT_EQ(m.status, SolveStatus::Optimal);
    const double tol = 1e-6 * std::max(1.0, b.objective);
    EXPECT_NEAR(x.objective, b.objective, tol);
    EXPECT_NEAR(m.objective, b.objective, tol);
    EXPECT_NEAR(m.solver_objective, b.objective, tol);
    EXPECT_EQ(m.gap, 0.0);
    EXPECT_TRUE(multi_check(p, m.schedule).empty());
  }
  EXPECT_GT(with_serial, 10);
  EXPECT_GT(with_group, 10);
  EXPECT_GT(with_energy, 10);
  EXPECT_LT(infeasible, instances / 2);
}

// Seed 000's instances converted (host + crossbar accelerator, parallel or serial bus): the
// K-engine MILP's optimum equals seed 000's exact solver and seed 000's MILP.
TEST(MultiMilp, EqualsTwoDeviceSolversOnSeed000Instances) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    testing::RandomSpec spec;
    spec.max_ops = 9;
    spec.max_modes = 2;
    spec.chain = seed % 3 == 0;
    spec.serial_bus = seed % 2 == 0;
    const Problem p = testing::random_problem(seed, spec);
    const ExactResult two = solve_exact(p);
    ASSERT_EQ(two.status, SolveStatus::Optimal);
    const MilpResult paper = solve_milp(p);
    ASSERT_EQ(paper.status, SolveStatus::Optimal);
    const MultiMilpResult k = solve_multi_milp(to_multi_problem(p));
    ASSERT_EQ(k.status, SolveStatus::Optimal);
    const double tol = 1e-6 * std::max(1.0, two.makespan);
    EXPECT_NEAR(k.objective, two.makespan, tol);
    EXPECT_NEAR(paper.objective, two.makespan, tol);
  }
}

// By hand: a -> b -> c; cores (one at a time) and a crossbar engine of capacity 2 (b needs 2, c
// needs 1) over a serial link of 1 B/s. b on the crossbar: 4 + 2 + 1 + 3 + 10 = 20; c on it:
// 4 + 10 + 3 + 1 = 18; both: over capacity; neither: 24. With capacity 3 both fit: 4 + 2 + 1 + 1
// = 8.
TEST(MultiMilp, HandInstance) {
  MultiProblem p;
  p.dag = graph::Dag::from_edges(3, {{0, 1}, {1, 2}});
  p.names = {"a", "b", "c"};
  p.engines = {{"cores", true, -1, 0, 0}, {"xbar", true, 2, 0, 0}};
  p.links = {{"bus", {0, 1}, 0.0, 1.0, true, 0.0}};
  p.edge_bytes = {2.0, 3.0};
  p.options = {{{0, 4, 0, 0, "cores"}},
               {{0, 10, 0, 0, "cores"}, {1, 1, 0, 2, "xbar"}},
               {{0, 10, 0, 0, "cores"}, {1, 1, 0, 1, "xbar"}}};
  MultiMilpResult r = solve_multi_milp(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_NEAR(r.objective, 18.0, 1e-9);
  EXPECT_EQ(r.schedule.option, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(r.stats.transfer_jobs, 2u);  // a->b and b->c may each cross the bus
  p.engines[1].capacity = 3;
  r = solve_multi_milp(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_NEAR(r.objective, 8.0, 1e-9);
  // Two independent operators on two exclusive engines run one after the other: 5 + 7.
  MultiProblem q;
  q.dag = graph::Dag::from_edges(2, {});
  q.names = {"x", "y"};
  q.engines = {{"ima", true, -1, 0, 0}, {"dw", true, -1, 0, 0}};
  q.links = {{"tcdm", {0, 1}, 0.0, 1.0, false, 0.0}};
  q.options = {{{0, 5, 0, 0, "ima"}}, {{1, 7, 0, 0, "dw"}}};
  EXPECT_NEAR(solve_multi_milp(q).objective, 7.0, 1e-9);
  q.exclusive = {{0, 1}};
  const MultiMilpResult g = solve_multi_milp(q);
  EXPECT_NEAR(g.objective, 12.0, 1e-9);
  EXPECT_EQ(g.stats.machine_pairs, 1u);
}

// The model written as MPS and LP (multi_milp_file_text), read back and solved by CBC's own
// reader and driver, reaches the brute force's optimum on random small platforms (objective value
// times the time unit the header states), and is infeasible where the brute force finds no
// mapping.
TEST(MultiMilpExport, MpsAndLpSolvedByCbcGiveTheBruteForceOptimum) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("hetcim_multi_milp_export_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  int instances = 0, infeasible = 0;
  for (uint64_t seed = 101; instances < 16; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const MultiProblem p = random_platform(seed);
    MultiBruteForceOptions bo;
    bo.max_work = 2e6;
    if (multi_brute_force_work(p) > bo.max_work) continue;
    ++instances;
    const MultiBruteForceResult b = solve_multi_brute_force(p, bo);
    infeasible += b.feasible ? 0 : 1;
    for (auto [format, name] :
         {std::pair{MilpFileFormat::Mps, "m.mps"}, std::pair{MilpFileFormat::Lp, "m.lp"}}) {
      const std::string text = multi_milp_file_text(p, format);
      const std::string path = (dir / name).string();
      std::ofstream(path, std::ios::binary) << text;
      // The header's second line states the time unit: "... in units of <unit> s".
      const size_t at = text.find("in units of ");
      ASSERT_NE(at, std::string::npos) << text.substr(0, 300);
      const double unit = std::strtod(text.c_str() + at + 12, nullptr);
      ASSERT_GT(unit, 0.0);
      Cbc_Model* m = Cbc_newModel();
      Cbc_setLogLevel(m, 0);
      const int rc = format == MilpFileFormat::Mps ? Cbc_readMps(m, path.c_str())
                                                   : Cbc_readLp(m, path.c_str());
      ASSERT_EQ(rc, 0) << name;
      Cbc_setParameter(m, "log", "0");
      Cbc_setParameter(m, "slog", "0");
      Cbc_solve(m);
      if (!b.feasible) {
        EXPECT_EQ(Cbc_isProvenInfeasible(m), 1) << name;
      } else {
        EXPECT_EQ(Cbc_isProvenOptimal(m), 1) << name;
        EXPECT_NEAR(Cbc_getObjValue(m) * unit, b.objective, 1e-6 * std::max(1.0, b.objective))
            << name;
      }
      Cbc_deleteModel(m);
    }
  }
  EXPECT_LT(infeasible, instances / 2);
  std::filesystem::remove_all(dir);
}

TEST(MultiMilpExport, NamesWithWhiteSpaceAreRefused) {
  MultiProblem q;
  q.dag = graph::Dag::from_edges(1, {});
  q.names = {"x"};
  q.engines = {{"my cores", true, 4, 0, 0}};
  q.options = {{{0, 5, 0, 1, "cores"}}};
  try {
    (void)multi_milp_file_text(q, MilpFileFormat::Mps);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'cap_my cores'"), std::string::npos) << e.what();
  }
}

TEST(MultiMilp, RefusesBadOptions) {
  MultiProblem q;
  q.dag = graph::Dag::from_edges(1, {});
  q.names = {"x"};
  q.engines = {{"cores", true, -1, 0, 0}};
  q.options = {{{0, 5, 0, 0, "cores"}}};
  MultiMilpOptions o;
  o.time_limit_seconds = 0;
  EXPECT_THROW((void)solve_multi_milp(q, o), UserError);
  o = {};
  o.threads = 0;
  EXPECT_THROW((void)solve_multi_milp(q, o), UserError);
}

}  // namespace
}  // namespace hetcim::partition
