// Export: the seeded fill rule, determinism, the round trip import -> export -> import, the
// checker gate and the atomic write.
#include "onnxio/export.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "fixtures.h"
#include "onnxio/import.h"
#include "user_error_message.h"
#include "util/error.h"

namespace hetcim::onnxio {
namespace {

using graph::DType;
using graph::Graph;
using graph::Initializer;
using graph::Shape;

Graph import_model(const onnx::ModelProto& m) {
  return import_onnx_bytes(fixtures::serialize(m), "fixture.onnx");
}

Graph reimport(const Graph& g, const ExportOptions& o = {}) {
  return import_onnx_bytes(export_onnx_bytes(g, o), "exported.onnx");
}

// Conv(8x3x3x3) -> BatchNormalization -> Relu -> GlobalAveragePool -> Flatten -> Gemm(10x8,
// transB=1): an architecture without weights, the way the zoo describes models.
Graph architecture() {
  Graph g;
  g.name = "arch";
  g.opset = 17;
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {DType::Float32, Shape{1, 3, 8, 8}};
  g.values["y"] = {DType::Float32, Shape{1, 10}};
  g.initializers["conv.w"] = Initializer::shape_only(DType::Float32, {8, 3, 3, 3});
  g.initializers["conv.b"] = Initializer::shape_only(DType::Float32, {8});
  for (const char* p : {"bn.scale", "bn.bias", "bn.mean", "bn.var"}) {
    g.initializers[p] = Initializer::shape_only(DType::Float32, {8});
  }
  g.initializers["fc.w"] = Initializer::shape_only(DType::Float32, {10, 8});
  g.initializers["fc.b"] = Initializer::shape_only(DType::Float32, {10});
  g.nodes.push_back({"conv",
                     "Conv",
                     "",
                     {"x", "conv.w", "conv.b"},
                     {"c"},
                     {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}});
  g.nodes.push_back({"bn",
                     "BatchNormalization",
                     "",
                     {"c", "bn.scale", "bn.bias", "bn.mean", "bn.var"},
                     {"n"},
                     {}});
  g.nodes.push_back({"relu", "Relu", "", {"n"}, {"r"}, {}});
  g.nodes.push_back({"gap", "GlobalAveragePool", "", {"r"}, {"p"}, {}});
  g.nodes.push_back({"flat", "Flatten", "", {"p"}, {"f"}, {}});
  g.nodes.push_back({"fc", "Gemm", "", {"f", "fc.w", "fc.b"}, {"y"}, {{"transB", int64_t{1}}}});
  graph::validate(g);
  return g;
}

using hetcim::testing::message_of;

void expect_uniform_weights(const std::vector<float>& w, double bound, const std::string& what) {
  ASSERT_FALSE(w.empty()) << what;
  float max_abs = 0;
  double sum = 0;
  for (float v : w) {
    max_abs = std::max(max_abs, std::fabs(v));
    sum += v;
  }
  EXPECT_LE(max_abs, bound) << what;
  // n draws of U(-b, b): P(max |w| < 0.8 b) = 0.8^n, below 1e-10 for n >= 80.
  EXPECT_GE(max_abs, 0.8 * bound) << what;
  // The mean has standard deviation b / sqrt(3n); 6 of them is a generous band.
  EXPECT_LE(std::fabs(sum / static_cast<double>(w.size())),
            6 * bound / std::sqrt(3.0 * static_cast<double>(w.size())))
      << what;
}

TEST(ExportFill, ArchitectureWithoutWeightsFollowsTheDocumentedRule) {
  const Graph back = reimport(architecture(), {.seed = 7, .domain_versions = {}});
  auto vals = [&](const std::string& n) { return back.initializers.at(n).floats(); };
  EXPECT_EQ(vals("conv.b"), std::vector<float>(8, 0.0f));
  EXPECT_EQ(vals("bn.scale"), std::vector<float>(8, 1.0f));
  EXPECT_EQ(vals("bn.bias"), std::vector<float>(8, 0.0f));
  EXPECT_EQ(vals("bn.mean"), std::vector<float>(8, 0.0f));
  EXPECT_EQ(vals("bn.var"), std::vector<float>(8, 1.0f));
  EXPECT_EQ(vals("fc.b"), std::vector<float>(10, 0.0f));
  expect_uniform_weights(vals("conv.w"), std::sqrt(6.0 / 27.0), "conv.w (fan_in 3*3*3)");
  expect_uniform_weights(vals("fc.w"), std::sqrt(6.0 / 8.0), "fc.w (transB=1: fan_in = dims[1])");
}

TEST(ExportFill, SameSeedSameBytesOtherSeedOtherWeights) {
  const Graph g = architecture();
  const std::string a = export_onnx_bytes(g, {.seed = 1, .domain_versions = {}});
  const std::string b = export_onnx_bytes(g, {.seed = 1, .domain_versions = {}});
  const std::string c = export_onnx_bytes(g, {.seed = 2, .domain_versions = {}});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const Graph ga = import_onnx_bytes(a, "a");
  const Graph gc = import_onnx_bytes(c, "c");
  EXPECT_NE(ga.initializers.at("conv.w").raw, gc.initializers.at("conv.w").raw);
  EXPECT_EQ(ga.initializers.at("bn.var").raw, gc.initializers.at("bn.var").raw);
}

TEST(ExportFill, QuantizedParametersWithoutValues) {
  Graph g = import_model(fixtures::qdq_cnn({13, true, false}));
  for (const char* n : {"conv1.weight_quantized", "conv1.weight_quantized_scale",
                        "conv1.weight_quantized_zero_point", "conv1.bias_quantized"}) {
    g.initializers.at(n).raw.clear();
  }
  const Graph back = reimport(g, {.seed = 3, .domain_versions = {}});
  const auto w = back.initializers.at("conv1.weight_quantized").ints();
  ASSERT_EQ(w.size(), 108u);
  EXPECT_EQ(*std::min_element(w.begin(), w.end()) >= -127, true);
  EXPECT_EQ(std::adjacent_find(w.begin(), w.end(), std::not_equal_to<>()) != w.end(), true)
      << "weights must not be constant";
  EXPECT_EQ(back.initializers.at("conv1.weight_quantized_scale").floats(),
            std::vector<float>(4, 0.0078125f));
  EXPECT_EQ(back.initializers.at("conv1.weight_quantized_zero_point").ints(),
            std::vector<int64_t>(4, 0));
  EXPECT_EQ(back.initializers.at("conv1.bias_quantized").ints(), std::vector<int64_t>(4, 0));
  // Untouched parameters keep their bytes.
  EXPECT_EQ(back.initializers.at("conv2.weight_quantized").raw,
            g.initializers.at("conv2.weight_quantized").raw);
}

TEST(ExportFill, IntegerInitializerWithoutRuleIsAnError) {
  Graph g = import_model(fixtures::torch_cnn({13, true, false}));
  g.initializers.at("/Constant_2_output_0").raw.clear();  // Concat operand, int64
  const std::string msg = message_of([&] { (void)export_onnx_bytes(g); });
  EXPECT_NE(msg.find("initializer '/Constant_2_output_0' (int64, shape 1) has no values"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("node '/Concat' (Concat) input 1"), std::string::npos) << msg;
}

TEST(ExportRoundTrip, EveryFixtureComesBackIdentical) {
  std::vector<std::pair<std::string, onnx::ModelProto>> models;
  for (int64_t opset : {13, 14, 17}) {
    models.emplace_back("torch flatten " + std::to_string(opset),
                        fixtures::torch_cnn({opset, false, false}));
    models.emplace_back("torch reshape " + std::to_string(opset),
                        fixtures::torch_cnn({opset, true, false}));
  }
  models.emplace_back("torch params as inputs", fixtures::torch_cnn({13, false, true}));
  for (bool pc : {false, true}) {
    for (bool i8 : {false, true}) {
      models.emplace_back("qdq " + std::to_string(pc) + std::to_string(i8),
                          fixtures::qdq_cnn({13, pc, i8}));
    }
  }
  models.emplace_back("custom domain", fixtures::custom_domain_model());
  models.emplace_back("tiny", fixtures::tiny_conv());
  for (const auto& [label, m] : models) {
    SCOPED_TRACE(label);
    const Graph first = import_model(m);
    const std::string bytes = export_onnx_bytes(first);
    EXPECT_EQ(bytes, export_onnx_bytes(first)) << "serialization must be deterministic";
    const Graph second = import_onnx_bytes(bytes, "exported.onnx");
    fixtures::expect_same_graph(first, second);
    // And once more: export(import(export(g))) is byte-identical to export(g).
    EXPECT_EQ(export_onnx_bytes(second), bytes);
  }
}

TEST(ExportModel, VersionsAndDomains) {
  EXPECT_EQ(ir_version_for_opset(11), 6);
  EXPECT_EQ(ir_version_for_opset(13), 7);
  EXPECT_EQ(ir_version_for_opset(14), 7);
  EXPECT_EQ(ir_version_for_opset(15), 8);
  EXPECT_EQ(ir_version_for_opset(18), 8);
  EXPECT_THROW((void)ir_version_for_opset(10), UserError);

  const Graph g = import_model(fixtures::custom_domain_model());
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(export_onnx_bytes(g)));
  EXPECT_EQ(m.ir_version(), 8);
  ASSERT_EQ(m.opset_import_size(), 2);
  EXPECT_EQ(m.opset_import(0).domain(), "");
  EXPECT_EQ(m.opset_import(0).version(), 17);
  EXPECT_EQ(m.opset_import(1).domain(), "com.microsoft");
  EXPECT_EQ(m.opset_import(1).version(), 1);
  ASSERT_TRUE(m.ParseFromString(
      export_onnx_bytes(g, {.seed = 0, .domain_versions = {{"com.microsoft", 2}}})));
  EXPECT_EQ(m.opset_import(1).version(), 2);

  const Graph t = import_model(fixtures::torch_cnn({13, false, false}));
  ASSERT_TRUE(m.ParseFromString(export_onnx_bytes(t)));
  EXPECT_EQ(m.ir_version(), 7);
  EXPECT_EQ(m.graph().initializer_size(), 9);
  EXPECT_EQ(m.graph().node_size(), 9);
  for (const auto& init : m.graph().initializer()) EXPECT_TRUE(init.has_raw_data()) << init.name();
}

TEST(ExportModel, InvalidGraphsAreRefusedByTheChecker) {
  Graph g = architecture();
  g.nodes[2].op_type = "Foo";
  std::string msg = message_of([&] { (void)export_onnx_bytes(g); });
  EXPECT_EQ(msg.rfind("ONNX export of graph 'arch': the model fails the ONNX checker", 0), 0u)
      << msg;
  EXPECT_NE(msg.find("Foo"), std::string::npos) << msg;

  g = architecture();
  g.values["y"].shape.reset();
  msg = message_of([&] { (void)export_onnx_bytes(g); });
  EXPECT_NE(msg.find("graph output 'y' has an unknown rank"), std::string::npos) << msg;

  g = architecture();
  g.values["y"].shape = Shape{1, 11};  // Gemm gives 1x10
  msg = message_of([&] { (void)export_onnx_bytes(g); });
  EXPECT_NE(msg.find("fails ONNX shape inference"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(10) vs (11)"), std::string::npos) << msg;
}

class ExportFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::path(::testing::TempDir()) /
        ("hetcim_export_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  size_t files_in_dir() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++n;
    return n;
  }
  std::filesystem::path dir_;
};

TEST_F(ExportFile, WritesAFileThatImportsBack) {
  const std::string path = (dir_ / "arch.onnx").string();
  export_onnx(architecture(), path, {.seed = 5, .domain_versions = {}});
  EXPECT_EQ(files_in_dir(), 1u);  // no temporary left behind
  const Graph back = import_onnx(path);
  EXPECT_EQ(back.nodes.size(), 6u);
  EXPECT_EQ(std::filesystem::file_size(path),
            export_onnx_bytes(architecture(), {.seed = 5, .domain_versions = {}}).size());
}

TEST_F(ExportFile, AFailedExportLeavesTheOldFileAndNoTemporary) {
  const std::string path = (dir_ / "model.onnx").string();
  { std::ofstream(path) << "old contents"; }
  Graph g = architecture();
  g.nodes[0].op_type = "Foo";
  const std::string msg = message_of([&] { export_onnx(g, path); });
  EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
  EXPECT_EQ(files_in_dir(), 1u);
  std::ifstream in(path);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(contents, "old contents");
}

TEST_F(ExportFile, UnwritableDirectoryNamesThePath) {
  const std::string path = (dir_ / "missing" / "m.onnx").string();
  const std::string msg = message_of([&] { export_onnx(architecture(), path); });
  EXPECT_EQ(msg, "'" + path + "': directory '" + (dir_ / "missing").string() + "' does not exist")
      << msg;
}

}  // namespace
}  // namespace hetcim::onnxio
