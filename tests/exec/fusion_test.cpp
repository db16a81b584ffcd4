// The engine's fused plan (EngineOptions::fuse) against the unfused engine and the reference
// interpreter on small graphs with each pattern: residual Adds (with and without a fused Relu,
// chained so that the second Add's operand aliases the first one's buffer) as convolution sum
// post-ops, Sigmoid * Mul as one SiLU kernel, and the cases where fusing would be wrong (an
// operand read again later, a graph input, a convolution reading its own sum operand, a Sigmoid
// read twice).
//
// Tolerances: the SiLU kernel computes the same float sigmoid and the same float product as the
// pair, so it must equal the unfused engine bit for bit. The residual sum post-op adds the same
// three float terms (convolution, bias, operand) in oneDNN's order instead of two separate
// roundings, so each output may differ by a few ulps of its magnitude (float reassociation): we
// allow 1e-6 of the largest output (8 ulps at 2^-23 relative) against the unfused engine, and the
// usual 1e-4 against the reference (which sums in yet another order).
#include <gtest/gtest.h>

#include "exec/engine.h"
#include "exec/reference.h"
#include "test_util.h"

namespace hetcim::exec {
namespace {

using graph::DType;
using testing::Builder;
using testing::random_tensor;
using A = std::map<std::string, graph::Attribute>;
using Ints = std::vector<int64_t>;

const graph::Shape kS{1, 16, 8, 8};

void conv(Builder& b, const std::string& x, const std::string& y, uint64_t seed, bool relu) {
  b.constant(y + ".w", random_tensor(DType::Float32, {16, 16, 3, 3}, seed, -0.3, 0.3))
      .constant(y + ".b", random_tensor(DType::Float32, {16}, seed + 1));
  A attrs{{"pads", Ints{1, 1, 1, 1}}};
  if (relu) attrs["activation"] = std::string("Relu");
  b.node("Conv", {x, y + ".w", y + ".b"}, {y}, attrs, "", {{DType::Float32, kS}});
}

void add(Builder& b, const std::string& u, const std::string& v, const std::string& y, bool relu) {
  A attrs;
  if (relu) attrs["activation"] = std::string("Relu");
  b.node("Add", {u, v}, {y}, attrs, "", {{DType::Float32, kS}});
}

const OpInfo& op_named(const Engine& e, const std::string& name) {
  for (const OpInfo& o : e.ops())
    if (o.name == name) return o;
  throw std::runtime_error("no operator " + name);
}
bool fused_away(const Engine& e, const std::string& name) {
  return op_named(e, name).impl.rfind("fused into", 0) == 0;
}

// Runs g fused and unfused (1 and 2 threads); float outputs within `tol` of the largest unfused
// output (0: bit for bit), both within 1e-4 of the reference. Returns the fused engine (1 thread).
Engine compare(const graph::Graph& g, double tol) {
  TensorMap in;
  uint64_t seed = 11;
  for (const std::string& i : g.inputs)
    in[i] = random_tensor(DType::Float32, *g.info(i)->shape, seed++);
  const TensorMap ref = run_reference(g, in);
  for (int threads : {2, 1}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    EngineOptions fo(threads), uo(threads);
    uo.fuse = false;
    Engine fused(g, fo), unfused(g, uo);
    const TensorMap f = fused.run(in), u = unfused.run(in);
    for (const auto& [name, r] : ref) {
      SCOPED_TRACE("output " + name);
      EXPECT_LE(testing::rel_error(u.at(name), r), 1e-4);
      EXPECT_LE(testing::rel_error(f.at(name), r), 1e-4);
      if (tol == 0)
        EXPECT_EQ(f.at(name).bytes, u.at(name).bytes);
      else
        EXPECT_LE(testing::rel_error(f.at(name), u.at(name)), tol);
    }
    for (const OpInfo& o : unfused.ops()) EXPECT_EQ(o.impl.find("fused"), std::string::npos);
    if (threads == 1) return fused;
  }
  throw std::logic_error("unreachable");
}

// Two ResNet basic blocks: a = conv0(x); z1 = Add(conv2(conv1(a)), a); z2 = Add(conv4(conv3(z1)),
// z1). Each Add's convolution writes into the other operand's buffer; z1 then aliases a's buffer
// and the second block sums into it again.
class ResidualAdd : public ::testing::TestWithParam<bool> {};

TEST_P(ResidualAdd, IsTheConvolutionsSumPostOp) {
  const bool relu = GetParam();
  Builder b;
  b.input("x", DType::Float32, kS);
  conv(b, "x", "a", 1, true);
  conv(b, "a", "c1", 3, true);
  conv(b, "c1", "y1", 5, false);
  add(b, "y1", "a", "z1", relu);
  conv(b, "z1", "c3", 7, true);
  conv(b, "c3", "y2", 9, false);
  add(b, "z1", "y2", "z2", relu);  // the convolution's output second: either order
  const graph::Graph g = b.done({"z2"});
  const Engine e = compare(g, 1e-6);
  EXPECT_TRUE(fused_away(e, g.nodes[3].name));
  EXPECT_TRUE(fused_away(e, g.nodes[6].name));
  EXPECT_NE(op_named(e, g.nodes[2].name).impl.find("+sum(" + g.nodes[3].name + ")"),
            std::string::npos);
  EXPECT_NE(op_named(e, g.nodes[5].name).impl.find("+sum(" + g.nodes[6].name + ")"),
            std::string::npos);
  EXPECT_EQ(e.ops().size(), g.nodes.size());  // the operator granularity stays
}

INSTANTIATE_TEST_SUITE_P(Relu, ResidualAdd, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "relu" : "plain"; });

TEST(ResidualAdd, NotFusedWhenTheOperandIsReadAgain) {
  // a is read by a later Add: the convolution must not overwrite it.
  Builder b;
  b.input("x", DType::Float32, kS);
  conv(b, "x", "a", 1, true);
  conv(b, "a", "y", 3, false);
  add(b, "y", "a", "z", true);
  add(b, "z", "a", "out", false);
  const graph::Graph g = b.done({"out"});
  const Engine e = compare(g, 0);
  EXPECT_FALSE(fused_away(e, g.nodes[2].name));
  EXPECT_FALSE(fused_away(e, g.nodes[3].name));  // its operand z is no convolution's output
}

TEST(ResidualAdd, NotFusedWhenTheOperandIsReadBetween) {
  // a is read by a node after the convolution and before the Add (the other branch).
  Builder b;
  b.input("x", DType::Float32, kS);
  conv(b, "x", "a", 1, true);
  conv(b, "a", "y", 3, false);
  conv(b, "a", "side", 5, false);
  add(b, "y", "a", "z", false);
  add(b, "z", "side", "out", false);
  const graph::Graph g = b.done({"out"});
  const Engine e = compare(g, 0);
  EXPECT_FALSE(fused_away(e, g.nodes[3].name));
}

TEST(ResidualAdd, NotFusedOnGraphInputsOutputsOrInPlace) {
  Builder b;
  b.input("x", DType::Float32, kS);
  conv(b, "x", "y", 1, false);
  add(b, "y", "x", "z", false);  // x is a graph input
  conv(b, "z", "a", 3, true);
  conv(b, "a", "y2", 5, false);
  add(b, "y2", "a", "z2", false);  // a is a graph output
  conv(b, "z2", "y3", 7, false);
  add(b, "y3", "z2", "z3", false);  // the convolution reads z2 itself
  conv(b, "z3", "y4", 9, false);
  add(b, "y4", "z3", "z4", false);  // y4 is also a graph output
  const graph::Graph g = b.done({"a", "z4", "y4"});
  const Engine e = compare(g, 0);
  for (int k : {1, 4, 6, 8}) EXPECT_FALSE(fused_away(e, g.nodes[static_cast<size_t>(k)].name)) << k;
}

graph::Graph silu_graph(bool sigmoid_read_twice, bool mul_swapped) {
  Builder b;
  b.input("x", DType::Float32, kS);
  conv(b, "x", "a", 1, false);
  b.node("Sigmoid", {"a"}, {"s"}, {}, "", {{DType::Float32, kS}});
  if (mul_swapped)
    b.node("Mul", {"s", "a"}, {"m"}, {}, "", {{DType::Float32, kS}});
  else
    b.node("Mul", {"a", "s"}, {"m"}, {}, "", {{DType::Float32, kS}});
  if (sigmoid_read_twice) add(b, "m", "s", "m2", false);
  conv(b, sigmoid_read_twice ? "m2" : "m", "out", 3, false);
  return b.done({"out", "a"});
}

TEST(Silu, SigmoidTimesItsInputIsOneKernelBitForBit) {
  for (bool swapped : {false, true}) {
    const graph::Graph g = silu_graph(false, swapped);
    const Engine e = compare(g, 0);
    EXPECT_TRUE(fused_away(e, g.nodes[2].name)) << swapped;
    EXPECT_EQ(op_named(e, g.nodes[1].name).impl, "hetcim:silu(" + g.nodes[2].name + ")");
  }
}

TEST(Silu, NotFusedWhenTheSigmoidIsReadElsewhere) {
  const graph::Graph g = silu_graph(true, false);
  const Engine e = compare(g, 0);
  EXPECT_FALSE(fused_away(e, g.nodes[2].name));
  EXPECT_EQ(op_named(e, g.nodes[1].name).impl, "hetcim:sigmoid");
}

// DenseNet's chain: each Concat takes the block input (a graph input, row-major NCHW) and every
// earlier layer's convolution output (channels-last), and feeds BatchNorm -> Relu -> 1x1 Conv.
// The Concats are written channels-last (the block input converted once), so the BatchNorms run
// channels-last and the convolutions after them need no reorder; each Relu runs inside its
// BatchNorm's pass (bit for bit: max(x a + b, 0) either way).
TEST(ConcatChain, WritesChannelsLastForItsConsumers) {
  Builder b;
  b.input("x", DType::Float32, kS);
  conv(b, "x", "f1", 1, true);
  std::vector<std::string> feats{"x", "f1"};
  for (int layer = 0; layer < 2; ++layer) {
    const std::string k = std::to_string(layer);
    const int64_t c = 16 * static_cast<int64_t>(feats.size());
    const graph::Shape cs{1, c, 8, 8};
    b.node("Concat", feats, {"cat" + k}, A{{"axis", int64_t{1}}}, "", {{DType::Float32, cs}});
    b.constant("sc" + k, random_tensor(DType::Float32, {c}, 20 + layer))
        .constant("bi" + k, random_tensor(DType::Float32, {c}, 30 + layer))
        .constant("mu" + k, random_tensor(DType::Float32, {c}, 40 + layer))
        .constant("va" + k, random_tensor(DType::Float32, {c}, 50 + layer, 0.5, 2));
    b.node("BatchNormalization", {"cat" + k, "sc" + k, "bi" + k, "mu" + k, "va" + k}, {"bn" + k},
           {}, "", {{DType::Float32, cs}});
    b.node("Relu", {"bn" + k}, {"r" + k}, {}, "", {{DType::Float32, cs}});
    b.constant("w" + k, random_tensor(DType::Float32, {16, c, 1, 1}, 60 + layer, -0.3, 0.3));
    b.node("Conv", {"r" + k, "w" + k}, {"f" + std::to_string(layer + 2)}, {}, "",
           {{DType::Float32, kS}});
    feats.push_back("f" + std::to_string(layer + 2));
  }
  const graph::Graph g = b.done({feats.back()});
  const Engine e = compare(g, 0);
  // The premise: oneDNN writes the convolutions' outputs channels-last. Its AVX-512 kernels do;
  // its AVX2 kernels pick a blocked layout (aBcd8b), and then no input of the chain is
  // channels-last and the Concats rightly stay row-major.
  if (e.ops().front().layout != "channels-last")
    GTEST_SKIP() << "oneDNN writes the first convolution's output " << e.ops().front().layout
                 << " on this CPU (" << onednn_description() << "), not channels-last";
  for (const OpInfo& o : e.ops()) {
    SCOPED_TRACE(o.name);
    if (o.op_type == "Concat") {
      EXPECT_EQ(o.impl.rfind("hetcim:concat_rows", 0), 0u) << o.impl;
    }
    if (o.op_type == "BatchNormalization") {
      EXPECT_EQ(o.impl.rfind("hetcim:batchnorm_nhwc+relu(", 0), 0u) << o.impl;
    }
    if (o.op_type == "Relu") {
      EXPECT_EQ(o.impl.rfind("fused into", 0), 0u) << o.impl;
    }
    if (o.op_type == "Conv" && o.name != g.nodes[0].name) {
      EXPECT_EQ(o.impl.find("reorder"), std::string::npos) << o.impl;
    }
  }
}

TEST(Fusion, KeepIntermediatesRunsTheUnfusedPlan) {
  Builder b;
  b.input("x", DType::Float32, kS);
  conv(b, "x", "a", 1, true);
  conv(b, "a", "c", 3, true);
  conv(b, "c", "y", 5, false);
  add(b, "y", "a", "z", true);
  const graph::Graph g = b.done({"z"});
  EngineOptions o;
  o.keep_intermediates = true;
  Engine e(g, o);
  const TensorMap in{{"x", random_tensor(DType::Float32, kS, 4)}};
  (void)e.run(in);
  EXPECT_FALSE(fused_away(e, g.nodes[3].name));
  // The convolution's own output stays readable: the reference's value of y.
  EXPECT_LE(testing::rel_error(e.read("y"), run_reference(g, in, true).at("y")), 1e-4);
}

// A Linear layer as torch exports it on [batch, tokens, features] (MatMul with a constant B, then
// Add of a bias of N values) feeding a Gelu alone: one 1x1 convolution whose bias is the Add and
// whose post-op is the Gelu (either approximation), within float rounding of the unfused plan.
class LinearGelu : public ::testing::TestWithParam<std::string> {};

// x [rows..., 24] -> MatMul (constant 24 x 40) -> Add (bias of 40) -> Gelu; with `sum_read_again`
// the Add's output is read once more by a last Add (so the Gelu may not take it over).
graph::Graph linear_gelu(const graph::Shape& xs, const std::string& approximate,
                         bool sum_read_again) {
  graph::Shape ys = xs;
  ys.back() = 40;
  Builder b;
  b.input("x", DType::Float32, xs);
  b.constant("w", random_tensor(DType::Float32, {24, 40}, 21))
      .constant("bias", random_tensor(DType::Float32, {40}, 22));
  b.node("MatMul", {"x", "w"}, {"m"}, {}, "", {{DType::Float32, ys}});
  b.node("Add", {"m", "bias"}, {"z"}, {}, "", {{DType::Float32, ys}});
  b.node("Gelu", {"z"}, {"g"}, A{{"approximate", approximate}}, "", {{DType::Float32, ys}});
  if (!sum_read_again) return b.done({"g"});
  b.node("Add", {"z", "g"}, {"out"}, {}, "", {{DType::Float32, ys}});
  return b.done({"out"});
}

TEST_P(LinearGelu, IsOneConvolutionWithBiasAndGeluPostOp) {
  const graph::Graph g = linear_gelu({2, 5, 24}, GetParam(), false);
  const Engine e = compare(g, 1e-5);
  EXPECT_TRUE(fused_away(e, g.nodes[1].name));
  EXPECT_TRUE(fused_away(e, g.nodes[2].name));
  const std::string& impl = op_named(e, g.nodes[0].name).impl;
  EXPECT_NE(impl.find("+bias(" + g.nodes[1].name + ")"), std::string::npos) << impl;
  EXPECT_NE(impl.find("+gelu(" + g.nodes[2].name + ")"), std::string::npos) << impl;
  EXPECT_EQ(impl.find("gemm"), std::string::npos) << impl;  // a convolution, not a GEMM
}

INSTANTIATE_TEST_SUITE_P(Approximation, LinearGelu, ::testing::Values("none", "tanh"));

TEST(LinearGelu, NotFusedWhenTheSumIsReadElsewhere) {
  const graph::Graph g = linear_gelu({5, 24}, "none", true);
  const Engine e = compare(g, 1e-5);
  EXPECT_TRUE(fused_away(e, g.nodes[1].name));   // the bias still joins the product
  EXPECT_FALSE(fused_away(e, g.nodes[2].name));  // z is read by the last Add too
}

// Gemm with a constant B given transposed (transB, a torch Linear exported as Gemm) and a bias C:
// the same 1x1 convolution (weights N x K as given); alpha != 1 keeps the matmul.
TEST(LinearGemm, TransposedWeightsAndBias) {
  for (const double alpha : {1.0, 0.5}) {
    Builder b;
    b.input("x", DType::Float32, {3, 24});
    b.constant("w", random_tensor(DType::Float32, {40, 24}, 23))
        .constant("c", random_tensor(DType::Float32, {40}, 24));
    b.node("Gemm", {"x", "w", "c"}, {"y"}, A{{"transB", int64_t{1}}, {"alpha", alpha}}, "",
           {{DType::Float32, graph::Shape{3, 40}}});
    const graph::Graph g = b.done({"y"});
    const Engine e = compare(g, 1e-5);
    const std::string& impl = op_named(e, g.nodes[0].name).impl;
    EXPECT_EQ(impl.find("gemm") == std::string::npos, alpha == 1.0) << impl;
  }
}

// A 1x1 convolution whose only reader is an AveragePool without padding (DenseNet's transition)
// runs on the pooled map: the pool node is fused away and the result equals the unfused pair up
// to reordered float sums. Not where the pool pads (count_include_pad averages the padding's
// zeros, not the bias), the convolution has an activation, or its output is also read elsewhere.
TEST(ConvAfterPool, TransitionsPoolFirst) {
  struct Case {
    const char* what;
    Ints pool_pads;
    bool relu, conv_is_output, fused;
  };
  for (const Case& c : {Case{"transition", {0, 0, 0, 0}, false, false, true},
                        Case{"padded pool", {1, 1, 1, 1}, false, false, false},
                        Case{"activation", {0, 0, 0, 0}, true, false, false},
                        Case{"output read twice", {0, 0, 0, 0}, false, true, false}}) {
    SCOPED_TRACE(c.what);
    Builder b;
    b.input("x", DType::Float32, {1, 24, 10, 10});
    b.constant("w", random_tensor(DType::Float32, {16, 24, 1, 1}, 41, -0.3, 0.3))
        .constant("b", random_tensor(DType::Float32, {16}, 42));
    A conv_attrs;
    if (c.relu) conv_attrs["activation"] = std::string("Relu");
    b.node("Conv", {"x", "w", "b"}, {"y"}, conv_attrs, "",
           {{DType::Float32, graph::Shape{1, 16, 10, 10}}});
    const int64_t side = c.pool_pads[0] == 0 ? 5 : 6;
    b.node("AveragePool", {"y"}, {"z"},
           A{{"kernel_shape", Ints{2, 2}},
             {"strides", Ints{2, 2}},
             {"pads", c.pool_pads},
             {"count_include_pad", int64_t{1}}},
           "", {{DType::Float32, graph::Shape{1, 16, side, side}}});
    const graph::Graph g = c.conv_is_output ? b.done({"z", "y"}) : b.done({"z"});
    const Engine e = compare(g, 1e-5);
    EXPECT_EQ(fused_away(e, g.nodes[1].name), c.fused);
    const std::string& impl = op_named(e, g.nodes[0].name).impl;
    EXPECT_EQ(impl.find("first") != std::string::npos, c.fused) << impl;
  }
}

}  // namespace
}  // namespace hetcim::exec
