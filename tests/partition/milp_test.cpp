#include "partition/milp.h"

#include <Cbc_C_Interface.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "model_shapes.h"
#include "partition/brute_force.h"
#include "partition/exact.h"
#include "resnet18_shape.h"
#include "test_problems.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

using testing::make_problem;
using testing::random_problem;
using testing::RandomSpec;

Problem diamond(int64_t budget) {
  return make_problem(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, {2, 4, 3, 1},
                      {{}, {{2, 1.0}}, {{1, 1.0}}, {}}, {1, 1, 1, 1}, budget);
}

TEST(MilpSize, ResNet18ShapeMatchesTableOne) {
  const Problem p = testing::resnet18_shape(100);
  ASSERT_EQ(p.size(), 38u);
  EXPECT_EQ(p.dag.edges.size(), 45u);
  EXPECT_EQ(p.num_offloadable(), 21u);
  const MilpStats s = milp_stats(p);
  EXPECT_EQ(s.parallel_pairs, 6u);
  EXPECT_EQ(s.paper_binaries, 44u);      // Table I
  EXPECT_EQ(s.paper_constraints, 204u);  // Table I
  EXPECT_EQ(s.sinks, 1u);
  EXPECT_EQ(s.rows, 204u);           // one sink: the model has exactly the paper's rows
  EXPECT_EQ(s.binaries, 44u + 45u);  // x, o and the paper's binary z per edge
  EXPECT_EQ(s.continuous, 2u * 38u + 1u);
  MilpOptions relaxed_z;
  relaxed_z.binary_z = false;
  EXPECT_EQ(milp_stats(p, relaxed_z).binaries, 44u);
}

TEST(MilpSize, ZooShapesMatchTableOne) {
  // Table I of seed 000: operators, decision variables (N + |P|), constraints.
  struct Row {
    const char* name;
    testing::Net net;
    size_t ops, binaries, constraints;
  };
  const Row rows[] = {{"ResNet-18", testing::resnet(18), 38, 44, 204},
                      {"ResNet-50", testing::resnet(50), 79, 91, 412},
                      {"MobileNetV2", testing::mobilenetv2(), 71, 71, 331}};
  for (const Row& r : rows) {
    const MilpStats s = milp_stats(testing::to_problem(r.net, testing::CostSpec{}));
    EXPECT_EQ(s.operators, r.ops) << r.name;
    EXPECT_EQ(s.paper_binaries, r.binaries) << r.name;
    EXPECT_EQ(s.paper_constraints, r.constraints) << r.name;
    EXPECT_EQ(s.rows, r.constraints) << r.name;  // one sink each
  }
}

TEST(MilpSize, BigMIsEquationThirteen) {
  // sum_v max(T_host, T_acc) = 2 + 4 + 3 + 1, plus four transfers of 1.
  EXPECT_DOUBLE_EQ(milp_big_m(diamond(2)), 14.0);
  Problem p = diamond(2);
  p.acc[1] = {{1, 9.0}, {3, 0.5}};  // the slowest mode counts: max(4, 9, 0.5)
  EXPECT_DOUBLE_EQ(milp_big_m(p), 19.0);
}

TEST(MilpSize, MultipleSinksAndModesAddDocumentedRows) {
  // 0 -> 1, 0 -> 2: two sinks; op 1 has two modes.
  Problem p = make_problem(3, {{0, 1}, {0, 2}}, {1, 2, 3}, {{}, {{1, 1.0}, {2, 0.5}}, {{1, 1.0}}},
                           {1, 1}, 3);
  const MilpStats s = milp_stats(p);
  EXPECT_EQ(s.sinks, 2u);
  EXPECT_EQ(s.parallel_pairs, 1u);
  EXPECT_EQ(s.multi_mode_operators, 1u);
  // Paper: 3*2 + 2*1 + 3 + (3 - 2) + 2 = 14; model: + 1 extra sink row + 1 mode-link row.
  EXPECT_EQ(s.paper_constraints, 14u);
  EXPECT_EQ(s.rows, 16u);
  EXPECT_EQ(s.paper_binaries, 4u);
  EXPECT_EQ(s.binaries, 4u + 2u + 2u);  // + y for the two modes + z per edge
}

TEST(MilpSolve, DiamondHandComputed) {
  for (auto [budget, want] : {std::pair<int64_t, double>{0, 10.0}, {1, 7.0}, {2, 6.0}}) {
    const MilpResult r = solve_milp(diamond(budget));
    ASSERT_EQ(r.call, CallStatus::Ok) << r.message;
    ASSERT_EQ(r.status, SolveStatus::Optimal);
    EXPECT_NEAR(r.objective, want, 1e-9) << "budget " << budget;
    EXPECT_NEAR(r.bound, want, 1e-6);
    EXPECT_TRUE(check(diamond(budget), r.schedule).empty());
  }
}

void expect_milp_equals_exact(const RandomSpec& spec, uint64_t first_seed, int count,
                              bool with_brute_force) {
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(i);
    const Problem p = random_problem(seed, spec);
    const ExactResult ex = solve_exact(p);
    const MilpResult mi = solve_milp(p);
    ASSERT_EQ(mi.call, CallStatus::Ok) << "seed " << seed << ": " << mi.message;
    ASSERT_EQ(mi.status, SolveStatus::Optimal) << "seed " << seed;
    EXPECT_NEAR(mi.objective, ex.objective, 1e-9 * ex.objective) << "seed " << seed;
    if (with_brute_force) {
      EXPECT_NEAR(solve_brute_force(p).objective, ex.objective, 1e-9 * ex.objective)
          << "seed " << seed;
    }
  }
}

TEST(MilpVsExactVsBruteForce, SingleModeRandomDags) {
  expect_milp_equals_exact(RandomSpec{}, 20000, 25, true);
}

TEST(MilpVsExactVsBruteForce, MultiModeRandomDags) {
  RandomSpec s;
  s.max_modes = 3;
  s.max_ops = 7;
  expect_milp_equals_exact(s, 30000, 15, true);
}

TEST(MilpVsExactVsBruteForce, PerTensorDirectionRandomDags) {
  RandomSpec s;
  s.per_tensor = true;
  expect_milp_equals_exact(s, 40000, 12, true);
}

TEST(MilpVsExactVsBruteForce, SerialBusRandomDags) {
  RandomSpec s;
  s.serial_bus = true;
  s.max_ops = 7;
  expect_milp_equals_exact(s, 50000, 20, true);
}

TEST(MilpVsExactVsBruteForce, SerialBusPerTensorRandomDags) {
  RandomSpec s;
  s.serial_bus = true;
  s.per_tensor = true;
  s.max_ops = 7;
  expect_milp_equals_exact(s, 52000, 15, true);
}

TEST(MilpVsExactVsBruteForce, EnergyWeightedRandomDags) {
  RandomSpec s;
  s.energy_weight = 2;
  s.max_modes = 2;
  expect_milp_equals_exact(s, 54000, 20, true);
}

TEST(MilpVsExactVsBruteForce, EnergyWeightedPerTensorSerialBus) {
  RandomSpec s;
  s.energy_weight = 1;
  s.per_tensor = true;
  s.serial_bus = true;
  s.max_ops = 7;
  expect_milp_equals_exact(s, 56000, 15, true);
}

// The accuracy row (sum of drops of the offloaded operators <= budget) against the exact solver
// with the drop as its second knapsack resource and the brute force.
TEST(MilpVsExactVsBruteForce, AccuracyBudgetRandomDags) {
  RandomSpec s;
  s.max_drop = 9;
  s.max_modes = 2;
  expect_milp_equals_exact(s, 58000, 15, true);
}

TEST(MilpSize, AccuracyBudgetAddsOneRow) {
  RandomSpec s;
  s.max_drop = 9;
  s.offload_prob = 1.0;
  const Problem with = random_problem(58100, s);
  Problem without = with;
  without.drop_ppm.clear();
  EXPECT_EQ(milp_stats(with).rows, milp_stats(without).rows + 1);
}

TEST(MilpSize, SerialBusJobsAndPairs) {
  // Diamond 0 -> {1, 2} -> 3, per edge: 4 bus jobs. Pairs the DAG leaves open: (0,1) and (0,2)
  // share producer 0; (1,3) and (2,3) feed 3; (0,1) vs (2,3): 1 does not reach 2; (0,2) vs
  // (1,3): 2 does not reach 1. (0,1) vs (1,3) and (0,2) vs (2,3) are ordered. 4 pairs.
  Problem p = testing::make_problem(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, {2, 4, 3, 1},
                                    {{}, {{2, 1.0}}, {{1, 1.0}}, {}}, {1, 1, 1, 1}, 3);
  const MilpStats par = milp_stats(p);
  p.bus_model = BusModel::Serial;
  const MilpStats ser = milp_stats(p);
  EXPECT_EQ(ser.bus_jobs, 4u);
  EXPECT_EQ(ser.bus_pairs, 4u);
  EXPECT_EQ(ser.binaries, par.binaries + 4);
  EXPECT_EQ(ser.continuous, par.continuous + 4);
  EXPECT_EQ(ser.rows, par.rows + 4 * 2 + 4 * 2);  // per job 2 rows, per pair 2 rows
  // The paper's counts do not change.
  EXPECT_EQ(ser.paper_binaries, par.paper_binaries);
  EXPECT_EQ(ser.paper_constraints, par.paper_constraints);
}

TEST(MilpExport, MpsAndLpReadBackAndSolveToTheSameOptimum) {
  const Problem p = random_problem(77, RandomSpec{});
  const MilpStats st = milp_stats(p);
  const double optimum = solve_exact(p).makespan;
  const auto dir = std::filesystem::temp_directory_path() / "hetcim_milp_export_test";
  std::filesystem::create_directories(dir);
  for (auto [format, name] :
       {std::pair{MilpFileFormat::Mps, "model.mps"}, std::pair{MilpFileFormat::Lp, "model.lp"}}) {
    const std::string path = (dir / name).string();
    std::filesystem::remove(path);
    std::filesystem::remove(path + ".gz");
    write_milp(p, path, format);
    // Exactly the named file, uncompressed, with its time unit stated at the top.
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_FALSE(std::filesystem::exists(path + ".gz")) << path;
    {
      std::ifstream in(path);
      std::string first, second;
      std::getline(in, first);
      std::getline(in, second);
      char unit[64];
      std::snprintf(unit, sizeof unit, "%.17g s", st.time_unit_seconds);
      EXPECT_NE(second.find("time unit"), std::string::npos) << second;
      EXPECT_NE(second.find(unit), std::string::npos) << second << " vs " << unit;
    }
    Cbc_Model* m = Cbc_newModel();
    Cbc_setLogLevel(m, 0);
    const int rc =
        format == MilpFileFormat::Mps ? Cbc_readMps(m, path.c_str()) : Cbc_readLp(m, path.c_str());
    ASSERT_EQ(rc, 0) << path;
    EXPECT_EQ(static_cast<size_t>(Cbc_getNumRows(m)), st.rows) << path;
    EXPECT_EQ(static_cast<size_t>(Cbc_getNumCols(m)), st.binaries + st.continuous) << path;
    EXPECT_EQ(static_cast<size_t>(Cbc_getNumIntegers(m)), st.binaries) << path;
    Cbc_setParameter(m, "log", "0");
    Cbc_setParameter(m, "slog", "0");
    Cbc_solve(m);
    EXPECT_EQ(Cbc_isProvenOptimal(m), 1) << path;
    EXPECT_NEAR(Cbc_getObjValue(m) * st.time_unit_seconds, optimum, 1e-6 * optimum) << path;
    Cbc_deleteModel(m);
  }
  std::filesystem::remove_all(dir);
}

TEST(MilpSolve, WallClockTimeLimitIsAResult) {
  testing::CostSpec c;
  c.budget = 100;
  const Problem p = testing::to_problem(testing::yolov5n(), c);
  MilpOptions o;
  o.time_limit_seconds = 1.0;
  const MilpResult r = solve_milp(p, o);
  ASSERT_EQ(r.call, CallStatus::Ok) << r.message;
  EXPECT_LT(r.seconds, 1.0 + 2.0);  // elapsed time, not CPU time
  EXPECT_EQ(r.stats.paper_binaries, p.size() + r.stats.parallel_pairs);
  if (r.status == SolveStatus::TimeLimit) {
    EXPECT_TRUE(check(p, r.schedule).empty());
    EXPECT_LE(r.bound, r.objective);
    EXPECT_NEAR(r.gap, (r.objective - r.bound) / r.objective, 1e-12);
  } else if (r.status == SolveStatus::NoSolution) {
    EXPECT_TRUE(r.schedule.start.empty());
  } else {
    // Solved within the second (a fast machine): then it must be the exact solver's optimum,
    // with a valid schedule and a closed gap.
    ASSERT_EQ(r.status, SolveStatus::Optimal);
    EXPECT_TRUE(check(p, r.schedule).empty());
    const ExactResult e = solve_exact(p);
    ASSERT_EQ(e.status, SolveStatus::Optimal);
    EXPECT_NEAR(r.objective, e.makespan, 1e-6 * e.makespan);
    EXPECT_EQ(r.bound, r.objective);
    EXPECT_EQ(r.gap, 0.0);
  }
}

TEST(MilpSolve, ConcurrentCallsAgreeWithTheExactSolver) {
  // CBC's driver is not reentrant; solve_milp serialises it. Two threads must both get the
  // optimum on every instance.
  std::vector<int> wrong(2, 0);
  const auto work = [&](int t) {
    for (uint64_t seed = 60000 + 100 * static_cast<uint64_t>(t);
         seed < 60000 + 100 * static_cast<uint64_t>(t) + 6; ++seed) {
      const Problem p = random_problem(seed, RandomSpec{});
      const MilpResult m = solve_milp(p);
      const ExactResult e = solve_exact(p);
      if (m.status != SolveStatus::Optimal ||
          std::abs(m.objective - e.makespan) > 1e-9 * e.makespan)
        ++wrong[static_cast<size_t>(t)];
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(wrong[0], 0);
  EXPECT_EQ(wrong[1], 0);
}

// Start times as a solver returns them, rounded within its tolerance: chain 0 (host) -> 1 (on the
// accelerator, 1 ps) -> 2 (host), serial bus, transfer 0->1 of 1 ps and 1->2 of 3 s. Exactly:
// op0 [0, 2], t01 [2, 2+1ps], op1 [2+1ps, 2+2ps], t12 [2+2ps, 5+2ps], op2 [5+2ps, 6+2ps]. Read back
// with t01 at 2 + 1e-7 and t12 at 2: sorted by start (the replay before) the bus carries t12
// first, which waits for op1, which waits for t01 behind it: a deadlock. The orders from the
// start times follow the precedences, and the replay keeps the exact makespan.
TEST(MilpReplay, RoundedStartTimesKeepThePrecedences) {
  Problem p =
      make_problem(3, {{0, 1}, {1, 2}}, {2.0, 10.0, 1.0}, {{}, {{1, 1e-12}}, {}}, {1e-12, 3.0}, 1);
  p.bus_model = BusModel::Serial;
  const Assignment a{{kHost, 0, kHost}};
  const std::vector<double> start = {0.0, 2.0, 5.0};
  const std::vector<double> transfer_start = {2.0 + 1e-7, 2.0};  // keys 0 (0->1), 1 (1->2)
  EXPECT_FALSE(try_simulate(p, a, {0, 2}, {1, 0}).has_value());  // the order by start alone
  const JobOrders o = orders_from_start_times(p, a, start, transfer_start);
  EXPECT_EQ(o.host, (std::vector<int>{0, 2}));
  EXPECT_EQ(o.bus, (std::vector<int>{0, 1}));
  const Schedule s = simulate(p, a, o.host, o.bus);
  EXPECT_NEAR(s.makespan, 6.0 + 2e-12, 1e-12);
}

// Host operators 0 (1 ps, feeding operator 2: 10 s on the accelerator) and 1 (3 s), which the
// solver ran 0 then 1; read back with 0 at 2 + 1e-7 and 1 at 2. By start (the replay before) the
// host runs 1 first and operator 2 starts 3 s late: a makespan of 13 s where the solver's is 10 s
// (the replay check then reported an internal error). By midpoint 0 (2 + 1e-7) goes before 1
// (3.5), as the solver had it.
TEST(MilpReplay, RoundedStartTimesKeepTheHostOrder) {
  const Problem p = make_problem(3, {{0, 2}}, {1e-12, 3.0, 20.0}, {{}, {}, {{1, 10.0}}}, {0.0}, 1);
  const Assignment a{{kHost, kHost, 0}};
  EXPECT_NEAR(simulate(p, a, {1, 0}).makespan, 13.0, 1e-9);  // the order by start alone
  const JobOrders o = orders_from_start_times(p, a, {2.0 + 1e-7, 2.0, 2.0 + 1e-7}, {});
  EXPECT_EQ(o.host, (std::vector<int>{0, 1}));
  EXPECT_TRUE(o.bus.empty());
  EXPECT_NEAR(simulate(p, a, o.host).makespan, 10.0, 1e-9);
}

TEST(MilpOptionsTest, RejectsBadOptions) {
  MilpOptions o;
  o.time_limit_seconds = 0;
  EXPECT_THROW((void)solve_milp(diamond(1), o), UserError);
  o = {};
  o.relative_gap = -1;
  EXPECT_THROW((void)solve_milp(diamond(1), o), UserError);
  o = {};
  o.threads = 0;
  EXPECT_THROW((void)solve_milp(diamond(1), o), UserError);
}

}  // namespace
}  // namespace hetcim::partition
