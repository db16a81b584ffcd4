// The solver a K-engine problem's shape calls for (solve_by_shape.h): seed 000's two-device
// problems, written as K-engine problems (multi_convert.h), come back whole (two_device_form) and
// are solved by the two-device exact solver with its plan, checked against the K-engine exact
// solver and the K-engine brute force; every other shape goes to the K-engine solver.
#include "partition/solve_by_shape.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "partition/exact.h"
#include "partition/multi_brute_force.h"
#include "partition/multi_convert.h"
#include "partition/multi_exact.h"
#include "test_problems.h"

namespace hetcim::partition {
namespace {

testing::RandomSpec spec_for(uint64_t seed) {
  testing::RandomSpec spec;
  spec.max_ops = 10;
  spec.max_modes = 1 + static_cast<int>(seed % 3);
  spec.chain = seed % 3 == 0;
  spec.serial_bus = seed % 2 == 0;
  if (seed % 5 == 0) spec.replicas = 3;  // replicated modes as build.cpp makes them
  return spec;
}

// to_multi_problem then two_device_form gives back the problem: the same DAG, host latencies,
// modes (those within the budget, as to_multi_problem keeps them), transfers and bus, bit for bit.
TEST(TwoDeviceForm, RoundTripsSeed000Problems) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Problem p = testing::random_problem(seed, spec_for(seed));
    const MultiProblem m = to_multi_problem(p);
    const std::optional<TwoDeviceForm> f = two_device_form(m);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->host, 0);
    EXPECT_EQ(f->accelerator, 1);
    const Problem& q = f->problem;
    EXPECT_EQ(q.dag.edges, p.dag.edges);
    EXPECT_EQ(q.names, p.names);
    EXPECT_EQ(q.t_host, p.t_host);
    EXPECT_EQ(q.t_transfer, p.t_transfer);
    EXPECT_EQ(q.bus_model, p.bus_model);
    EXPECT_EQ(q.transfer_model, TransferModel::PerEdge);
    EXPECT_EQ(q.crossbar_budget, std::max<int64_t>(p.crossbar_budget, 1));
    for (size_t v = 0; v < p.size(); ++v) {
      std::vector<AccMode> want;
      for (const AccMode& a : p.acc[v])
        if (a.crossbars <= p.crossbar_budget) want.push_back(a);
      ASSERT_EQ(q.acc[v].size(), want.size()) << "operator " << v;
      for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_EQ(q.acc[v][k].crossbars, want[k].crossbars);
        EXPECT_EQ(q.acc[v][k].t_acc, want[k].t_acc);
        const MultiOption& o =
            m.option(static_cast<int>(v), f->option_of(static_cast<int>(v), static_cast<int>(k)));
        EXPECT_EQ(o.engine, 1);
        EXPECT_EQ(o.duration, want[k].t_acc);
      }
      EXPECT_EQ(m.option(static_cast<int>(v), f->option_of(static_cast<int>(v), kHost)).engine, 0);
    }
  }
}

// The dispatched solve returns the two-device solver's plan (the same modes, the same makespan,
// bit for bit), replayed and checked as a K-engine schedule; its optimum equals the K-engine
// exact solver's and, where it is small enough, the K-engine brute force's.
TEST(SolveByShape, TwoDeviceShapeGetsTheTwoDeviceSolversPlan) {
  int brute = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Problem p = testing::random_problem(seed, spec_for(seed));
    const MultiProblem m = to_multi_problem(p);
    const ExactResult two = solve_exact(p);
    ASSERT_EQ(two.status, SolveStatus::Optimal);
    const MultiExactResult r = solve_by_shape(m);
    EXPECT_EQ(r.solver, MultiExactResult::kTwoDeviceSolver);
    ASSERT_EQ(r.status, SolveStatus::Optimal);
    EXPECT_EQ(r.schedule.makespan, two.makespan);
    EXPECT_EQ(r.objective, r.bound);
    // The plan is the two-device solver's on the problem given back (whose modes are p's within
    // the budget, so their indices may differ from p's).
    const std::optional<TwoDeviceForm> f = two_device_form(m);
    ASSERT_TRUE(f.has_value());
    const ExactResult back = solve_exact(f->problem);
    for (size_t v = 0; v < p.size(); ++v) {
      EXPECT_EQ(r.schedule.option[v],
                f->option_of(static_cast<int>(v), back.schedule.assignment.mode[v]))
          << "operator " << v;
      EXPECT_EQ(r.schedule.start[v], back.schedule.start[v]) << "operator " << v;
    }
    EXPECT_TRUE(multi_check(m, r.schedule).empty());
    const MultiExactResult k = solve_multi_exact(m);
    EXPECT_EQ(k.solver, MultiExactResult::kKEngineSolver);
    ASSERT_EQ(k.status, SolveStatus::Optimal);
    EXPECT_NEAR(r.objective, k.objective, 1e-9 * std::max(1.0, k.objective));
    if (p.size() <= 8 && multi_brute_force_work(m) <= 5e4) {
      ++brute;
      const MultiBruteForceResult b = solve_multi_brute_force(m);
      ASSERT_TRUE(b.feasible);
      EXPECT_NEAR(r.objective, b.objective, 1e-9 * std::max(1.0, b.objective));
    }
  }
  EXPECT_GT(brute, 40);  // the brute force saw a good share of the instances
}

// A node limit is passed on: the limited two-device solve's plan and bound come back, checked.
TEST(SolveByShape, LimitsReachTheTwoDeviceSolver) {
  testing::RandomSpec spec;
  spec.min_ops = spec.max_ops = 14;
  spec.max_modes = 3;
  int limited = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const MultiProblem m = to_multi_problem(testing::random_problem(seed, spec));
    MultiExactOptions o;
    o.node_limit = 3;
    const MultiExactResult r = solve_by_shape(m, o);
    EXPECT_EQ(r.solver, MultiExactResult::kTwoDeviceSolver);
    if (r.status == SolveStatus::Optimal) continue;
    ++limited;
    EXPECT_EQ(r.status, SolveStatus::NodeLimit);
    EXPECT_FALSE(r.incumbent.empty());
    EXPECT_LE(r.bound, r.objective);
    EXPECT_TRUE(multi_check(m, r.schedule).empty());
    const MultiExactResult full = solve_by_shape(m);
    ASSERT_EQ(full.status, SolveStatus::Optimal);
    EXPECT_LE(r.bound, full.objective * (1 + 1e-12));
    EXPECT_GE(r.objective, full.objective * (1 - 1e-12));
  }
  EXPECT_GT(limited, 5);
}

// Anything but the two-device shape goes to the K-engine solver: energy in the objective, an
// exclusive group, an accelerator that runs one job at a time, a reprogrammed option, two host
// options of one operator, a third engine.
TEST(SolveByShape, OtherShapesGoToTheKEngineSolver) {
  testing::RandomSpec spec;
  spec.min_ops = spec.max_ops = 6;
  const MultiProblem base = to_multi_problem(testing::random_problem(7, spec));
  ASSERT_TRUE(two_device_form(base).has_value());
  std::vector<std::pair<std::string, MultiProblem>> others;
  MultiProblem x = base;
  x.energy_weight = 0.5;
  others.emplace_back("energy in the objective", x);
  x = base;
  x.exclusive = {{0, 1}};
  others.emplace_back("exclusive group", x);
  x = base;
  x.engines[1].one_at_a_time = true;
  others.emplace_back("one-at-a-time accelerator", x);
  x = base;
  x.options[0].push_back(x.options[0][0]);
  others.emplace_back("two host options", x);
  x = base;
  x.engines.push_back({"dw", true, -1, 0.0, 0.0});
  x.links[0].engines.push_back(2);
  for (auto& opts : x.options) opts.push_back({2, 1.0, 0.0, 0, "dw"});
  others.emplace_back("third engine", x);
  bool reprogrammed = false;
  x = base;
  x.engines[1].one_at_a_time = true;  // a reprogrammed option needs a one-at-a-time engine
  for (auto& opts : x.options)
    for (MultiOption& o : opts)
      if (o.engine == 1 && o.capacity > 0 && !reprogrammed) o.reprogram = reprogrammed = true;
  if (reprogrammed) others.emplace_back("reprogrammed option", x);
  for (const auto& [what, q] : others) {
    SCOPED_TRACE(what);
    q.validate();
    EXPECT_FALSE(two_device_form(q).has_value());
    const MultiExactResult r = solve_by_shape(q);
    EXPECT_EQ(r.solver, MultiExactResult::kKEngineSolver);
    EXPECT_EQ(r.status, SolveStatus::Optimal);
  }
}

}  // namespace
}  // namespace hetcim::partition
