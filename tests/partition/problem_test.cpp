#include "partition/problem.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "partition/exact.h"
#include "partition/milp.h"
#include "test_problems.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

using testing::make_problem;

Problem chain3() {
  return make_problem(3, {{0, 1}, {1, 2}}, {1, 2, 3}, {{}, {{2, 0.5}}, {}}, {0.1, 0.2}, 4);
}

// Expects validate() to throw a UserError whose message contains every fragment.
void expect_invalid(const Problem& p, std::initializer_list<std::string> fragments) {
  try {
    p.validate();
    FAIL() << "validate() accepted the problem";
  } catch (const UserError& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what() << " lacks " << f;
  }
}

TEST(ProblemValidate, AcceptsAWellFormedProblem) {
  EXPECT_NO_THROW(chain3().validate());
  EXPECT_EQ(chain3().num_offloadable(), 1u);
  EXPECT_DOUBLE_EQ(chain3().duration(1, 0), 0.5);
  EXPECT_DOUBLE_EQ(chain3().duration(1, kHost), 2.0);
  EXPECT_EQ(chain3().crossbars(1, 0), 2);
}

TEST(ProblemValidate, NamesTheOperatorAndField) {
  Problem p = chain3();
  p.t_host[2] = -1;
  expect_invalid(p, {"'op2'", "t_host"});
  p = chain3();
  p.t_host[0] = std::numeric_limits<double>::quiet_NaN();
  expect_invalid(p, {"'op0'", "t_host"});
  p = chain3();
  p.acc[1][0].t_acc = std::numeric_limits<double>::infinity();
  expect_invalid(p, {"'op1'", "mode 0", "t_acc"});
  p = chain3();
  p.acc[1][0].crossbars = -3;
  expect_invalid(p, {"'op1'", "crossbars"});
  p = chain3();
  p.t_transfer[1] = -0.5;
  expect_invalid(p, {"'op1' -> 'op2'", "t_transfer"});
}

TEST(ProblemValidate, RejectsInconsistentSizes) {
  Problem p = chain3();
  p.names.pop_back();
  expect_invalid(p, {"names"});
  p = chain3();
  p.acc.push_back({});
  expect_invalid(p, {"accelerator option lists"});
  p = chain3();
  p.t_transfer.pop_back();
  expect_invalid(p, {"transfer latencies", "per-edge"});
  p = chain3();
  p.transfer_model = TransferModel::PerTensorDirection;  // t_out missing
  expect_invalid(p, {"output transfer latencies"});
  p.t_out = {0.1, -1, 0.1};
  expect_invalid(p, {"'op1'", "t_out"});
  p = chain3();
  p.crossbar_budget = -1;
  expect_invalid(p, {"budget"});
}

TEST(ProblemValidate, SolversValidateAtTheBoundary) {
  Problem p = chain3();
  p.t_host[1] = -2;
  EXPECT_THROW((void)solve_exact(p), UserError);
  EXPECT_THROW((void)solve_milp(p), UserError);
  EXPECT_THROW((void)milp_stats(p), UserError);
}

TEST(ProblemValidate, EdgeTransferFollowsTheModel) {
  Problem p = chain3();
  EXPECT_DOUBLE_EQ(p.edge_transfer(1), 0.2);
  p.transfer_model = TransferModel::PerTensorDirection;
  p.t_out = {0.7, 0.9, 0.0};
  EXPECT_DOUBLE_EQ(p.edge_transfer(0), 0.7);  // edge 0 -> 1 carries op0's output
  EXPECT_DOUBLE_EQ(p.edge_transfer(1), 0.9);
}

}  // namespace
}  // namespace hetcim::partition
