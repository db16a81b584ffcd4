// The engine with the crossbar backend (the delegate) against AnalogGraph on the reference
// interpreter (the oracle): the same graph, chip, analog nodes, inputs and read seed.
#include "xbar/crossbar_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "exec/engine.h"
#include "exec/inputs.h"
#include "exec/weights.h"
#include "passes/pipeline.h"
#include "util/error.h"
#include "xbar/analog_graph.h"
#include "xbar/chips_yaml.h"
#include "zoo/builder.h"
#include "zoo/race_cnn.h"

namespace hetcim::xbar {
namespace {

graph::Graph lowered_fp32(graph::Graph g) {
  (void)exec::materialize_weights(g, 5);
  passes::PipelineOptions o;
  o.precision = passes::Precision::Fp32;
  return passes::lower(g, o);
}

// Conv-Relu-MaxPool twice, Flatten, Linear-Relu, Linear: between the crossbar nodes only max
// pools and reshapes, which both engines compute exactly.
graph::Graph exact_cnn() {
  zoo::Builder b("exact_cnn");
  std::string x = b.input("input", {3, 2, 12, 12});
  x = b.conv("c1", x, 4, 3, 1, 1, 1, true);
  x = b.relu("r1", x);
  x = b.max_pool("p1", x, 2, 2, 0);
  x = b.conv("c2", x, 8, 3, 1, 1, 1, true);
  x = b.relu("r2", x);
  x = b.max_pool("p2", x, 2, 2, 0);
  x = b.flatten("flatten", x);
  x = b.linear("fc1", x, 16);
  x = b.relu("r3", x);
  x = b.linear("fc2", x, 5);
  b.output(x);
  return lowered_fp32(std::move(b).finish());
}

ChipProfile a3() {
  return load_chip_profile(std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A3");
}

exec::TensorMap delegate_run(const graph::Graph& g, const Chip& chip,
                             const std::vector<std::string>& nodes, const exec::TensorMap& in,
                             uint64_t read_seed, int runs = 1) {
  auto backend = std::make_shared<CrossbarBackend>(chip, nodes, read_seed);
  exec::EngineOptions o;
  o.backend = backend;
  exec::Engine e(g, o);
  exec::TensorMap out;
  for (int r = 0; r < runs; ++r) out = e.run(in);
  return out;
}

exec::TensorMap oracle_run(const graph::Graph& g, const Chip& chip,
                           const std::vector<std::string>& nodes, const exec::TensorMap& in,
                           uint64_t read_seed, int runs = 1) {
  const AnalogGraph ag(g, chip, nodes);
  Rng rng(read_seed);
  exec::TensorMap out;
  for (int r = 0; r < runs; ++r) out = ag.run(in, rng);
  return out;
}

// Every crossbar node on the noisy chip A3 (write and read noise, stuck devices, 8-bit DAC and
// ADC), the digital nodes exact in both engines: the outputs must be the same bytes, on the first
// execution and on a second one (fresh read noise from the same stream).
TEST(CrossbarBackend, BitIdenticalToAnalogGraphWhenTheDigitalNodesAreExact) {
  const graph::Graph g = exact_cnn();
  const Chip chip(a3(), 11);
  const std::vector<std::string> nodes = {"c1", "c2", "fc1", "fc2"};
  const exec::TensorMap in = exec::random_inputs(g, 3);
  for (int runs : {1, 2}) {
    const exec::TensorMap d = delegate_run(g, chip, nodes, in, 21, runs);
    const exec::TensorMap r = oracle_run(g, chip, nodes, in, 21, runs);
    const exec::Tensor& a = d.at(g.outputs[0]);
    const exec::Tensor& b = r.at(g.outputs[0]);
    ASSERT_EQ(a.shape, b.shape);
    ASSERT_EQ(a.bytes.size(), b.bytes.size());
    EXPECT_EQ(std::memcmp(a.bytes.data(), b.bytes.data(), a.bytes.size()), 0) << "runs " << runs;
  }
  // A different read seed gives different outputs (the noise is really drawn).
  const exec::TensorMap d1 = delegate_run(g, chip, nodes, in, 21);
  const exec::TensorMap d2 = delegate_run(g, chip, nodes, in, 22);
  EXPECT_NE(d1.at(g.outputs[0]).floats(), d2.at(g.outputs[0]).floats());
}

// Seed 002's CNN (1x28x28) with a digital convolution and average pool between crossbar nodes:
// oneDNN and the reference interpreter sum those in different orders (exec: 1e-4 relative), so
// the outputs agree within float reassociation. Ideal converters keep a rounding boundary of the
// DAC or ADC from turning such a difference into a whole code: every output within 1e-4 of the
// largest |output|.
TEST(CrossbarBackend, WithinFloatReassociationWithDigitalConvolutions) {
  const graph::Graph g = lowered_fp32(zoo::race_cnn(2, {1, 28, 28, 10}));
  ChipProfile p = a3();
  p.dac_bits = 0;
  p.adc_bits = 0;
  const Chip chip(p, 3);
  const std::vector<std::string> nodes = {"features.3", "classifier.0", "classifier.2"};
  const exec::TensorMap in = exec::random_inputs(g, 9);
  const std::vector<float> d = delegate_run(g, chip, nodes, in, 5).at(g.outputs[0]).floats();
  const std::vector<float> r = oracle_run(g, chip, nodes, in, 5).at(g.outputs[0]).floats();
  ASSERT_EQ(d.size(), r.size());
  float scale = 0.0f, worst = 0.0f;
  for (size_t i = 0; i < d.size(); ++i) {
    scale = std::max(scale, std::fabs(r[i]));
    worst = std::max(worst, std::fabs(d[i] - r[i]));
  }
  ASSERT_GT(scale, 0.0f);
  EXPECT_LE(worst, 1e-4f * scale);
  // The analog nodes ran on the chip: the all-digital engine differs by far more.
  const std::vector<float> digital = exec::Engine(g).run(in).at(g.outputs[0]).floats();
  float gap = 0.0f;
  for (size_t i = 0; i < d.size(); ++i) gap = std::max(gap, std::fabs(d[i] - digital[i]));
  EXPECT_GT(gap, 100 * worst);
}

TEST(CrossbarBackend, TheEngineReportsTheBackendAndRefusesNodesACrossbarCannotHold) {
  const graph::Graph g = exact_cnn();
  auto backend = std::make_shared<CrossbarBackend>(Chip(a3(), 1), std::vector<std::string>{"c2"});
  exec::EngineOptions o;
  o.backend = backend;
  const exec::Engine e(g, o);
  for (const exec::OpInfo& op : e.ops())
    EXPECT_EQ(op.impl.rfind("xbar:A3", 0) == 0, op.name == "c2") << op.name << " " << op.impl;
  EXPECT_EQ(backend->audits().size(), 1u);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"p1"}, std::vector<std::string>{"nope"}}) {
    exec::EngineOptions ob;
    ob.backend = std::make_shared<CrossbarBackend>(Chip(a3(), 1), bad);
    try {
      exec::Engine(g, ob);
      ADD_FAILURE() << "no error for " << bad[0];
    } catch (const UserError& err) {
      EXPECT_NE(std::string(err.what()).find("'" + bad[0] + "'"), std::string::npos) << err.what();
    }
  }
}

}  // namespace
}  // namespace hetcim::xbar
