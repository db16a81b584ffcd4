#include "util/numbers.h"

#include <gtest/gtest.h>

namespace hetcim {
namespace {

TEST(Numbers, WholeIntegersOnly) {
  EXPECT_EQ(parse_integer("256"), 256);
  EXPECT_EQ(parse_integer("-3"), -3);
  EXPECT_EQ(parse_integer("9223372036854775807"), INT64_MAX);
  for (const char* bad : {"", "12a", "1.5", " 4", "4 ", "+4", "0x10", "9223372036854775808"})
    EXPECT_FALSE(parse_integer(bad).has_value()) << "'" << bad << "'";
}

TEST(Numbers, FiniteNumbersOnly) {
  EXPECT_EQ(parse_finite("0.8"), 0.8);
  EXPECT_EQ(parse_finite("1e3"), 1000.0);
  EXPECT_EQ(parse_finite("-2.5"), -2.5);
  for (const char* bad : {"", "0.8V", "inf", "nan", "1e999", " 1", "1,5"})
    EXPECT_FALSE(parse_finite(bad).has_value()) << "'" << bad << "'";
}

TEST(Numbers, RowsByColumns) {
  const auto d = parse_dims("256x128");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rows, 256);
  EXPECT_EQ(d->cols, 128);
  for (const char* bad : {"256", "256x", "x256", "256x256abc", "256X256", "25.6x256", "256x256x2"})
    EXPECT_FALSE(parse_dims(bad).has_value()) << "'" << bad << "'";
}

}  // namespace
}  // namespace hetcim
