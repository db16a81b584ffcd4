#include "partition/exact.h"

#include <gtest/gtest.h>

#include "partition/brute_force.h"
#include "test_problems.h"

namespace hetcim::partition {
namespace {

using testing::RandomSpec;
using testing::random_problem;

void expect_equal_optima(const RandomSpec& spec, uint64_t first_seed, int count) {
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(i);
    const Problem p = random_problem(seed, spec);
    const BruteForceResult bf = solve_brute_force(p);
    const ExactResult ex = solve_exact(p);
    ASSERT_EQ(ex.status, SolveStatus::Optimal) << "seed " << seed;
    EXPECT_NEAR(ex.makespan, bf.makespan, 1e-9 * bf.makespan) << "seed " << seed;
    EXPECT_EQ(ex.bound, ex.makespan) << "seed " << seed;
    EXPECT_TRUE(check(p, ex.schedule).empty()) << "seed " << seed;
  }
}

TEST(ExactVsBruteForce, SingleModeRandomDags) { expect_equal_optima(RandomSpec{}, 1000, 300); }

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

TEST(ExactVsBruteForce, SparseDagsWithLargeTransfers) {
  RandomSpec s;
  s.edge_prob = 0.2;
  s.max_transfer = 30;
  s.max_ops = 9;
  expect_equal_optima(s, 13000, 150);
}

}  // namespace
}  // namespace hetcim::partition
