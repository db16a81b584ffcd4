#include "accuracy/cost.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace hetcim::accuracy {
namespace {

// Two images of two classes: digital rows (3, 4) and (0, 5), ||d||^2 = 25 each; the chip's
// squared errors are 1 and 4, so the cost is 2.5 / 25 = 0.1. The per-image errors have sample
// variance 4.5 and standard error sqrt(4.5 / 2) = 1.5; the 97.5 % quantile of Student t with one
// degree of freedom (Cauchy) is tan(0.475 pi) = 12.7062047: hi = (2.5 + 1.5 x 12.7062047) / 25, lo
// clipped at 0.
TEST(LogitCost, HandComputedWithStudentTInterval) {
  const std::vector<float> digital = {3, 4, 0, 5}, chip = {3, 5, 0, 3};
  const CostEstimate c = logit_cost(digital, chip, 2, 0.95);
  EXPECT_NEAR(c.value, 0.1, 1e-12);
  EXPECT_NEAR(c.hi, (2.5 + 1.5 * 12.7062047) / 25, 1e-7);
  EXPECT_EQ(c.lo, 0.0);
  // Identical per-image errors: no spread, the interval is the point.
  const CostEstimate same = logit_cost({3, 4, 0, 5}, {3, 5, 0, 6}, 2, 0.95);
  EXPECT_NEAR(same.value, 1.0 / 25, 1e-12);
  EXPECT_NEAR(same.lo, same.value, 1e-12);
  EXPECT_NEAR(same.hi, same.value, 1e-12);
  EXPECT_THROW((void)logit_cost({1, 2, 3}, {1, 2, 3}, 2, 0.95), UserError);
  EXPECT_THROW((void)logit_cost({1, 2}, {1, 2, 3, 4}, 2, 0.95), UserError);
  EXPECT_THROW((void)logit_cost({1, 2}, {1, 2}, 2, 1.0), UserError);
}

// Points (0.1, 0), (0.2, 0.02), (0.3, 0.01) -> 0.02 (running maximum), (0.4, 0.06) and (0, 0).
TEST(CostToDrop, PiecewiseLinearMonotoneFitAndItsInverse) {
  const CostToDrop f({0.3, 0.1, 0.4, 0.2}, {0.01, 0.0, 0.06, 0.02});
  EXPECT_DOUBLE_EQ(f.drop(0.0), 0.0);
  EXPECT_NEAR(f.drop(0.15), 0.01, 1e-12);
  EXPECT_NEAR(f.drop(0.25), 0.02, 1e-12);
  EXPECT_NEAR(f.drop(0.35), 0.04, 1e-12);
  EXPECT_NEAR(f.drop(1.0), 0.06, 1e-12);  // flat beyond the last point
  EXPECT_NEAR(f.budget(0.0), 0.1, 1e-12);
  EXPECT_NEAR(f.budget(0.01), 0.15, 1e-12);
  EXPECT_NEAR(f.budget(0.02), 0.3, 1e-12);
  EXPECT_NEAR(f.budget(0.04), 0.35, 1e-12);
  EXPECT_NEAR(f.budget(0.5), 0.4, 1e-12);
  EXPECT_THROW(CostToDrop({0.1}, {0.0, 0.1}), UserError);
  EXPECT_THROW(CostToDrop({-0.1}, {0.0}), UserError);
}

TEST(CostKind, NamesRoundTripAndBadNamesNameTheField) {
  EXPECT_EQ(parse_cost_kind(cost_kind_name(CostKind::Logit), "cost"), CostKind::Logit);
  EXPECT_EQ(parse_cost_kind(cost_kind_name(CostKind::Top1), "cost"), CostKind::Top1);
  try {
    (void)parse_cost_kind("margin", "field 'cost.kind'");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'cost.kind'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hetcim::accuracy
