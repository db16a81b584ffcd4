// api/analog_chip.h (any network on a simulated chip, no libtorch) and the cluster pieces moved out
// of the CLI: an ideal 16-bit chip against the reference interpreter, seeds, the mapping report's
// layer count against the graph's own operators, the chip specs against yaml-cpp's reading of the
// file, and the bus-width spelling.
#include "api/analog_chip.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "api/cluster.h"
#include "exec/reference.h"
#include "exec/weights.h"
#include "onnxio/export.h"
#include "passes/pipeline.h"
#include "util/error.h"

namespace hetcim::api {
namespace {

namespace fs = std::filesystem;

const std::string kChips = std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml";

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("hetcim_analog_chip_" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

template <typename F>
std::string user_error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

exec::Tensor image(float scale) {
  std::vector<float> v(28 * 28);
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>((i * 37) % 101) / 101.0f;
  return exec::Tensor::from_floats({1, 1, 28, 28}, v);
}

TEST(AnalogChip, AnIdealChipGivesTheReferenceInterpreterOutputs) {
  // 16-bit devices and converters, no noise: the classifier on the chip differs from the float
  // interpreter by quantization only.
  const Scratch s;
  const std::string chips = s.write("ideal.yaml", R"(profiles:
  I16:
    device_bits: 16
    dac_bits: 16
    adc_bits: 16
)");
  const Model m = load_model("race_cnn_mnist");
  AnalogRunRequest q;
  q.chip = chips + ":I16";
  q.layers = "classifier.0,classifier.2";
  q.inputs[m.graph.inputs[0]] = image(1.0f);
  const AnalogRunResult r = analog_run(m, q);
  EXPECT_EQ(r.analog_layers, 2);
  EXPECT_GT(r.stats.dac_conversions, 0);

  graph::Graph g = m.graph;
  (void)exec::materialize_weights(g, q.weight_seed);
  passes::PipelineOptions fp32;
  fp32.precision = passes::Precision::Fp32;
  g = passes::lower(g, fp32);
  const exec::TensorMap want = exec::run_reference(g, {{g.inputs[0], image(1.0f)}});
  ASSERT_EQ(r.outputs.size(), want.size());
  for (const auto& [name, t] : want) {
    const std::vector<float> a = t.floats(), b = r.outputs.at(name).floats();
    ASSERT_EQ(a.size(), b.size());
    double max_abs = 0, max_err = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      max_abs = std::max(max_abs, std::fabs(static_cast<double>(a[i])));
      max_err = std::max(max_err, std::fabs(static_cast<double>(a[i]) - b[i]));
    }
    EXPECT_LT(max_err, 1e-2 * max_abs) << name;
  }
}

TEST(AnalogChip, SameSeedsSameOutputsAnotherReadSeedOtherOutputs) {
  const Model m = load_model("race_cnn_mnist");
  AnalogRunRequest q;
  q.chip = kChips + ":A3";
  q.layers = "classifier";
  const AnalogRunResult a = analog_run(m, q), b = analog_run(m, q);
  q.read_seed = 2;
  const AnalogRunResult c = analog_run(m, q);
  const std::string out = a.output_names.at(0);
  EXPECT_EQ(a.outputs.at(out).floats(), b.outputs.at(out).floats());
  EXPECT_NE(a.outputs.at(out).floats(), c.outputs.at(out).floats());
}

TEST(AnalogChip, BadRequestsNameTheField) {
  const Model m = load_model("race_cnn_mnist");
  AnalogRunRequest q;
  q.chip = kChips + ":A0";
  q.layers = "classifier.0";
  q.inputs["nope"] = image(1.0f);
  EXPECT_NE(user_error_of([&] { (void)analog_run(m, q); }).find("has no input 'nope'"),
            std::string::npos);
  q.inputs.clear();
  q.mode = "fast";
  EXPECT_EQ(user_error_of([&] { (void)analog_run(m, q); }),
            "mode: expected '', physical or reference, got 'fast'");
  q.mode = "";
  q.chip = kChips;  // every profile: run needs one
  EXPECT_NE(user_error_of([&] { (void)analog_run(m, q); }).find("--chip needs FILE:PROFILE"),
            std::string::npos);
  EXPECT_NE(user_error_of([] { (void)analog_layers(","); }).find("--analog-layers"),
            std::string::npos);
  EXPECT_EQ(analog_layers("classifier"),
            (std::vector<std::string>{"classifier.0", "classifier.2"}));
  EXPECT_EQ(analog_layers("a,,b"), (std::vector<std::string>{"a", "b"}));
}

TEST(AnalogChip, TheAuditCoversEveryCrossbarOperatorOfTheGraph) {
  const Scratch s;
  graph::Graph g = load_model("race_cnn_mnist").graph;
  (void)exec::materialize_weights(g, 1);
  const std::string onnx = (s.dir / "cnn.onnx").string();
  onnxio::export_onnx(g, onnx);
  int64_t matrices = 0;  // Conv, Gemm and MatMul nodes, counted on the graph itself
  for (const graph::Node& n : g.nodes)
    matrices += n.op_type == "Conv" || n.op_type == "Gemm" || n.op_type == "MatMul";
  AnalogAuditRequest q;
  q.model = onnx;
  q.chip = kChips + ":A0";
  const AnalogAuditResult r = analog_audit(q);
  EXPECT_EQ(static_cast<int64_t>(r.audits.size() + r.skipped.size()), matrices);
  q.layers = "classifier.0";
  const AnalogAuditResult one = analog_audit(q);
  ASSERT_EQ(one.audits.size(), 1u);
  EXPECT_EQ(one.audits[0].layer, "classifier.0");
}

TEST(AnalogChip, AFileWithoutAProfileNameIsEveryProfileOfIt) {
  const YAML::Node file = YAML::LoadFile(kChips);
  const std::vector<xbar::ChipProfile> all = chip_profiles(kChips, "reference");
  ASSERT_EQ(all.size(), file["profiles"].size());
  for (const xbar::ChipProfile& p : all) {
    EXPECT_TRUE(file["profiles"][p.name]) << p.name;
    EXPECT_EQ(p.mode, xbar::SimMode::Reference);
  }
  EXPECT_EQ(chip_profiles(kChips + ":A2").at(0).name, "A2");
}

TEST(ClusterApi, BusWidthsAreMultiplesOfEightBits) {
  // The table's field (api/cluster.h: cluster_fields) and the hand check of whole bytes; the CLI's
  // "128bit" spelling is tested from both faces in python/tests/test_options.py.
  ClusterRequest q;
  q.bus_width_bits = 64;
  EXPECT_NO_THROW(q.validate());
  q.bus_width_bits = 63;
  EXPECT_EQ(user_error_of([&] { q.validate(); }),
            "bus_width: expected a multiple of 8 bits such as 128, got 63");
  q.bus_width_bits = 0;
  EXPECT_EQ(user_error_of([&] { q.validate(); }),
            "bus_width: expected a whole number in [8, 1048576], got 0");
  const ConstantsResult c = cluster_constants();
  EXPECT_EQ(*c.provenance.find("source"),
            "the constants of the pulp-pcm-cluster preset and where the preset's values come from "
            "(cluster/constants.h)");
}

}  // namespace
}  // namespace hetcim::api
