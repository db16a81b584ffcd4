#include "util/units.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace hetcim {
namespace {

TEST(Units, ParsesPrefixedSi) {
  EXPECT_DOUBLE_EQ(parse_quantity("50ns", Quantity::Time, "t"), 50e-9);
  EXPECT_DOUBLE_EQ(parse_quantity(" 1.5 ms ", Quantity::Time, "t"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_quantity("20.48GB/s", Quantity::Bandwidth, "b"), 20.48e9);
  EXPECT_DOUBLE_EQ(parse_quantity("8Gbit/s", Quantity::Bandwidth, "b"), 1e9);
  EXPECT_DOUBLE_EQ(parse_quantity("0.7uJ", Quantity::Energy, "e"), 0.7e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("133uS", Quantity::Conductance, "g"), 133e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("4MiB", Quantity::Bytes, "m"), 4.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_quantity("512kB", Quantity::Bytes, "m"), 512e3);
  EXPECT_DOUBLE_EQ(parse_quantity("250MHz", Quantity::Frequency, "f"), 250e6);
}

TEST(Units, RejectsUnitlessAndWrongDimension) {
  try {
    (void)parse_quantity("50", Quantity::Time, "cim.t_mvm");
    FAIL() << "unitless value accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cim.t_mvm"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("unit is required"), std::string::npos);
  }
  EXPECT_THROW((void)parse_quantity("50nJ", Quantity::Time, "t"), UserError);
  EXPECT_THROW((void)parse_quantity("fast", Quantity::Time, "t"), UserError);
  EXPECT_THROW((void)parse_quantity("1e999s", Quantity::Time, "t"), UserError);
  try {  // a number beyond a double is not "no number"
    (void)parse_quantity("1e400ns", Quantity::Time, "cim.t_mvm");
    ADD_FAILURE() << "1e400ns accepted";
  } catch (const UserError& e) {
    EXPECT_NE(
        std::string(e.what()).find("cim.t_mvm: cannot read '1e400ns' as a time (its number is "
                                   "beyond the range of a double"),
        std::string::npos)
        << e.what();
  }
}

TEST(Units, FormatsWithEngineeringPrefix) {
  EXPECT_EQ(format_quantity(50e-9, Quantity::Time), "50 ns");
  EXPECT_EQ(format_quantity(20.48e9, Quantity::Bandwidth), "20.48 GB/s");
  EXPECT_EQ(format_quantity(0.0, Quantity::Time), "0 s");
}

}  // namespace
}  // namespace hetcim
