// The options tables (api/options.h): one message format naming the field, text round trips of
// every default, nested tables writing the nested member.
#include "api/options.h"

#include <gtest/gtest.h>

#include "api/partition.h"
#include "user_error_message.h"
#include "util/error.h"

namespace hetcim {
namespace {

using hetcim::testing::message_of;

struct Toy {
  std::string mode = "b";
  int n = 3;
  double level = 0.5;
  std::optional<double> t;
};

const api::FieldTable<Toy>& toy_fields() {
  static const api::FieldTable<Toy> t{
      api::field("mode", &Toy::mode, "Mode").one_of({"a", "b", "c"}),
      api::field("n", &Toy::n, "Count").range(1, 8),
      api::field("level", &Toy::level, "Level").range(0, 1),
      api::field("t", &Toy::t, "Time").with_unit(Quantity::Time).positive(),
  };
  return t;
}

TEST(Options, OneMessageFormatNamingTheField) {
  const auto& f = toy_fields();
  Toy r;
  EXPECT_EQ(message_of([&] { api::set_from_text(f[0], f[0].ref(r), "d"); }),
            "mode: expected a, b or c, got 'd'");
  EXPECT_EQ(message_of([&] { api::set_from_text(f[1], f[1].ref(r), "9"); }),
            "n: expected a whole number in [1, 8], got 9");
  // Beyond int: the field's range still speaks, not a wrapped value.
  EXPECT_EQ(message_of([&] { api::set_from_text(f[1], f[1].ref(r), "99999999999"); }),
            "n: expected a whole number in [1, 8], got 99999999999");
  EXPECT_EQ(message_of([&] { api::set_from_text(f[1], f[1].ref(r), "1.5"); }),
            "n: expected a whole number, got '1.5'");
  EXPECT_EQ(message_of([&] { api::set_from_text(f[2], f[2].ref(r), "1.25"); }),
            "level: expected a number in [0, 1], got 1.25");
  EXPECT_EQ(message_of([&] { api::set_from_text(f[2], f[2].ref(r), "nan"); }),
            "level: expected a finite number, got 'nan'");
  EXPECT_EQ(message_of([&] { api::set_from_text(f[3], f[3].ref(r), "-2us"); }),
            "t: expected a positive time such as 50ns, got -2 us");
  api::set_from_text(f[3], f[3].ref(r), "50ns");
  EXPECT_DOUBLE_EQ(*r.t, 50e-9);
  EXPECT_EQ(api::value_text(f[3], f[3].ref(r)), "50 ns");
  EXPECT_EQ(api::full_help(f[1], false, "3"), "Count. Range [1, 8]. Default 3");
  EXPECT_EQ(f[0].flag(), "--mode");
}

TEST(Options, AnEmptyChoiceIsListedAsQuotesAndAFlagMayBeSpelledApart) {
  struct Req {
    std::string mode;
    std::string layers;
  } r;
  const api::Field<Req> mode =
      api::field("mode", &Req::mode, "Mode ('': the profile's)").one_of({"", "physical"});
  const api::Field<Req> layers =
      api::field("layers", &Req::layers, "Layers").flag("--analog-layers").alias("--nodes");
  EXPECT_NO_THROW(api::check_field(mode, mode.ref(r)));  // "" is one of the choices
  EXPECT_EQ(message_of([&] { api::set_from_text(mode, mode.ref(r), "x"); }),
            "mode: expected '' or physical, got 'x'");
  EXPECT_EQ(api::full_help(mode, true, ""), "Mode ('': the profile's). One of '' or physical");
  EXPECT_EQ(mode.flag(), "--mode");
  EXPECT_EQ(layers.flag(), "--analog-layers");
  EXPECT_EQ(layers.aliases, std::vector<std::string>{"--nodes"});
  EXPECT_EQ(layers.name, "layers");  // the Python keyword and the messages keep the name
}

TEST(Options, EveryPartitionDefaultRoundTripsThroughItsText) {
  api::PartitionRequest defaults;
  const auto& table = api::partition_fields();
  EXPECT_NO_THROW(api::check_fields(defaults, table));
  for (const auto& f : table) {
    const std::string text = api::value_text(f, f.ref(defaults));
    if (text.empty()) continue;  // an unset optional: the hardware's own value
    api::PartitionRequest other;
    other.time_limit = 1;
    other.solver = "milp";
    other.gap = 0.5;
    other.threads = 4;
    other.hardware.preset = "seed000-x86";
    api::set_from_text(f, f.ref(other), text);  // "600 s" reads back as 600 s
    EXPECT_EQ(api::value_text(f, f.ref(other)), text) << f.name;
  }
  // hardware's 5 + the request's 14 (solver, time_limit, node_limit, gap, threads, energy_weight,
  // replay, max_tightening, front, eval_samples, eval_seed; replicas, transfers, bus_model)
  EXPECT_EQ(api::partition_fields().size(), 5 + 14u);
}

TEST(Options, NestedFieldsWriteTheNestedMember) {
  api::PartitionRequest r;
  for (const auto& f : api::partition_fields()) {
    if (f.name == "crossbars") api::set_from_text(f, f.ref(r), "42");
    if (f.name == "t_mvm") api::set_from_text(f, f.ref(r), "1us");
    if (f.name == "bus_model") api::set_from_text(f, f.ref(r), "serial");
  }
  EXPECT_EQ(r.hardware.crossbars, 42);
  EXPECT_DOUBLE_EQ(*r.hardware.t_mvm, 1e-6);
  EXPECT_EQ(r.bus_model, "serial");
  r.hardware.crossbars = 0;
  EXPECT_EQ(message_of([&] { r.validate(); }), "crossbars: expected a whole number >= 1, got 0");
}

// An optional seed or choice: unset passes and shows no default; set, it is read and checked as
// the plain field would be (values known by hand).
TEST(Options, OptionalSeedsAndChoicesAreUnsetUntilGiven) {
  struct Opt {
    std::optional<uint64_t> seed;
    std::optional<std::string> how;
    double e = 4e-6;
  };
  const api::FieldTable<Opt> f{
      api::field("seed", &Opt::seed, "Seed"),
      api::field("how", &Opt::how, "How").one_of({"holdout", "test"}),
      api::field("e", &Opt::e, "Energy").with_unit(Quantity::Energy).at_least(0),
  };
  Opt r;
  EXPECT_NO_THROW(api::check_fields(r, f));  // unset: nothing to check
  EXPECT_EQ(api::value_text(f[0], f[0].ref(r)), "");
  EXPECT_EQ(api::value_text(f[1], f[1].ref(r)), "");
  api::set_from_text(f[0], f[0].ref(r), "18446744073709551615");
  EXPECT_EQ(r.seed, uint64_t{18446744073709551615U});
  EXPECT_EQ(message_of([&] { api::set_from_text(f[0], f[0].ref(r), "-1"); }),
            "seed: expected a whole number from 0 to 18446744073709551615, got '-1'");
  api::set_from_text(f[1], f[1].ref(r), "test");
  EXPECT_EQ(r.how, "test");
  EXPECT_EQ(message_of([&] { api::set_from_text(f[1], f[1].ref(r), "train"); }),
            "how: expected holdout or test, got 'train'");
  // "an energy", in the message and in the help.
  EXPECT_EQ(message_of([&] { api::set_from_text(f[2], f[2].ref(r), "-1uJ"); }),
            "e: expected an energy >= 0 J, got -1 uJ");
  EXPECT_EQ(api::full_help(f[2], false, "4uJ"),
            "Energy. An energy such as 0.7uJ. Range >= 0 J. Default 4uJ");
}

}  // namespace
}  // namespace hetcim
