// api/file_fields.h: a number of a file read at full width and checked with the bounds of the flag
// of the same meaning (the request's field table), errors naming the file and the field.
#include "api/file_fields.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "api/hardware.h"
#include "api/options.h"

namespace hetcim::api {
namespace {

struct R {
  int threads = 0;
  int64_t batch = 1;
  uint64_t seed = 1;
  double energy = 0;
  bool on = false;
};

const FieldTable<R>& table() {
  static const FieldTable<R> t = {
      field("threads", &R::threads, "").range(0, 1024),
      field("batch", &R::batch, "").range(1, 1 << 20),
      field("seed", &R::seed, ""),
      field("energy", &R::energy, "").with_unit(Quantity::Energy).at_least(0),
      field("on", &R::on, ""),
  };
  return t;
}

template <typename T>
std::string error_of(std::string_view name, const nlohmann::json& v, double scale = 1) {
  try {
    (void)file_field<T>(table(), name, v, "p.json", "x.y", scale);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(FileFields, WithinTheFlagsBounds) {
  EXPECT_EQ(file_field<int>(table(), "threads", 8, "p.json", "eval.threads"), 8);
  EXPECT_EQ(file_field<uint64_t>(table(), "seed", nlohmann::json::parse("18446744073709551615"),
                                 "p.json", "s"),
            std::numeric_limits<uint64_t>::max());
  EXPECT_DOUBLE_EQ(file_field<double>(table(), "energy", 4, "p.json", "e", 1e-6), 4e-6);
  EXPECT_TRUE(file_field<bool>(table(), "on", true, "p.json", "o"));
}

TEST(FileFields, RefusedAsTheFlagRefuses) {
  EXPECT_EQ(error_of<int>("threads", 100000),
            "p.json: field 'x.y': threads: expected a whole number in [0, 1024], got 100000");
  EXPECT_EQ(error_of<int64_t>("batch", 0),
            "p.json: field 'x.y': batch: expected a whole number in [1, 1048576], got 0");
  // 2^32 is not truncated to 0 (nlohmann's get<int>() would).
  EXPECT_EQ(error_of<int>("threads", int64_t{1} << 32),
            "p.json: field 'x.y': threads: expected a whole number in [0, 1024], got 4294967296");
  EXPECT_EQ(error_of<int64_t>("batch", nlohmann::json::parse("18446744073709551615")),
            "p.json: field 'x.y': batch: expected a whole number that fits 64 bits, got "
            "18446744073709551615");
  EXPECT_EQ(error_of<int64_t>("batch", 2.5),
            "p.json: field 'x.y': batch: expected a whole number, got 2.5");
  // -1 is not read as 2^64 - 1.
  EXPECT_EQ(error_of<uint64_t>("seed", -1),
            "p.json: field 'x.y': seed: expected a whole number from 0 to "
            "18446744073709551615, got -1");
  EXPECT_NE(error_of<double>("energy", 1e308, 1e-6).find("is outside the range hetcim accepts"),
            std::string::npos);
  EXPECT_NE(error_of<double>("energy", -1).find("energy: expected an energy >= 0"),
            std::string::npos);
  EXPECT_EQ(error_of<bool>("on", 1), "p.json: field 'x.y': on: expected true or false, got 1");
  EXPECT_EQ(error_of<double>("energy", "4uJ"),
            "p.json: field 'x.y': energy: expected a number, got \"4uJ\"");
}

TEST(FileFields, PlanTimeBoundedAsTheTMvmFlag) {
  // hardware_fields' t_mvm has no range of its own: the unit's 1e6 s bounds it, as for --t-mvm.
  EXPECT_EQ(
      *file_field<std::optional<double>>(hardware_fields(), "t_mvm", 5e-8, "plan.json", "t_mvm_s"),
      5e-8);
  try {
    (void)file_field<std::optional<double>>(hardware_fields(), "t_mvm", 1e300, "plan.json",
                                            "t_mvm_s");
    FAIL() << "1e300 s accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("plan.json: field 't_mvm_s': t_mvm:"), std::string::npos);
  }
}

}  // namespace
}  // namespace hetcim::api
