#include "accuracy/sensitivity.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "accuracy/chip_eval.h"
#include "accuracy/sensitivity_file.h"
#include "api/accuracy.h"
#include "api/partition.h"
#include "util/error.h"
#include "xbar/chips_yaml.h"

namespace hetcim::accuracy {
namespace {

namespace fs = std::filesystem;

const std::string kChips = std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml";

struct Fixture {
  api::Model model = api::load_model("race_cnn_mnist");
  graph::Graph prepared = prepare_model(model.graph, 1);
  CalibrationSet set = synthetic_set(prepared, 24, 3);
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() /
                     ("hetcim-accuracy-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// The synthetic labels are the digital model's own top-1, so the digital accuracy is exactly 1.
TEST(CalibrationSet, SyntheticLabelsAreTheDigitalTopOne) {
  const Fixture& f = fixture();
  const std::vector<int64_t> top =
      top1(evaluate_on_chip(f.prepared, f.set, ChipRun{}, {}), f.set.classes);
  EXPECT_EQ(top, f.set.labels);
  EXPECT_EQ(f.set.count, 24);
  EXPECT_EQ(f.set.sample_size, 28 * 28);
}

TEST(EvaluateOnChip, SeededAndReproducible) {
  const Fixture& f = fixture();
  const ChipRun a{xbar::load_chip_profile(kChips + ":A3"), 1, 1};
  ChipRun b = a;
  b.read_seed = 2;
  const std::vector<float> x = evaluate_on_chip(f.prepared, f.set, a, {"features.3"});
  EXPECT_EQ(x, evaluate_on_chip(f.prepared, f.set, a, {"features.3"}));
  EXPECT_NE(x, evaluate_on_chip(f.prepared, f.set, b, {"features.3"}));
}

// A chip without noise, with 16-bit devices and ideal converters computes what the digital
// reference computes, up to the 16-bit weight levels.
TEST(EvaluateOnChip, NoiselessChipMatchesTheDigitalRun) {
  const Fixture& f = fixture();
  ChipRun ideal;
  ideal.profile.name = "ideal";
  ideal.profile.device_bits = 16;
  ideal.profile.dac_bits = 0;
  ideal.profile.adc_bits = 0;
  const std::vector<float> digital = evaluate_on_chip(f.prepared, f.set, ChipRun{}, {});
  const std::vector<std::string> all = chip_capable_nodes(f.prepared);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_LT(relative_error(digital, evaluate_on_chip(f.prepared, f.set, ideal, all)), 1e-3);
}

TEST(Sensitivity, CountsChecksAndCache) {
  const Fixture& f = fixture();
  const fs::path dir = scratch("cache");
  SensitivityOptions o;
  o.chip = {xbar::load_chip_profile(kChips + ":A5"), 1, 1};
  o.max_pairs = 3;
  o.cache_dir = dir.string();
  o.model_hash = model_hash(f.prepared);
  const std::vector<std::string> ops = chip_capable_nodes(f.prepared);
  const Sensitivity s = measure_sensitivity(f.prepared, f.set, ops, o);
  EXPECT_EQ(s.digital_accuracy, 1.0);
  ASSERT_EQ(s.operators.size(), 5u);
  for (const OperatorSensitivity& op : s.operators) {
    EXPECT_EQ(op.drop.n, 24);
    EXPECT_EQ(op.drop.c, 0);  // digital is always right on its own labels
    EXPECT_DOUBLE_EQ(op.drop.drop(), op.drop.b / 24.0);
    EXPECT_GT(op.output_error, 0.0);
  }
  ASSERT_EQ(s.greedy.size(), 4u);
  EXPECT_EQ(s.greedy.back().operators.size(), 5u);
  double sum = 0.0;
  for (const OperatorSensitivity& op : s.operators) sum += op.drop.drop();
  EXPECT_NEAR(s.greedy.back().predicted, sum, 1e-12);
  EXPECT_EQ(s.pairs.size(), 3u);
  EXPECT_EQ(s.runs, 1u + 5 + 4 + 3);
  EXPECT_LT(s.cached_runs, s.runs);  // a pair may repeat a greedy set: that one is cached
  const Sensitivity again = measure_sensitivity(f.prepared, f.set, ops, o);
  EXPECT_EQ(again.cached_runs, again.runs);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(again.operators[i].drop.b, s.operators[i].drop.b);
    EXPECT_EQ(again.operators[i].output_error, s.operators[i].output_error);
  }
  fs::remove_all(dir);
}

api::SensitivityResult measure_api(const std::string& chip) {
  api::SensitivityRequest q;
  q.setup.chip = kChips + ":" + chip;
  q.setup.dataset = "synthetic";
  q.setup.samples = 24;
  q.setup.input_seed = 3;
  q.max_pairs = 0;
  return api::sensitivity(fixture().model, q);
}

TEST(SensitivityFile, RoundTripAndIdentityErrorsNameFileAndField) {
  const fs::path dir = scratch("file");
  const std::string path = (dir / "sens.json").string();
  const api::SensitivityResult r = measure_api("A3");
  std::ofstream(path) << api::sensitivity_file_json(r, r.provenance).dump(1);
  const SensitivityFile f = read_sensitivity_file(path);
  EXPECT_EQ(f.id.model_hash, r.identity.model_hash);
  EXPECT_EQ(f.id.profile, "A3");
  EXPECT_EQ(f.id.dataset, "synthetic");
  EXPECT_EQ(f.id.samples, 24);
  ASSERT_EQ(f.operators.size(), 5u);
  EXPECT_DOUBLE_EQ(f.operators.at("features.3").drop, r.sensitivity.operators[1].drop.drop());
  SensitivityIdentity want = r.identity;
  EXPECT_NO_THROW(check_identity(f, want));
  want.profile_hash = profile_hash(xbar::load_chip_profile(kChips + ":A2"));
  std::string e = error_of([&] { check_identity(f, want); });
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("'chip.hash'"), std::string::npos) << e;
  want = r.identity;
  want.dataset = "fashion-mnist";
  e = error_of([&] { check_identity(f, want); });
  EXPECT_NE(e.find("'dataset.name'"), std::string::npos) << e;
  want = r.identity;
  want.model_hash = model_hash(prepare_model(fixture().model.graph, 2));  // other weights
  e = error_of([&] { check_identity(f, want); });
  EXPECT_NE(e.find("'model.hash'"), std::string::npos) << e;
  // A damaged file names the field.
  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  j["operators"][0].erase("drop");
  std::ofstream(path) << j.dump();
  e = error_of([&] { (void)read_sensitivity_file(path); });
  EXPECT_NE(e.find("'operators[0].drop'"), std::string::npos) << e;
  fs::remove_all(dir);
}

// The partition job with the file: a zero budget offloads no operator with a positive measured
// drop; the plan is re-evaluated on the chip; a file for another chip is refused.
TEST(PartitionWithAccuracy, BudgetHeldAndPlanReEvaluated) {
  const fs::path dir = scratch("partition");
  const std::string path = (dir / "sens.json").string();
  const api::SensitivityResult r = measure_api("A5");
  std::ofstream(path) << api::sensitivity_file_json(r, r.provenance).dump(1);
  api::PartitionRequest q;
  q.hardware.preset = "seed000-arm";
  q.sensitivity = path;
  q.accuracy.chip = kChips + ":A5";
  q.max_accuracy_drop = 0.0;
  const api::PartitionProblem pp = api::build_partition_problem(fixture().model, q);
  const api::PartitionResult res = api::partition(pp, q);
  ASSERT_TRUE(res.accuracy);
  EXPECT_EQ(res.accuracy->predicted, 0.0);
  for (size_t v = 0; v < pp.problem.size(); ++v)
    if (res.schedule.assignment.mode[v] != partition::kHost) {
      EXPECT_EQ(pp.problem.drop_ppm[v], 0) << pp.problem.names[v];
    }
  EXPECT_EQ(res.accuracy->measured.n, 24);
  // Without a budget the latency-optimal plan may take any operator; its prediction is the sum.
  q.max_accuracy_drop = -1;
  const api::PartitionResult free =
      api::partition(api::build_partition_problem(fixture().model, q), q);
  EXPECT_LE(free.latency_s, res.latency_s);
  q.accuracy.chip = kChips + ":A2";
  const std::string e = error_of([&] { (void)api::build_partition_problem(fixture().model, q); });
  EXPECT_NE(e.find("'chip.hash'"), std::string::npos) << e;
  EXPECT_NE(e.find(path), std::string::npos) << e;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetcim::accuracy
