// Whole-model tests on the zoo that take tens of seconds (label slow): the big models against the
// plain-loop reference, every zoo model in both precisions, and the operator counts of
// ResNet-50 / MobileNetV2. The fast file (models_test.cpp) covers the same properties on small
// models.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "onnxio/export.h"
#include "onnxio/import.h"
#include "passes/pipeline.h"
#include "test_util.h"
#include "zoo/zoo.h"

namespace hetcim::exec {
namespace {

using passes::Precision;
using testing::prepared;

void expect_finite_with_declared_shapes(const graph::Graph& g, const TensorMap& out) {
  for (const std::string& name : g.outputs) {
    ASSERT_TRUE(out.count(name)) << name;
    const Tensor& t = out.at(name);
    EXPECT_EQ(t.shape, *g.info(name)->shape) << name;
    int64_t bad = 0;
    for (float v : t.floats()) bad += !std::isfinite(v);
    EXPECT_EQ(bad, 0) << name;
  }
}

// Table I of seed 000: 38 / 79 / 71 operators for the int8 ResNet-18 / ResNet-50 / MobileNetV2.
TEST(ModelsSlow, Int8OperatorCountsAndNamesFollowTheLoweredGraph) {
  for (const auto& [model, count] :
       std::vector<std::pair<std::string, size_t>>{{"resnet50", 79}, {"mobilenetv2", 71}}) {
    SCOPED_TRACE(model);
    const graph::Graph lowered = passes::lower(zoo::build_model(model), {Precision::Int8});
    const graph::Graph g = prepared(model, Precision::Int8);
    ASSERT_EQ(g.nodes.size(), count);
    Engine e(g, {1});
    ASSERT_EQ(e.ops().size(), count);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(e.ops()[i].name, lowered.nodes[i].name);
  }
}

TEST(ModelsSlow, EveryZooModelRunsInBothPrecisions) {
  for (const zoo::ModelInfo& m : zoo::list_models()) {
    for (Precision p : {Precision::Fp32, Precision::Int8}) {
      SCOPED_TRACE(m.name + (p == Precision::Int8 ? " int8" : " fp32"));
      const graph::Graph g = prepared(m.name, p);
      Engine e(g, {2});
      expect_finite_with_declared_shapes(g, e.run(random_inputs(g, 5)));
      for (const OpInfo& o : e.ops())  // none on oneDNN's (10-300x slower) reference kernels
        EXPECT_NE(o.impl.rfind("ref", 0), 0u) << o.name << " runs " << o.impl;
    }
  }
}

// The big models against the reference (a few seconds each in the plain-loop reference).
TEST(ModelsSlow, Fp32EngineMatchesReference) {
  for (const char* model : {"resnet18", "mobilenetv2", "yolov5n"}) {
    SCOPED_TRACE(model);
    const graph::Graph g = prepared(model, Precision::Fp32);
    testing::expect_engine_matches_reference(g, random_inputs(g, 5), 1e-4, 1);
  }
}

TEST(ModelsSlow, Int8EngineMatchesReferenceExactly) {
  for (const char* model : {"resnet18", "mobilenetv2", "yolov5n"}) {
    SCOPED_TRACE(model);
    const graph::Graph g = prepared(model, Precision::Int8);
    testing::expect_engine_matches_reference(g, random_inputs(g, 5), 0, 1);
  }
}

}  // namespace
}  // namespace hetcim::exec
