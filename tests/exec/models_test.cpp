// Whole-model tests on the zoo, the fast ones (small models and ResNet-18; models_slow_test.cpp
// has the big models): operator count and names as passes::lower gives them (seed 000's Table I
// granularity), shapes, fp32 engine versus the reference to 1e-4
// relative, int8 engine versus reference exactly, calibration determinism, and the QDQ export
// round trip (to_qdq -> ONNX -> import -> same outputs).
#include <gtest/gtest.h>

#include <cmath>

#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "onnxio/export.h"
#include "onnxio/import.h"
#include "passes/pipeline.h"
#include "passes/qdq_export.h"
#include "test_util.h"
#include "zoo/zoo.h"

namespace hetcim::exec {
namespace {

using passes::Precision;
using passes::to_qdq;
using testing::prepared;

// Table I of seed 000: 38 / 79 / 71 operators for the int8 ResNet-18 / ResNet-50 / MobileNetV2.
TEST(Models, ResNet18Int8OperatorCountAndNames) {
  for (const auto& [model, count] : std::vector<std::pair<std::string, size_t>>{{"resnet18", 38}}) {
    SCOPED_TRACE(model);
    const graph::Graph lowered = passes::lower(zoo::build_model(model), {Precision::Int8});
    const graph::Graph g = prepared(model, Precision::Int8);
    ASSERT_EQ(g.nodes.size(), count);
    Engine e(g, {1});
    ASSERT_EQ(e.ops().size(), count);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(e.ops()[i].name, lowered.nodes[i].name);
  }
}

TEST(Models, Fp32EngineMatchesReferenceOnSmallModels) {
  for (const char* model : {"bottleneck", "race_cnn"}) {
    SCOPED_TRACE(model);
    const graph::Graph g = prepared(model, Precision::Fp32);
    testing::expect_engine_matches_reference(g, random_inputs(g, 5), 1e-4, 2);
  }
}

TEST(Models, Int8EngineMatchesReferenceExactlyOnSmallModels) {
  for (const char* model : {"bottleneck", "race_cnn"}) {
    SCOPED_TRACE(model);
    const graph::Graph g = prepared(model, Precision::Int8);
    testing::expect_engine_matches_reference(g, random_inputs(g, 5), 0, 2);
  }
}

TEST(Models, CalibrationIsDeterministicAndSeeded) {
  const graph::Graph a = prepared("bottleneck", Precision::Int8, 1);
  const graph::Graph b = prepared("bottleneck", Precision::Int8, 1);
  const graph::Graph c = prepared("bottleneck", Precision::Int8, 2);
  ASSERT_EQ(a.initializers.size(), b.initializers.size());
  bool any_differs = false;
  for (const auto& [name, init] : a.initializers) {
    ASSERT_TRUE(b.initializers.count(name));
    EXPECT_EQ(init.raw, b.initializers.at(name).raw) << name;
    if (c.initializers.count(name) && c.initializers.at(name).raw != init.raw) any_differs = true;
  }
  EXPECT_TRUE(any_differs) << "another calibration seed should change some scale";
}

// The QDQ form imports back into the same quantized network: identical int8 outputs.
TEST(Models, QdqExportRoundTrip) {
  for (const char* model : {"bottleneck", "resnet18"}) {
    SCOPED_TRACE(model);
    const graph::Graph g = prepared(model, Precision::Int8);
    const graph::Graph qdq = to_qdq(g);
    const std::string bytes = onnxio::export_onnx_bytes(qdq, {});
    const graph::Graph back =
        prepare(onnxio::import_onnx_bytes(bytes, "qdq"), {Precision::Int8, 1, {}});
    EXPECT_EQ(back.nodes.size(), g.nodes.size());
    const TensorMap in = random_inputs(g, 9);
    TensorMap in_back;
    ASSERT_EQ(back.inputs.size(), 1u);
    in_back[back.inputs[0]] = in.begin()->second;
    const TensorMap x = Engine(g).run(in), y = Engine(back).run(in_back);
    ASSERT_EQ(x.size(), 1u);
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(x.begin()->second.bytes, y.begin()->second.bytes);
  }
}

}  // namespace
}  // namespace hetcim::exec
