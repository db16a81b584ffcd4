// Overflow-safe sizes and bounded quantities.
#include "util/limits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "util/error.h"
#include "util/units.h"

namespace hetcim {
namespace {

TEST(Limits, CheckedArithmeticSeesOverflow) {
  EXPECT_EQ(checked_mul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_FALSE(checked_mul(int64_t{1} << 32, int64_t{1} << 31));
  EXPECT_FALSE(checked_add(INT64_MAX, 1));
  EXPECT_EQ(checked_add(40, 2), 42);
}

TEST(Limits, ElementCountsWrappingPast64BitsAreCaught) {
  // 0xFFFFFFFF^4 wraps to a small number in 64-bit arithmetic; the check must still refuse it.
  const std::vector<int64_t> idx = {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF};
  EXPECT_THROW((void)checked_elements(idx, kMaxDataFileBytes, "idx"), UserError);
  const std::vector<int64_t> ok = {60000, 28, 28};
  EXPECT_EQ(checked_elements(ok, kMaxDataFileBytes, "idx"), 47040000);
  const std::vector<int64_t> empty = {0, int64_t{1} << 62, int64_t{1} << 62};
  EXPECT_EQ(checked_elements(empty, kMaxTensorElements, "t"), 0);
  try {
    (void)checked_elements(std::vector<int64_t>{int64_t{1} << 40, 3}, kMaxTensorElements, "x");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("x: 1099511627776x3 has more than 1073741824"),
              std::string::npos)
        << e.what();
  }
}

TEST(Limits, QuantitiesBeyondTheirRangeAreRejectedAndNegativeFlagsNamed) {
  EXPECT_DOUBLE_EQ(parse_quantity("1Ms", Quantity::Time, "t"), 1e6);
  EXPECT_THROW((void)parse_quantity("1e9s", Quantity::Time, "t"), UserError);
  EXPECT_THROW((void)parse_quantity("1e300GB/s", Quantity::Bandwidth, "b"), UserError);
  EXPECT_THROW((void)parse_quantity("-1e7s", Quantity::Time, "t"), UserError);
  try {
    (void)parse_positive_quantity("-50ns", Quantity::Time, "--t-mvm");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--t-mvm: expected a positive time"), std::string::npos);
  }
}

}  // namespace
}  // namespace hetcim
