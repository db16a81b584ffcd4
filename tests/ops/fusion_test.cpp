// The fusion passes of the operator families (passes::fuse_layer_norm, passes::fuse_gelu) on small
// hand-built graphs: what they fuse, what they must leave alone, and the fused graph's values on
// the engine against the formula worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/engine.h"
#include "exec/reference.h"
#include "exec/test_util.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_layer_norm.h"
#include "passes/pipeline.h"

namespace hetcim::exec {
namespace {

using graph::DType;
using graph::Shape;
using testing::Builder;
using A = std::map<std::string, graph::Attribute>;

std::vector<std::string> op_types(const graph::Graph& g) {
  std::vector<std::string> out;
  for (const graph::Node& n : g.nodes) out.push_back(n.op_type);
  return out;
}

// torch's opset-13 LayerNorm over the last axis of x (2 x 4), with Scale [1, 2, 3, 4] and
// B [0.5, 0, 0, -1] and epsilon 2.75. `square`: "Pow" or "Mul"; `leak`: the Sub's output is a
// graph output too (then nothing may fuse).
graph::Graph layer_norm_decomposed(const std::string& square, bool leak = false) {
  Builder b(13);
  b.input("x", DType::Float32, {2, 4});
  b.constant("two", testing::scalar_f(2.0f));
  b.constant("eps", testing::scalar_f(2.75f));
  b.constant("gamma", Tensor::from_floats({4}, {1, 2, 3, 4}));
  b.constant("beta", Tensor::from_floats({4}, {0.5f, 0, 0, -1}));
  const A last{{"axes", std::vector<int64_t>{-1}}};
  b.node("ReduceMean", {"x"}, {"m"}, last);
  b.node("Sub", {"x", "m"}, {"d"});
  if (square == "Pow") {
    b.node("Pow", {"d", "two"}, {"p"});
  } else {
    b.node("Mul", {"d", "d"}, {"p"});
  }
  b.node("ReduceMean", {"p"}, {"v"}, last);
  b.node("Add", {"v", "eps"}, {"ve"});
  b.node("Sqrt", {"ve"}, {"sd"});
  b.node("Div", {"d", "sd"}, {"q"});
  b.node("Mul", {"q", "gamma"}, {"qs"});
  b.node("Add", {"beta", "qs"}, {"y"});  // B first, as torch writes the MatMul bias
  return b.done(leak ? std::vector<std::string>{"y", "d"} : std::vector<std::string>{"y"});
}

TEST(FuseLayerNorm, FusesTheOpset13DecompositionIntoOneKernel) {
  for (const std::string square : {"Pow", "Mul"}) {
    SCOPED_TRACE(square);
    const graph::Graph g = passes::fuse_layer_norm(layer_norm_decomposed(square));
    ASSERT_EQ(op_types(g), std::vector<std::string>{"LayerNormalization"});
    const graph::Node& ln = g.nodes[0];
    EXPECT_EQ(ln.name, "n0_ReduceMean");
    EXPECT_EQ(ln.inputs, (std::vector<std::string>{"x", "gamma", "beta"}));
    EXPECT_EQ(ln.outputs, std::vector<std::string>{"y"});
    EXPECT_EQ(ln.attr_int("axis", 0), 1);
    EXPECT_EQ(ln.attr_float("epsilon", 0), 2.75);
    // Rows [1, 2, 3, 4] and [-2, 0, 2, 4]: means 2.5 and 1, variances 1.25 and 5; with epsilon
    // 2.75 the deviations are 2 and sqrt(7.75). Row 1: (x - 2.5) / 2 * gamma + beta.
    const Tensor x = Tensor::from_floats({2, 4}, {1, 2, 3, 4, -2, 0, 2, 4});
    const Tensor y = Engine(g).run({{"x", x}}).at("y");
    const std::vector<float> row0 = {-0.25f, -0.5f, 0.75f, 2.0f};
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(y.at(i), row0[static_cast<size_t>(i)]);
    const double sd = std::sqrt(7.75);
    const double gamma[4] = {1, 2, 3, 4}, beta[4] = {0.5, 0, 0, -1}, row1[4] = {-2, 0, 2, 4};
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_NEAR(y.at(4 + i), (row1[i] - 1) / sd * gamma[i] + beta[i], 1e-6);
    // The unfused graph on the reference interpreter agrees.
    const Tensor ref = run_reference(layer_norm_decomposed(square), {{"x", x}}).at("y");
    EXPECT_LE(testing::rel_error(y, ref), 1e-6);
  }
}

TEST(FuseLayerNorm, LeavesAPatternWithAnOutsideReaderAlone) {
  const graph::Graph g = passes::fuse_layer_norm(layer_norm_decomposed("Pow", /*leak=*/true));
  EXPECT_EQ(g.nodes.size(), 9u);
  EXPECT_EQ(g.nodes[0].op_type, "ReduceMean");
}

TEST(FuseLayerNorm, NeedsTheSameTrailingAxesInBothMeans) {
  Builder b(13);
  b.input("x", DType::Float32, {2, 3, 4});
  b.constant("eps", testing::scalar_f(1e-5f));
  b.node("ReduceMean", {"x"}, {"m"}, {{"axes", std::vector<int64_t>{-1}}});
  b.node("Sub", {"x", "m"}, {"d"});
  b.node("Mul", {"d", "d"}, {"p"});
  b.node("ReduceMean", {"p"}, {"v"}, {{"axes", std::vector<int64_t>{-2, -1}}});
  b.node("Add", {"v", "eps"}, {"ve"});
  b.node("Sqrt", {"ve"}, {"sd"});
  b.node("Div", {"d", "sd"}, {"y"});
  const graph::Graph g = passes::fuse_layer_norm(b.done({"y"}));
  EXPECT_EQ(g.nodes.size(), 7u);
}

TEST(FuseLayerNorm, MakesScaleAndBiasWhenThePatternHasNone) {
  Builder b(13);
  b.input("x", DType::Float32, {3, 2, 5});
  b.constant("two", testing::scalar_f(2.0f));
  b.constant("eps", testing::scalar_f(1e-5f));
  const A last2{{"axes", std::vector<int64_t>{1, 2}}};
  b.node("ReduceMean", {"x"}, {"m"}, last2);
  b.node("Sub", {"x", "m"}, {"d"});
  b.node("Pow", {"d", "two"}, {"p"});
  b.node("ReduceMean", {"p"}, {"v"}, last2);
  b.node("Add", {"eps", "v"}, {"ve"});
  b.node("Sqrt", {"ve"}, {"sd"});
  b.node("Div", {"d", "sd"}, {"y"});
  const graph::Graph unfused = b.done({"y"});
  const graph::Graph g = passes::fuse_layer_norm(unfused);
  ASSERT_EQ(op_types(g), std::vector<std::string>{"LayerNormalization"});
  EXPECT_EQ(g.nodes[0].attr_int("axis", 0), 1);
  EXPECT_EQ(g.initializers.at(g.nodes[0].inputs[1]).floats(), std::vector<float>(10, 1.0f));
  EXPECT_EQ(g.initializers.at(g.nodes[0].inputs[2]).floats(), std::vector<float>(10, 0.0f));
  const Tensor x = testing::random_tensor(DType::Float32, {3, 2, 5}, 21, -3, 3);
  EXPECT_LE(testing::rel_error(Engine(g).run({{"x", x}}).at("y"),
                               run_reference(unfused, {{"x", x}}).at("y")),
            2e-6);
}

// x * (1 + Erf(x / sqrt 2)) * 0.5 as torch writes it (opset 13), or with the variants named.
graph::Graph gelu_erf_decomposed(bool mul_by_inverse, bool half_first, bool leak = false) {
  Builder b(13);
  b.input("x", DType::Float32, {2, 7});
  b.constant("c", testing::scalar_f(mul_by_inverse ? 0.70710678f : 1.4142135f));
  b.constant("one", testing::scalar_f(1.0f));
  b.constant("half", testing::scalar_f(0.5f));
  b.node(mul_by_inverse ? "Mul" : "Div", {"x", "c"}, {"z"});
  b.node("Erf", {"z"}, {"e"});
  b.node("Add", {"e", "one"}, {"a"});
  if (half_first) {
    b.node("Mul", {"half", "x"}, {"h"});
    b.node("Mul", {"h", "a"}, {"y"});
  } else {
    b.node("Mul", {"x", "a"}, {"xa"});
    b.node("Mul", {"xa", "half"}, {"y"});
  }
  return b.done(leak ? std::vector<std::string>{"y", "e"} : std::vector<std::string>{"y"});
}

// torch's GELU(approximate='tanh') at opset 13: x * x * x as two Muls, or Pow(x, 3).
graph::Graph gelu_tanh_decomposed(bool pow) {
  Builder b(13);
  b.input("x", DType::Float32, {2, 7});
  b.constant("k", testing::scalar_f(0.044715f));
  b.constant("s", testing::scalar_f(0.7978846f));
  b.constant("three", testing::scalar_f(3.0f));
  b.constant("one", testing::scalar_f(1.0f));
  b.constant("half", testing::scalar_f(0.5f));
  if (pow) {
    b.node("Pow", {"x", "three"}, {"x3"});
  } else {
    b.node("Mul", {"x", "x"}, {"x2"});
    b.node("Mul", {"x", "x2"}, {"x3"});
  }
  b.node("Mul", {"k", "x3"}, {"kx3"});
  b.node("Add", {"x", "kx3"}, {"in"});
  b.node("Mul", {"s", "in"}, {"u"});
  b.node("Tanh", {"u"}, {"t"});
  b.node("Add", {"one", "t"}, {"a"});
  b.node("Mul", {"x", "a"}, {"xa"});
  b.node("Mul", {"half", "xa"}, {"y"});
  return b.done({"y"});
}

const std::vector<float> kGeluX = {-4.0f, -1.0f, -0.5f, -0.125f, 0.0f,  0.25f, 1.0f,
                                   1.5f,  2.0f,  3.0f,  5.0f,    -7.0f, 0.75f, -2.5f};

void expect_gelu_values(const graph::Graph& g, bool tanh_form) {
  const Tensor y = Engine(g).run({{"x", Tensor::from_floats({2, 7}, kGeluX)}}).at("y");
  for (size_t i = 0; i < kGeluX.size(); ++i) {
    const double v = kGeluX[i];
    const double want = tanh_form
                            ? 0.5 * v * (1 + std::tanh(0.7978846 * (v + 0.044715 * v * v * v)))
                            : 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    EXPECT_NEAR(y.at(static_cast<int64_t>(i)), want, 2e-6 * std::max(1.0, std::fabs(v)))
        << "at " << v;
  }
}

TEST(FuseGelu, FusesTheErfFormInEveryOrder) {
  for (bool inverse : {false, true})
    for (bool half_first : {false, true}) {
      SCOPED_TRACE(std::string(inverse ? "Mul 1/sqrt2" : "Div sqrt2") +
                   (half_first ? ", x*0.5 first" : ", *0.5 last"));
      const graph::Graph g = passes::fuse_gelu(gelu_erf_decomposed(inverse, half_first));
      ASSERT_EQ(op_types(g), std::vector<std::string>{"Gelu"});
      EXPECT_EQ(g.nodes[0].attr_string("approximate", ""), "none");
      EXPECT_EQ(g.nodes[0].inputs, std::vector<std::string>{"x"});
      EXPECT_EQ(g.nodes[0].outputs, std::vector<std::string>{"y"});
      expect_gelu_values(g, false);
    }
}

TEST(FuseGelu, FusesTheTanhForm) {
  for (bool pow : {false, true}) {
    SCOPED_TRACE(pow ? "Pow(x, 3)" : "x * (x * x)");
    const graph::Graph g = passes::fuse_gelu(gelu_tanh_decomposed(pow));
    ASSERT_EQ(op_types(g), std::vector<std::string>{"Gelu"});
    EXPECT_EQ(g.nodes[0].attr_string("approximate", ""), "tanh");
    expect_gelu_values(g, true);
  }
}

TEST(FuseGelu, LeavesAPatternWithAnOutsideReaderAlone) {
  const graph::Graph g = passes::fuse_gelu(gelu_erf_decomposed(false, false, /*leak=*/true));
  EXPECT_EQ(g.nodes.size(), 5u);
}

TEST(FuseGelu, NeedsTheRightConstants) {
  Builder b(13);
  b.input("x", DType::Float32, {4});
  b.constant("c", testing::scalar_f(2.0f));  // x / 2, not x / sqrt 2
  b.constant("one", testing::scalar_f(1.0f));
  b.constant("half", testing::scalar_f(0.5f));
  b.node("Div", {"x", "c"}, {"z"});
  b.node("Erf", {"z"}, {"e"});
  b.node("Add", {"e", "one"}, {"a"});
  b.node("Mul", {"x", "a"}, {"xa"});
  b.node("Mul", {"xa", "half"}, {"y"});
  EXPECT_EQ(passes::fuse_gelu(b.done({"y"})).nodes.size(), 5u);
}

TEST(FusePipeline, LowerFusesBothInAConvNeXtLikeBlock) {
  // LayerNorm -> Gelu as the pipeline sees them, fp32: one operator each.
  passes::PipelineOptions o;
  o.precision = passes::Precision::Fp32;
  const graph::Graph ln = passes::lower(layer_norm_decomposed("Pow"), o);
  EXPECT_EQ(op_types(ln), std::vector<std::string>{"LayerNormalization"});
  const graph::Graph ge = passes::lower(gelu_erf_decomposed(false, false), o);
  EXPECT_EQ(op_types(ge), std::vector<std::string>{"Gelu"});
}

}  // namespace
}  // namespace hetcim::exec
