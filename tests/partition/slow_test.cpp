// The long differential runs (label `slow`): hundreds of random DAGs through brute force, the
// exact solver and the MILP; larger DAGs and the YOLOv5n-like network where CBC may stop at its
// time limit, checked for consistency (incumbent >= optimum >= bound).
#include <gtest/gtest.h>

#include "model_shapes.h"
#include "partition/brute_force.h"
#include "partition/exact.h"
#include "partition/milp.h"
#include "test_problems.h"

namespace hetcim::partition {
namespace {

using testing::random_problem;
using testing::RandomSpec;

void all_three(const RandomSpec& spec, uint64_t first_seed, int count) {
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(i);
    const Problem p = random_problem(seed, spec);
    const double bf = solve_brute_force(p).makespan;
    const ExactResult ex = solve_exact(p);
    const MilpResult mi = solve_milp(p);
    ASSERT_EQ(mi.call, CallStatus::Ok) << "seed " << seed << ": " << mi.message;
    ASSERT_EQ(mi.status, SolveStatus::Optimal) << "seed " << seed;
    EXPECT_NEAR(ex.makespan, bf, 1e-9 * bf) << "seed " << seed;
    EXPECT_NEAR(mi.objective, bf, 1e-9 * bf) << "seed " << seed;
  }
}

TEST(SlowDifferential, SingleMode) {
  all_three(RandomSpec{}, 100000, 300);
}

TEST(SlowDifferential, ChainsWithSkipEdges) {
  RandomSpec s;
  s.chain = true;
  s.edge_prob = 0.25;
  s.max_ops = 9;
  s.max_transfer = 25;
  all_three(s, 110000, 150);
}

TEST(SlowDifferential, MultiMode) {
  RandomSpec s;
  s.max_modes = 3;
  s.max_ops = 7;
  all_three(s, 120000, 150);
}

TEST(SlowDifferential, PerTensorDirection) {
  RandomSpec s;
  s.per_tensor = true;
  all_three(s, 130000, 150);
}

// Where CBC may not finish: its incumbent can never beat the proven optimum and its bound can
// never exceed it; when it does prove optimality the two agree.
void consistent(const Problem& p, double time_limit, const std::string& what) {
  const ExactResult ex = solve_exact(p);
  ASSERT_EQ(ex.status, SolveStatus::Optimal) << what;
  MilpOptions o;
  o.time_limit_seconds = time_limit;
  const MilpResult mi = solve_milp(p, o);
  ASSERT_EQ(mi.call, CallStatus::Ok) << what << ": " << mi.message;
  const double tol = 1e-6 * ex.makespan;
  EXPECT_LE(mi.bound, ex.makespan + tol) << what;
  if (mi.status == SolveStatus::Optimal || mi.status == SolveStatus::TimeLimit) {
    EXPECT_GE(mi.objective, ex.makespan - tol) << what;
  }
  if (mi.status == SolveStatus::Optimal) {
    EXPECT_NEAR(mi.objective, ex.makespan, tol) << what;
  }
}

TEST(SlowDifferential, LargerRandomDagsAgainstTimeLimitedMilp) {
  RandomSpec s;
  s.min_ops = 10;
  s.max_ops = 16;
  s.edge_prob = 0.25;
  for (uint64_t seed = 140000; seed < 140010; ++seed)
    consistent(random_problem(seed, s), 3.0, "seed " + std::to_string(seed));
}

TEST(SlowDifferential, ZooShapesAgainstTheMilp) {
  for (int64_t budget : {25, 100}) {
    testing::CostSpec c;
    c.budget = budget;
    consistent(testing::to_problem(testing::resnet(50), c), 30.0, "resnet50");
    consistent(testing::to_problem(testing::mobilenetv2(), c), 30.0, "mobilenetv2");
    c.replication_modes = 3;
    consistent(testing::to_problem(testing::resnet(50), c), 30.0, "resnet50 x3 modes");
  }
}

TEST(SlowDifferential, YoloLikeAgainstTimeLimitedMilp) {
  testing::CostSpec c;
  c.budget = 100;
  consistent(testing::to_problem(testing::yolov5n(), c), 20.0, "yolov5n");
}

}  // namespace
}  // namespace hetcim::partition
