// The options tables (api/options.h): one message format naming the field, text round trips of
// every default, nested tables writing the nested member; sensitivity's and the cluster studies'
// tables.
#include "api/options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/accuracy.h"
#include "api/cluster.h"
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

TEST(Options, AnOptionalSeedIsUnsetOrAny64BitValue) {
  struct Req {
    std::optional<uint64_t> seed;
  } r;
  const api::Field<Req> f = api::field("holdout_seed", &Req::seed, "Seed");
  EXPECT_EQ(api::value_text(f, f.ref(r)), "");  // unset: shown as nothing, passes its check
  EXPECT_NO_THROW(api::check_field(f, f.ref(r)));
  api::set_from_text(f, f.ref(r), "18446744073709551615");  // 2^64 - 1
  EXPECT_EQ(*r.seed, UINT64_MAX);
  EXPECT_EQ(api::value_text(f, f.ref(r)), "18446744073709551615");
  EXPECT_EQ(message_of([&] { api::set_from_text(f, f.ref(r), "-1"); }),
            "holdout_seed: expected a whole number from 0 to 18446744073709551615, got '-1'");
  EXPECT_EQ(*r.seed, UINT64_MAX);  // a refused text leaves the value
  const api::Field<Req> bounded = api::field("s", &Req::seed, "Seed").range(1, 9);
  r.seed = 0;
  EXPECT_EQ(message_of([&] { api::check_field(bounded, bounded.ref(r)); }),
            "s: expected a whole number in [1, 9], got 0");
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
  // hardware's 5 + the platform's 4 (platform, imas, reprogram, objective) + the request's 14
  // (solver, time_limit, node_limit, gap, threads, energy_weight, replay, max_tightening, front,
  // eval_samples, eval_seed; replicas, transfers, bus_model) + the accuracy budget's 13
  // (sensitivity, max_accuracy_drop, verify, evaluate_plans and the 9 of accuracy_check_fields)
  EXPECT_EQ(api::partition_fields().size(), 5 + 4 + 14 + 13u);
}

template <typename R>
bool set_named(const api::FieldTable<R>& table, R& r, const std::string& name,
               const std::string& text);

TEST(Options, TheAccuracyBudgetIsAPercentageAndUnsetByDefault) {
  const auto& table = api::partition_fields();
  const auto it = std::find_if(table.begin(), table.end(),
                               [](const auto& f) { return f.name == "max_accuracy_drop"; });
  ASSERT_NE(it, table.end());
  const auto& f = *it;
  api::PartitionRequest r;
  EXPECT_EQ(api::value_text(f, f.ref(r)), "");  // -1: no budget, no default shown, passes
  EXPECT_NO_THROW(api::check_field(f, f.ref(r)));
  EXPECT_EQ(f.flag(), "--max-accuracy-drop");
  api::set_from_text(f, f.ref(r), "2%");
  EXPECT_DOUBLE_EQ(r.max_accuracy_drop, 0.02);
  EXPECT_EQ(api::value_text(f, f.ref(r)), "2%");
  api::set_from_text(f, f.ref(r), "0.5%");
  EXPECT_DOUBLE_EQ(r.max_accuracy_drop, 0.005);
  // A bare number is ambiguous (2 points or 200 %?): refused, and the value kept.
  EXPECT_EQ(message_of([&] { api::set_from_text(f, f.ref(r), "2"); }),
            "max_accuracy_drop: expected a percentage such as 1% or 0.5%, got '2'");
  EXPECT_DOUBLE_EQ(r.max_accuracy_drop, 0.005);
  EXPECT_EQ(message_of([&] { api::set_from_text(f, f.ref(r), "150%"); }),
            "max_accuracy_drop: expected a percentage in [0%, 100%], got 150%");
  EXPECT_EQ(message_of([&] { api::set_from_text(f, f.ref(r), "x%"); }),
            "max_accuracy_drop: expected a percentage such as 1% or 0.5%, got 'x%'");
  EXPECT_EQ(api::full_help(f, false, ""),
            f.help + ". A percentage such as 1% or 0.5%. Range [0%, 100%]");
  // The budget needs its file: a cross-field check of validate().
  r.max_accuracy_drop = 0.02;
  EXPECT_EQ(message_of([&] { r.validate(); }),
            "max_accuracy_drop: an accuracy budget needs a sensitivity file (hetcim sensitivity)");
}

TEST(Options, TheAccuracyCheckFieldsWriteThePartitionsSetup) {
  const auto& table = api::partition_fields();
  api::PartitionRequest r;
  EXPECT_TRUE(set_named(table, r, "chip", "data/chips.yaml:A3"));
  EXPECT_TRUE(set_named(table, r, "chip_seed", "7"));
  EXPECT_TRUE(set_named(table, r, "cache_dir", "/tmp/c"));
  EXPECT_TRUE(set_named(table, r, "evaluate_plans", "false"));
  EXPECT_EQ(r.accuracy.chip, "data/chips.yaml:A3");
  EXPECT_EQ(r.accuracy.chip_seed, 7u);
  EXPECT_EQ(r.accuracy.cache_dir, "/tmp/c");
  EXPECT_FALSE(r.evaluate_plans);
  // The file's own images are not asked: it records them.
  EXPECT_FALSE(set_named(table, r, "samples", "10"));
  EXPECT_FALSE(set_named(table, r, "input_seed", "3"));
  EXPECT_EQ(message_of([&] { set_named(table, r, "cost", "top5"); }),
            "cost: expected '', top1 or logit, got 'top5'");
  for (const auto& f : table) {
    if (f.name == "cache_dir") {
      EXPECT_EQ(f.flag(), "--cache");
    } else if (f.name == "chip_seed") {
      EXPECT_EQ(f.aliases, std::vector<std::string>{"--seed"});
    } else if (f.name == "evaluate_plans") {
      EXPECT_EQ(f.flag(), "--evaluate");  // --no-evaluate
    }
  }
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
  EXPECT_EQ(r.bus_model.value_or(""), "serial");
  r.hardware.crossbars = 0;
  EXPECT_EQ(message_of([&] { r.validate(); }), "crossbars: expected a whole number >= 1, got 0");
}

// Sets the field `name` of `r` from text through `table`; false when the table has no such field.
template <typename R>
bool set_named(const api::FieldTable<R>& table, R& r, const std::string& name,
               const std::string& text) {
  for (const auto& f : table)
    if (f.name == name) {
      api::set_from_text(f, f.ref(r), text);
      return true;
    }
  return false;
}

// Every default of `table` reads back from its own text, and a default request passes the table.
template <typename R>
void expect_defaults_round_trip(const api::FieldTable<R>& table) {
  R defaults;
  EXPECT_NO_THROW(api::check_fields(defaults, table));
  for (const auto& f : table) {
    const std::string text = api::value_text(f, f.ref(defaults));
    if (text.empty()) continue;  // "" or an unset optional
    R other;
    api::set_from_text(f, f.ref(other), text);
    EXPECT_EQ(api::value_text(f, f.ref(other)), text) << f.name;
  }
}

template <typename R>
std::vector<std::string> names_of(const api::FieldTable<R>& table) {
  std::vector<std::string> out;
  for (const auto& f : table) out.push_back(f.name);
  return out;
}

TEST(Options, SensitivityTableHoldsTheSetupAndTheChecks) {
  const auto& table = api::sensitivity_fields();
  expect_defaults_round_trip(table);
  // The setup's 13 fields, then level, max_pairs, greedy (the operators list aside).
  EXPECT_EQ(names_of(table),
            (std::vector<std::string>{"chip", "dataset", "data_dir", "calibration", "holdout",
                                      "holdout_seed", "samples", "chip_seed", "read_seed",
                                      "input_seed", "weight_seed", "cache_dir", "cost", "level",
                                      "max_pairs", "greedy"}));
  api::SensitivityRequest q;
  EXPECT_EQ(q.setup.dataset, "fashion-mnist");  // the CLI's and Python's default, now the api's
  EXPECT_TRUE(set_named(table, q, "chip_seed", "7"));
  EXPECT_TRUE(set_named(table, q, "holdout_seed", "18446744073709551615"));
  EXPECT_TRUE(set_named(table, q, "cache_dir", "/tmp/c"));
  EXPECT_EQ(q.setup.chip_seed, 7u);  // nested: the setup's member
  EXPECT_EQ(q.setup.holdout_seed, std::optional<uint64_t>(UINT64_MAX));
  EXPECT_EQ(q.setup.cache_dir, "/tmp/c");
  q.setup.chip = "data/chips.yaml:A3";
  q.setup.holdout_seed.reset();
  EXPECT_NO_THROW(q.validate());
  // One format, bounds known from the table; the cross-field checks stay by hand.
  q.max_pairs = -1;
  EXPECT_EQ(message_of([&] { q.validate(); }),
            "max_pairs: expected a whole number in [0, 100000], got -1");
  q.max_pairs = 0;
  q.setup.calibration = "train";
  EXPECT_EQ(message_of([&] { q.validate(); }),
            "calibration: expected '', holdout or test, got 'train'");
  q.setup.calibration = "test";
  q.setup.holdout = 100;
  EXPECT_EQ(message_of([&] { q.validate(); }),
            "holdout: held-out images are for calibration 'holdout', not 'test'");
  q.setup.holdout = 0;
  EXPECT_EQ(message_of([&] { q.validate(); }),
            "holdout: expected a whole number in [1, 1099511627776], got 0");
  q.setup = {};
  EXPECT_EQ(message_of([&] { q.validate(); }),
            "chip: expected FILE:PROFILE (e.g. data/chips.yaml:A3)");
}

TEST(Options, ClusterTablesHoldEachStudysOptions) {
  expect_defaults_round_trip(api::roofline_fields());
  expect_defaults_round_trip(api::bottleneck_fields());
  expect_defaults_round_trip(api::calibrate_fields());
  expect_defaults_round_trip(api::cluster_constants_fields());
  // What each command took before the tables: the roofline sweeps bus widths and executions
  // itself (its lists), the calibration fits the preset or file as given.
  EXPECT_EQ(names_of(api::roofline_fields()),
            (std::vector<std::string>{"preset", "config", "tcdm_contention", "vectors"}));
  EXPECT_EQ(
      names_of(api::bottleneck_fields()),
      (std::vector<std::string>{"preset", "config", "bus_width", "execution", "tcdm_contention",
                                "height", "width", "c_in", "expansion", "c_out", "stride"}));
  EXPECT_EQ(names_of(api::calibrate_fields()),
            (std::vector<std::string>{"preset", "config", "fit", "max_overhead", "rate_points"}));
  EXPECT_EQ(names_of(api::cluster_constants_fields()),
            (std::vector<std::string>{"preset", "config"}));

  api::BottleneckRequest b;
  EXPECT_TRUE(set_named(api::bottleneck_fields(), b, "bus_width", "64"));
  EXPECT_TRUE(set_named(api::bottleneck_fields(), b, "c_in", "32"));
  EXPECT_TRUE(set_named(api::bottleneck_fields(), b, "tcdm_contention", "0.25"));
  EXPECT_EQ(b.cluster.bus_width_bits, std::optional<int64_t>(64));
  EXPECT_EQ(b.shape.c_in, 32);
  EXPECT_EQ(b.cluster.tcdm_contention, std::optional<double>(0.25));
  EXPECT_NO_THROW(b.validate());
  b.shape.stride = 3;
  EXPECT_EQ(message_of([&] { b.validate(); }), "stride: expected a whole number in [1, 2], got 3");
  b.shape.stride = 2;
  b.cluster.bus_width_bits = 12;  // within [8, 2^20]; not a whole number of bytes: by hand
  EXPECT_EQ(message_of([&] { b.validate(); }),
            "bus_width: expected a multiple of 8 bits such as 128, got 12");
  b.cluster.bus_width_bits = 4;
  EXPECT_EQ(message_of([&] { b.validate(); }),
            "bus_width: expected a whole number in [8, 1048576], got 4");
  b.cluster.bus_width_bits.reset();
  b.cluster.execution = "parallel";
  EXPECT_EQ(message_of([&] { b.validate(); }),
            "execution: expected '', sequential or pipelined, got 'parallel'");

  api::CalibrateRequest c;
  EXPECT_TRUE(set_named(api::calibrate_fields(), c, "max_overhead", "20"));
  EXPECT_EQ(c.options.overhead_max, 20);  // nested: the fit's options
  c.options.overhead_min = 30;            // not an option: the hand check names both
  EXPECT_EQ(message_of([&] { c.validate(); }), "max_overhead: 20 is below overhead_min 30");
  c.options.overhead_min = 0;
  c.shape.height = 0;  // the calibration's block, not an option, checked by the shape's table
  EXPECT_EQ(message_of([&] { c.validate(); }),
            "height: expected a whole number in [1, 1048576], got 0");
  c.shape.height = 16;
  c.fit = "fig8";
  EXPECT_EQ(message_of([&] { c.validate(); }), "fit: expected fig9, got 'fig8'");
  api::RooflineRequest r;
  r.cluster.preset = "seed002";
  EXPECT_EQ(message_of([&] { r.validate(); }), "preset: expected pulp-pcm-cluster, got 'seed002'");
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
