// The portable kernels of src/ops run by the engine, against the reference interpreter (its own
// arithmetic, in double where it matters) on odd shapes: broadcasting on either side, ranks 1-5,
// extents that are not multiples of 8; and against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "exec/engine.h"
#include "exec/reference.h"
#include "exec/test_util.h"
#include "ops/registry.h"

namespace hetcim::exec {
namespace {

using graph::DType;
using graph::Shape;
using testing::Builder;
using testing::random_tensor;

// The engine's implementation string of the node named `name`.
std::string impl_of(const Engine& e, const std::string& name) {
  for (const OpInfo& o : e.ops())
    if (o.name == name) return o.impl;
  ADD_FAILURE() << "no op " << name;
  return "";
}

// ---- binary: Add / Sub / Mul / Div / Pow with broadcasting

struct BinaryCase {
  Shape a, b;
};

const BinaryCase kBroadcasts[] = {
    {{13}, {13}},                     // rank 1, same shape
    {{13}, {1}},                      // rank 1, scalar-like on the right
    {{1}, {13}},                      // ... and on the left
    {{3, 5, 7}, {7}},                 // a row vector (LayerNorm's Scale)
    {{7}, {3, 5, 7}},                 // broadcast on the left
    {{3, 5, 7}, {3, 5, 1}},           // a per-row value (LayerNorm's mean)
    {{2, 1, 5}, {3, 1}},              // both sides broadcast
    {{1, 3, 1, 9}, {2, 1, 4, 1}},     // rank 4, alternating
    {{1, 11, 6, 6}, {11, 1, 1}},      // per channel (ConvNeXt's layer scale)
    {{2, 3, 1, 5, 7}, {3, 4, 1, 7}},  // rank 5
    {{2, 3, 4, 5, 9}, {}},            // a rank-0 scalar
};

class Binary : public ::testing::TestWithParam<const char*> {};

TEST_P(Binary, MatchesReferenceExactlyOnEveryBroadcast) {
  const std::string op = GetParam();
  for (const BinaryCase& c : kBroadcasts) {
    for (bool b_constant : {false, true}) {
      SCOPED_TRACE(op + " " + graph::shape_str(c.a) + " x " + graph::shape_str(c.b) +
                   (b_constant ? " (constant b)" : ""));
      Builder bld;
      bld.input("a", DType::Float32, c.a);
      // Pow on positive bases only (a negative base with a fractional exponent is NaN).
      const double lo = op == "Pow" ? 0.5 : -2.0, hi = 2.0;
      const Tensor bv = random_tensor(DType::Float32, c.b, 11, lo, hi);
      if (b_constant) {
        bld.constant("b", bv);
      } else {
        bld.input("b", DType::Float32, c.b);
      }
      bld.node(op, {"a", "b"}, {"y"});
      const graph::Graph g = bld.done({"y"});
      TensorMap in{{"a", random_tensor(DType::Float32, c.a, 5, lo, hi)}};
      if (!b_constant) in["b"] = bv;
      const TensorMap ref = run_reference(g, in);
      for (int threads : {1, 2}) {
        Engine e(g, {threads});
        const TensorMap got = e.run(in);
        // One IEEE rounding per element on both sides: bit for bit.
        EXPECT_EQ(got.at("y").floats(), ref.at("y").floats()) << threads << " threads";
        EXPECT_NE(impl_of(e, g.nodes[0].name).rfind("ref", 0), 0u) << impl_of(e, g.nodes[0].name);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Binary, ::testing::Values("Add", "Sub", "Mul", "Div", "Pow"));

TEST(Binary, BroadcastByHandAndTheFusedRelu) {
  // [[1, 2, 3], [4, 5, 6]] - [[4], [1]] = [[-3, -2, -1], [3, 4, 5]]; Relu: [[0, 0, 0], [3, 4, 5]].
  Builder b;
  b.input("a", DType::Float32, {2, 3});
  b.input("m", DType::Float32, {2, 1});
  b.constant("neg", Tensor::from_floats({2, 1}, {-4, -1}));
  b.node("Add", {"a", "neg"}, {"y"}, {{"activation", std::string("Relu")}});
  b.node("Sub", {"a", "m"}, {"d"});
  const graph::Graph g = b.done({"y", "d"});
  const TensorMap out = Engine(g).run({{"a", Tensor::from_floats({2, 3}, {1, 2, 3, 4, 5, 6})},
                                       {"m", Tensor::from_floats({2, 1}, {4, 1})}});
  EXPECT_EQ(out.at("y").floats(), (std::vector<float>{0, 0, 0, 3, 4, 5}));
  EXPECT_EQ(out.at("d").floats(), (std::vector<float>{-3, -2, -1, 3, 4, 5}));
}

// ---- Softmax

TEST(Softmax, ByHand) {
  // softmax([0, ln 2, ln 3]) = [1, 2, 3] / 6.
  Builder b;
  b.input("x", DType::Float32, {1, 3});
  b.node("Softmax", {"x"}, {"y"}, {{"axis", int64_t{-1}}});
  const graph::Graph g = b.done({"y"});
  const Tensor y =
      Engine(g)
          .run({{"x", Tensor::from_floats({1, 3}, {0.0f, std::log(2.0f), std::log(3.0f)})}})
          .at("y");
  EXPECT_NEAR(y.at(0), 1.0 / 6, 1e-7);
  EXPECT_NEAR(y.at(1), 2.0 / 6, 1e-7);
  EXPECT_NEAR(y.at(2), 3.0 / 6, 1e-7);
}

TEST(Softmax, MatchesReferenceOnEveryAxisAndOpset) {
  struct Case {
    int64_t opset;
    Shape x;
    int64_t axis;
  };
  for (const Case& c :
       {Case{13, {37}, 0}, Case{13, {3, 17}, -1}, Case{13, {2, 5, 33}, -1}, Case{13, {2, 5, 7}, 1},
        Case{13, {4, 6, 5}, 0}, Case{13, {1, 2, 3, 4, 5}, 2}, Case{11, {2, 3, 5}, 1},
        Case{11, {2, 3, 5}, 0}}) {
    SCOPED_TRACE("opset " + std::to_string(c.opset) + " " + graph::shape_str(c.x) + " axis " +
                 std::to_string(c.axis));
    Builder b(c.opset);
    b.input("x", DType::Float32, c.x);
    b.node("Softmax", {"x"}, {"y"}, {{"axis", c.axis}});
    const graph::Graph g = b.done({"y"});
    testing::expect_engine_matches_reference(
        g, {{"x", random_tensor(DType::Float32, c.x, 3, -10, 10)}}, 1e-6, 1);
    testing::expect_engine_matches_reference(
        g, {{"x", random_tensor(DType::Float32, c.x, 4, -10, 10)}}, 1e-6, 2);
  }
}

// ---- LayerNormalization

TEST(LayerNorm, MatchesReferenceOnOddShapes) {
  struct Case {
    Shape x;
    int64_t axis;
    bool one_scale;
  };
  for (const Case& c :
       {Case{{37}, 0, false}, Case{{2, 7, 19}, -1, false}, Case{{3, 5, 6}, 1, false},
        Case{{1, 2, 3, 4, 5}, -2, false}, Case{{4, 3, 96}, -1, true}, Case{{2, 3, 9}, -1, false}}) {
    SCOPED_TRACE(graph::shape_str(c.x) + " axis " + std::to_string(c.axis));
    const auto r = static_cast<int64_t>(c.x.size());
    const int64_t axis = c.axis < 0 ? c.axis + r : c.axis;
    const Shape norm(c.x.begin() + axis, c.x.end());
    Builder b;
    b.input("x", DType::Float32, c.x);
    b.constant("s", random_tensor(DType::Float32, c.one_scale ? Shape{1} : norm, 7, 0.5, 2));
    b.constant("bias", random_tensor(DType::Float32, norm, 8));
    b.node("LayerNormalization", {"x", "s", "bias"}, {"y"}, {{"axis", c.axis}, {"epsilon", 1e-5}});
    const graph::Graph g = b.done({"y"});
    // An offset mean, as activations have: the kernel subtracts the mean before squaring.
    const Tensor x = random_tensor(DType::Float32, c.x, 9, 2, 5);
    testing::expect_engine_matches_reference(g, {{"x", x}}, 2e-6, 1);
    testing::expect_engine_matches_reference(g, {{"x", x}}, 2e-6, 2);
  }
}

TEST(LayerNorm, ByHand) {
  // Row [1, 2, 3, 4]: mean 2.5, variance 1.25; epsilon 2.75 makes the deviation 2, so
  // y = (x - 2.5) / 2 * [1, 2, 3, 4] + [0.5, 0, 0, -1] = [-0.25, -0.5, 0.75, 2].
  Builder b;
  b.input("x", DType::Float32, {1, 4});
  b.constant("s", Tensor::from_floats({4}, {1, 2, 3, 4}));
  b.constant("bias", Tensor::from_floats({4}, {0.5f, 0, 0, -1}));
  b.node("LayerNormalization", {"x", "s", "bias"}, {"y"}, {{"epsilon", 2.75}});
  const graph::Graph g = b.done({"y"});
  EXPECT_EQ(Engine(g).run({{"x", Tensor::from_floats({1, 4}, {1, 2, 3, 4})}}).at("y").floats(),
            (std::vector<float>{-0.25f, -0.5f, 0.75f, 2.0f}));
}

// ---- InstanceNormalization (ops/normalization.cpp: kernel and reference kernel in the one file)

TEST(InstanceNorm, MatchesReferenceOnOddShapes) {
  for (const Shape& x : {Shape{1, 3, 7}, Shape{2, 5, 3, 11}, Shape{2, 3, 1, 4, 5},
                         Shape{1, 4, 37, 29}, Shape{3, 2, 1, 1}}) {
    SCOPED_TRACE(graph::shape_str(x));
    Builder b;
    b.input("x", DType::Float32, x);
    b.constant("s", random_tensor(DType::Float32, {x[1]}, 7, 0.5, 2));
    b.constant("bias", random_tensor(DType::Float32, {x[1]}, 8));
    b.node("InstanceNormalization", {"x", "s", "bias"}, {"y"}, {{"epsilon", 1e-5}});
    const graph::Graph g = b.done({"y"});
    // An offset mean, as activations have: both kernels subtract the mean before squaring.
    const Tensor in = random_tensor(DType::Float32, x, 9, 2, 5);
    testing::expect_engine_matches_reference(g, {{"x", in}}, 2e-6, 1);
    testing::expect_engine_matches_reference(g, {{"x", in}}, 2e-6, 2);
    EXPECT_EQ(impl_of(Engine(g), g.nodes[0].name), "hetcim:InstanceNormalization");
  }
}

TEST(InstanceNorm, ByHandInEngineAndReference) {
  // x [2, 2, 4], epsilon 2.75. Sample 0: channel 0 [1, 2, 3, 4] has mean 2.5 and variance 1.25,
  // so sqrt(1.25 + 2.75) = 2 and y = (x - 2.5) / 2 * 2 + 1 = [-0.5, 0.5, 1.5, 2.5]; channel 1
  // [7.5, 12.5, 7.5, 12.5] has mean 10, variance 6.25, sqrt(9) = 3, y = (x - 10) / 3 * 3 - 1 =
  // [-3.5, 1.5, -3.5, 1.5]. Sample 1 is flat per channel (its own statistics, not the batch's):
  // y = B = [1, 1, 1, 1] and [-1, -1, -1, -1].
  Builder b;
  b.input("x", DType::Float32, {2, 2, 4});
  b.constant("s", Tensor::from_floats({2}, {2, 3}));
  b.constant("bias", Tensor::from_floats({2}, {1, -1}));
  b.node("InstanceNormalization", {"x", "s", "bias"}, {"y"}, {{"epsilon", 2.75}});
  const graph::Graph g = b.done({"y"});
  const TensorMap in{{"x", Tensor::from_floats({2, 2, 4}, {1, 2, 3, 4, 7.5f, 12.5f, 7.5f, 12.5f, 5,
                                                           5, 5, 5, -4, -4, -4, -4})}};
  const std::vector<float> want = {-0.5f, 0.5f, 1.5f, 2.5f, -3.5f, 1.5f, -3.5f, 1.5f,
                                   1,     1,    1,    1,    -1,    -1,   -1,    -1};
  for (const Tensor& y : {Engine(g).run(in).at("y"), run_reference(g, in).at("y")})
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(y.at(static_cast<int64_t>(i)), want[i], 1e-6) << i;
}

TEST(InstanceNorm, GroupNormAsTorchExportsItMatchesTheDefinition) {
  // nn.GroupNorm(2, 6) below opset 18: Reshape [N, G, -1] -> InstanceNormalization (scale 1,
  // B 0) -> Reshape -> Mul gamma -> Add beta. Expected: the definition, computed here in double
  // over each sample's group of 3 channels x 5 x 7.
  const Shape xs = {2, 6, 5, 7};
  Builder b;
  b.input("x", DType::Float32, xs);
  b.constant("grouped",
             Tensor::from_initializer(graph::Initializer::from_ints({3}, {2, 2, -1}), "grouped"));
  b.constant("back",
             Tensor::from_initializer(graph::Initializer::from_ints({4}, {2, 6, 5, 7}), "back"));
  b.constant("ones", Tensor::from_floats({2}, {1, 1}));
  b.constant("zeros", Tensor::from_floats({2}, {0, 0}));
  const Tensor gamma = random_tensor(DType::Float32, {6, 1, 1}, 21, 0.5, 2);
  const Tensor beta = random_tensor(DType::Float32, {6, 1, 1}, 22);
  b.constant("gamma", gamma);
  b.constant("beta", beta);
  b.node("Reshape", {"x", "grouped"}, {"r"});
  b.node("InstanceNormalization", {"r", "ones", "zeros"}, {"n"}, {{"epsilon", 1e-5}});
  b.node("Reshape", {"n", "back"}, {"u"});
  b.node("Mul", {"u", "gamma"}, {"m"});
  b.node("Add", {"m", "beta"}, {"y"});
  const graph::Graph g = b.done({"y"});
  const Tensor x = random_tensor(DType::Float32, xs, 23, -1, 3);
  const int64_t group = 3 * 5 * 7;
  std::vector<float> want(static_cast<size_t>(x.numel()));
  for (int64_t s = 0; s < 2 * 2; ++s) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < group; ++i) mean += x.at(s * group + i);
    mean /= group;
    for (int64_t i = 0; i < group; ++i) var += std::pow(x.at(s * group + i) - mean, 2);
    var /= group;
    for (int64_t i = 0; i < group; ++i) {
      const int64_t ch = (s % 2) * 3 + i / 35;
      want[static_cast<size_t>(s * group + i)] = static_cast<float>(
          (x.at(s * group + i) - mean) / std::sqrt(var + 1e-5) * gamma.at(ch) + beta.at(ch));
    }
  }
  const Tensor expected = Tensor::from_floats(xs, want);
  for (int threads : {1, 2}) {
    EngineOptions o;
    o.threads = threads;
    EXPECT_LE(testing::rel_error(Engine(g, o).run({{"x", x}}).at("y"), expected), 2e-6);
  }
  EXPECT_LE(testing::rel_error(run_reference(g, {{"x", x}}).at("y"), expected), 2e-6);
}

// ---- Gelu

graph::Graph gelu_graph(const Shape& s, const std::string& approximate) {
  Builder b;
  b.input("x", DType::Float32, s);
  // Gelu is opset 20's: the infos are given (hetcim's shape inference is of the importer's opsets;
  // passes::fuse_gelu keeps the pattern's output info).
  b.node("Gelu", {"x"}, {"y"}, {{"approximate", approximate}}, "", {{DType::Float32, s}});
  return b.done({"y"});
}

TEST(Gelu, MatchesReferenceOnOddShapes) {
  for (const std::string approximate : {"none", "tanh"})
    for (const Shape& s : {Shape{1}, Shape{3, 37}, Shape{1, 2, 3, 4, 5}, Shape{5, 1031}}) {
      SCOPED_TRACE(approximate + " " + graph::shape_str(s));
      const graph::Graph g = gelu_graph(s, approximate);
      const Tensor x = random_tensor(DType::Float32, s, 13, -6, 6);
      testing::expect_engine_matches_reference(g, {{"x", x}}, 2e-6, 1);
      testing::expect_engine_matches_reference(g, {{"x", x}}, 2e-6, 2);
    }
}

TEST(Gelu, ByFormula) {
  // gelu(x) = x/2 (1 + erf(x / sqrt 2)); tanh form x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
  // in double, at points across the range (0 exactly, the tails to zero and to x).
  const std::vector<float> xs = {-9.0f, -3.0f, -1.0f, -0.25f, 0.0f, 1e-3f, 0.5f, 1.0f, 2.5f, 9.0f};
  for (const std::string approximate : {"none", "tanh"}) {
    const graph::Graph g = gelu_graph({static_cast<int64_t>(xs.size())}, approximate);
    const Tensor y =
        Engine(g).run({{"x", Tensor::from_floats({static_cast<int64_t>(xs.size())}, xs)}}).at("y");
    for (size_t i = 0; i < xs.size(); ++i) {
      const double v = xs[i];
      const double want =
          approximate == "none"
              ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))
              : 0.5 * v * (1 + std::tanh(0.79788456080286536 * (v + 0.044715 * v * v * v)));
      EXPECT_NEAR(y.at(static_cast<int64_t>(i)), want, 1e-6 * std::max(1.0, std::fabs(v)))
          << approximate << " at " << v;
    }
    EXPECT_EQ(y.at(4), 0.0);
  }
}

// ---- MatMul: one GEMM over the rows of batched activations, its bias Add fused

TEST(MatMul, LinearLayerOnBatchedRowsWithItsBias) {
  // x [2, 3, 5, 7] x W [7, 9] + b [9] (torch's Linear on a 4-D activation: MatMul, then Add with
  // the bias first), followed by a Relu fused into the Add.
  Builder b;
  b.input("x", DType::Float32, {2, 3, 5, 7});
  b.constant("w", random_tensor(DType::Float32, {7, 9}, 2));
  b.constant("bias", random_tensor(DType::Float32, {9}, 3));
  b.node("MatMul", {"x", "w"}, {"mm"});
  b.node("Add", {"bias", "mm"}, {"y"}, {{"activation", std::string("Relu")}});
  const graph::Graph g = b.done({"y"});
  const TensorMap in{{"x", random_tensor(DType::Float32, {2, 3, 5, 7}, 4)}};
  testing::expect_engine_matches_reference(g, in, 1e-5, 1);
  testing::expect_engine_matches_reference(g, in, 1e-5, 2);
  const Engine e(g);
  EXPECT_NE(impl_of(e, g.nodes[0].name).find("+bias(" + g.nodes[1].name + ")"), std::string::npos)
      << impl_of(e, g.nodes[0].name);
  EXPECT_EQ(impl_of(e, g.nodes[1].name).rfind("fused into", 0), 0u);
  EngineOptions unfused;
  unfused.fuse = false;
  const TensorMap a = Engine(g).run(in), c = Engine(g, unfused).run(in);
  EXPECT_LE(testing::rel_error(a.at("y"), c.at("y")), 1e-6);
}

TEST(MatMul, BatchedOperandsAndABiasThatDoesNotFuse) {
  // B with a batch dimension (attention's A x V) keeps oneDNN's batched product; a bias Add whose
  // constant broadcasts over rows, not columns, stays an Add.
  Builder b;
  b.input("a", DType::Float32, {2, 3, 5, 7});
  b.input("v", DType::Float32, {3, 7, 9});
  b.constant("rowbias", random_tensor(DType::Float32, {5, 1}, 3));
  b.node("MatMul", {"a", "v"}, {"mm"});
  b.node("Add", {"mm", "rowbias"}, {"y"});
  const graph::Graph g = b.done({"y"});
  const TensorMap in{{"a", random_tensor(DType::Float32, {2, 3, 5, 7}, 4)},
                     {"v", random_tensor(DType::Float32, {3, 7, 9}, 5)}};
  testing::expect_engine_matches_reference(g, in, 1e-5, 1);
  EXPECT_EQ(impl_of(Engine(g), g.nodes[1].name).rfind("fused into", 0), std::string::npos);
}

// ---- the registry

TEST(Registry, EveryOperatorTheEngineRunsHasOneFamilyRow) {
  std::set<std::string_view> seen;
  for (std::string_view op : ops::operators()) {
    EXPECT_TRUE(seen.insert(op).second) << op << " twice";
    const ops::Family* f = ops::find(op);
    ASSERT_NE(f, nullptr);
    EXPECT_FALSE(f->family.empty()) << op;
    graph::Node n;
    n.op_type = std::string(op);
    EXPECT_TRUE(Engine::executes(n)) << op;
  }
  EXPECT_EQ(ops::find("NoSuchOp"), nullptr);
  graph::Node lstm;
  lstm.op_type = "LSTM";
  EXPECT_FALSE(Engine::executes(lstm));
}

}  // namespace
}  // namespace hetcim::exec
