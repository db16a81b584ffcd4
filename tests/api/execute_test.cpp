// api::execute: a partition plan replayed end to end on Fashion-MNIST (the installed data set).
#include "api/execute.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "api/model.h"
#include "api/partition.h"
#include "data/fashion_mnist.h"
#include "report/partition_file.h"
#include "require_data.h"
#include "util/error.h"

namespace hetcim::api {
namespace {

namespace fs = std::filesystem;

bool have_fashion_mnist() {
  return fs::exists(std::string(data::kFashionMnistDir) + "/t10k-images-idx3-ubyte.gz");
}

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("hetcim_execute_" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
};

// The exact solver's plan of `model` on seed000-arm, written as `hetcim partition --json` does.
std::string write_plan(const Scratch& s, const std::string& model, const std::string& name) {
  const PartitionResult r = partition(load_model(model));
  const std::string path = (s.dir / name).string();
  report::write_partition_file(path, r.run, r.problem, r.schedule);
  return path;
}

ExecuteRequest request(const std::string& plan) {
  ExecuteRequest q;
  q.plan = plan;
  q.chip = std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A3";
  q.limit = 250;
  q.batch = 100;
  return q;
}

std::string error_of(const std::string& model, const ExecuteRequest& q) {
  try {
    (void)execute(model, q);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// A replayed plan gives the same accuracy (the same logits: same seeds) twice; the modelled
// latency is the plan's makespan as the partition reported it, the CIM operators its own.
TEST(Execute, APlanReplayedTwiceGivesTheSameAccuracy) {
  HETCIM_REQUIRE_DATA_OR_SKIP(have_fashion_mnist(), "Fashion-MNIST");
  const Scratch s;
  const PartitionResult solved = partition(load_model("race_cnn_mnist"));
  const std::string plan = write_plan(s, "race_cnn_mnist", "plan.json");
  const ExecuteResult a = execute("race_cnn_mnist", request(plan));
  const ExecuteResult b = execute("race_cnn_mnist", request(plan));
  EXPECT_EQ(a.execution.images, 250);
  EXPECT_EQ(a.execution.correct, b.execution.correct);
  EXPECT_EQ(a.execution.accuracy, b.execution.accuracy);
  EXPECT_EQ(a.execution.dac_conversions, b.execution.dac_conversions);
  EXPECT_DOUBLE_EQ(a.execution.plan_cost.latency_s, solved.latency_s);
  EXPECT_GT(a.execution.host_only_cost.latency_s, a.execution.plan_cost.latency_s);
  size_t on_cim = 0;
  for (int m : solved.schedule.assignment.mode) on_cim += m >= 0;
  EXPECT_EQ(a.execution.cim_operators.size(), on_cim);
  EXPECT_GT(a.execution.dac_conversions, 0);
  // Another read seed is another run of the chip: other DAC inputs, other logits.
  ExecuteRequest other = request(plan);
  other.read_seed = 2;
  other.certify = true;
  other.limit = 500;
  const ExecuteResult c = execute("race_cnn_mnist", other);
  ASSERT_TRUE(c.execution.certificate.has_value());
  const results::ExecutionCertificate& k = *c.execution.certificate;
  EXPECT_EQ(k.hardware_rows + k.policy_rows + k.certificate_rows + k.test_rows, 500);
  EXPECT_EQ(k.certificate_rows, 200);
  // Sequential fallback: per query the plan, plus the all-host path for the deferred share.
  const results::PathCost& plan_cost = c.execution.plan_cost;
  const results::PathCost& host_cost = c.execution.host_only_cost;
  EXPECT_DOUBLE_EQ(k.worst_latency_s, plan_cost.latency_s + host_cost.latency_s);
  EXPECT_NEAR(k.expected_energy_j, plan_cost.energy_j + (1 - k.test_coverage) * host_cost.energy_j,
              1e-15);
  if (!k.feasible) {
    // Nothing accepted: every query falls back, the hybrid answers are the digital ones.
    EXPECT_EQ(k.test_coverage, 0.0);
    EXPECT_EQ(k.hybrid_accuracy, k.digital_accuracy);
    EXPECT_FALSE(k.certified);
  }
}

// A plan whose accuracy budget was measured on the first test images, evaluated on the test set:
// the overlap is a warning with its size; measured on held-out training images: none.
TEST(Execute, APlanCalibratedOnTestImagesWarnsOnATestEvaluation) {
  HETCIM_REQUIRE_DATA_OR_SKIP(have_fashion_mnist(), "Fashion-MNIST");
  const Scratch s;
  const std::string plan = write_plan(s, "race_cnn_mnist", "plan.json");
  nlohmann::json j = nlohmann::json::parse(std::ifstream(plan));
  j["accuracy"] = {
      {"calibration", {{"dataset", "fashion-mnist"}, {"split", "test"}, {"samples", 100}}}};
  std::ofstream(plan) << j.dump();
  ExecuteRequest q = request(plan);
  q.limit = 250;
  const ExecuteResult r = execute("race_cnn_mnist", q);
  ASSERT_EQ(r.execution.warnings.size(), 1u);
  EXPECT_NE(r.execution.warnings[0].find("measured on the first 100 test images of fashion-mnist"),
            std::string::npos)
      << r.execution.warnings[0];
  EXPECT_NE(r.execution.warnings[0].find("100 of the 250 images"), std::string::npos)
      << r.execution.warnings[0];
  j["accuracy"]["calibration"]["split"] = "holdout";
  std::ofstream(plan) << j.dump();
  EXPECT_TRUE(execute("race_cnn_mnist", q).execution.warnings.empty());
  j["accuracy"]["calibration"] = "test";
  std::ofstream(plan) << j.dump();
  EXPECT_NE(error_of("race_cnn_mnist", q).find("field 'accuracy.calibration'"), std::string::npos);
}

TEST(Execute, BadPlansChipsAndDataSetsAreNamed) {
  const Scratch s;
  const std::string other = write_plan(s, "race_cnn", "other.json");
  EXPECT_NE(error_of("race_cnn_mnist", request(other)).find("other.json: field 'model' is"),
            std::string::npos)
      << error_of("race_cnn_mnist", request(other));
  // The Bottleneck's depth-wise convolution is offloaded by the partition (eq. 1 crossbars) but
  // a crossbar of the simulator holds only groups = 1.
  const std::string bottleneck = write_plan(s, "bottleneck", "bottleneck.json");
  const std::string held = error_of("bottleneck", request(bottleneck));
  EXPECT_NE(held.find("bottleneck.json: field 'operators': operator 'conv.1.0' is on the CIM "
                      "accelerator, but chip"),
            std::string::npos)
      << held;
  const std::string plan = write_plan(s, "race_cnn_mnist", "plan.json");
  ExecuteRequest missing = request(plan);
  missing.dataset_dir = (s.dir / "nodata").string();
  const std::string m = error_of("race_cnn_mnist", missing);
  EXPECT_NE(m.find((s.dir / "nodata").string()), std::string::npos) << m;
  ExecuteRequest bad_chip = request(plan);
  bad_chip.chip = std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A9";
  EXPECT_NE(error_of("race_cnn_mnist", bad_chip).find("A9"), std::string::npos);
  std::ofstream((s.dir / "garbage.json").string()) << "not json {";
  const std::string g = error_of("race_cnn_mnist", request((s.dir / "garbage.json").string()));
  EXPECT_NE(g.find("garbage.json: not valid JSON"), std::string::npos) << g;
}

}  // namespace
}  // namespace hetcim::api
