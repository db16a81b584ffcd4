#include "xbar/analog_graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exec/reference.h"
#include "util/error.h"

namespace hetcim::xbar {
namespace {

std::vector<float> normal(int64_t n, uint64_t seed, float scale) {
  Rng r(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = scale * static_cast<float>(r.normal());
  return v;
}

// input [2,1,6,6] -> Conv(1->3, 3x3, pad 1, stride 1) -> Relu -> Flatten -> Gemm(transB, 108->4)
graph::Graph tiny_cnn() {
  graph::Graph g;
  g.name = "tiny_cnn";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {graph::DType::Float32, graph::Shape{2, 1, 6, 6}};
  g.values["c"] = {graph::DType::Float32, graph::Shape{2, 3, 6, 6}};
  g.values["r"] = {graph::DType::Float32, graph::Shape{2, 3, 6, 6}};
  g.values["f"] = {graph::DType::Float32, graph::Shape{2, 108}};
  g.values["y"] = {graph::DType::Float32, graph::Shape{2, 4}};
  g.nodes.push_back(
      {"conv",
       "Conv",
       "",
       {"x", "cw", "cb"},
       {"c"},
       {{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"kernel_shape", std::vector<int64_t>{3, 3}}}});
  g.nodes.push_back({"relu", "Relu", "", {"c"}, {"r"}, {}});
  g.nodes.push_back({"flatten", "Flatten", "", {"r"}, {"f"}, {{"axis", int64_t{1}}}});
  g.nodes.push_back(
      {"fc", "Gemm", "", {"f", "gw", "gb"}, {"y"}, {{"transB", int64_t{1}}, {"beta", 0.5}}});
  g.initializers["cw"] = graph::Initializer::from_floats({3, 1, 3, 3}, normal(27, 1, 0.5f));
  g.initializers["cb"] = graph::Initializer::from_floats({3}, {0.1f, -0.2f, 0.3f});
  g.initializers["gw"] = graph::Initializer::from_floats({4, 108}, normal(432, 2, 0.1f));
  g.initializers["gb"] = graph::Initializer::from_floats({4}, {1.0f, 2.0f, -1.0f, 0.0f});
  return g;
}

exec::TensorMap input() {
  return {{"x", exec::Tensor::from_floats({2, 1, 6, 6}, normal(72, 3, 1.0f))}};
}

ChipProfile ideal16() {
  ChipProfile p;
  p.name = "ideal16";
  p.device_bits = 16;
  p.dac_bits = 16;
  p.adc_bits = 16;
  return p;
}

TEST(AnalogGraph, IdealChipReproducesTheDigitalGraph) {
  const exec::TensorMap digital = exec::run_reference(tiny_cnn(), input());
  for (const std::vector<std::string>& nodes :
       {std::vector<std::string>{"conv"}, {"fc"}, {"conv", "fc"}, {}}) {
    const AnalogGraph ag(tiny_cnn(), Chip(ideal16(), 1), nodes);
    Rng rng(1);
    const exec::TensorMap analog = ag.run(input(), rng);
    const auto d = digital.at("y").floats(), a = analog.at("y").floats();
    ASSERT_EQ(a.size(), 8u);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], d[i], 1e-3 * (1 + std::fabs(d[i])));
    EXPECT_EQ(ag.audits().size(), nodes.size());
  }
}

TEST(AnalogGraph, PersistentStateFreshReadsAndChipSeeds) {
  ChipProfile p = ideal16();
  p.name = "noisy";
  p.read_noise = 3e-6;
  p.write_noise = 5e-6;
  const AnalogGraph a(tiny_cnn(), Chip(p, 1), {"conv", "fc"});
  const AnalogGraph a_again(tiny_cnn(), Chip(p, 1), {"conv", "fc"});
  const AnalogGraph b(tiny_cnn(), Chip(p, 2), {"conv", "fc"});
  Rng r1(5), r2(5), r3(5);
  const auto y1 = a.run(input(), r1).at("y").floats();
  const auto y2 = a.run(input(), r1).at("y").floats();              // same chip, next read
  const auto y1_again = a_again.run(input(), r2).at("y").floats();  // same chip seed, same reads
  const auto yb = b.run(input(), r3).at("y").floats();              // another chip, same reads
  EXPECT_EQ(y1, y1_again);
  EXPECT_NE(y1, y2);
  EXPECT_NE(y1, yb);
  // Without read noise, every run reads the same persistent conductances: identical bytes.
  p.read_noise = 0.0;
  const AnalogGraph quiet(tiny_cnn(), Chip(p, 1), {"conv", "fc"});
  Rng r4(6);
  EXPECT_EQ(quiet.run(input(), r4).at("y").floats(), quiet.run(input(), r4).at("y").floats());
}

TEST(AnalogGraph, OnlyCrossbarNodesCanBeAnalog) {
  const Chip chip(ideal16(), 1);
  try {
    AnalogGraph(tiny_cnn(), chip, {"relu"});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'relu' (Relu) cannot run on a crossbar"),
              std::string::npos);
  }
  EXPECT_THROW(AnalogGraph(tiny_cnn(), chip, {"nope"}), UserError);
  const AnalogGraph ag(tiny_cnn(), chip, {"fc"});
  Rng rng(1);
  EXPECT_THROW(
      (void)ag.run({{"x", exec::Tensor::from_floats({1, 1, 6, 6}, normal(36, 1, 1.0f))}}, rng),
      UserError);
}

}  // namespace
}  // namespace hetcim::xbar
