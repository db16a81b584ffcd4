// Per-operator tests: hand-computed values for the reference interpreter, and the oneDNN engine
// against the reference on random data (float to 1e-4 relative, int8 exactly), 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "exec/engine.h"
#include "exec/int8_gemm.h"
#include "exec/kernels.h"
#include "exec/reference.h"
#include "exec/winograd.h"
#include "ops/registry.h"
#include "test_util.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

using graph::DType;
using testing::Builder;
using testing::random_tensor;
using A = std::map<std::string, graph::Attribute>;
using Ints = std::vector<int64_t>;

TensorMap rand_inputs(const graph::Graph& g, uint64_t seed) {
  TensorMap m;
  for (const std::string& in : g.inputs) {
    const graph::TensorInfo* ti = g.info(in);
    m[in] = ti->dtype == DType::Float32 ? random_tensor(ti->dtype, *ti->shape, seed++)
                                        : random_tensor(ti->dtype, *ti->shape, seed++, 0, 255);
  }
  return m;
}

void both_thread_counts(const graph::Graph& g, double tol = 1e-4) {
  const TensorMap in = rand_inputs(g, 3);
  testing::expect_engine_matches_reference(g, in, tol, 1);
  testing::expect_engine_matches_reference(g, in, tol, 2);
}

// ---- hand-computed reference values ---------------------------------------------------------

TEST(Reference, ConvByHand) {
  // 1x1x3x3 input 1..9, 2x2 kernel of ones, no padding: each output is a 2x2 window sum.
  Builder b;
  b.input("x", DType::Float32, {1, 1, 3, 3});
  b.constant("w", Tensor::from_floats({1, 1, 2, 2}, {1, 1, 1, 1}));
  b.constant("b", Tensor::from_floats({1}, {0.5f}));
  b.node("Conv", {"x", "w", "b"}, {"y"});
  const graph::Graph g = b.done({"y"});
  const TensorMap out =
      run_reference(g, {{"x", Tensor::from_floats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}});
  EXPECT_EQ(out.at("y").floats(), (std::vector<float>{12.5f, 16.5f, 24.5f, 28.5f}));
}

TEST(Reference, QLinearConvByHand) {
  // x = [10, 20, 30, 40] (uint8, zx = 10, sx = 0.5), w = [1, -1, 2, 0] (int8, sw = 0.25),
  // bias = 4 (int32), sy = 0.1, zy = 5. acc = 0*1 + 10*(-1) + 20*2 + 30*0 + 4 = 34;
  // y = round(34 * 0.5 * 0.25 / 0.1) + 5 = round(42.5) + 5 = 42 + 5 = 47 (half to even).
  Builder b;
  b.input("x", DType::UInt8, {1, 1, 2, 2});
  Tensor w = Tensor::zeros(DType::Int8, {1, 1, 2, 2});
  const int8_t wv[4] = {1, -1, 2, 0};
  std::memcpy(w.bytes.data(), wv, 4);
  Tensor bias = Tensor::zeros(DType::Int32, {1});
  bias.data<int32_t>()[0] = 4;
  b.constant("sx", testing::scalar_f(0.5f)).constant("zx", testing::scalar_u8(10));
  b.constant("w", w).constant("sw", testing::scalar_f(0.25f)).constant("zw", testing::scalar_i8(0));
  b.constant("sy", testing::scalar_f(0.1f))
      .constant("zy", testing::scalar_u8(5))
      .constant("bias", bias);
  b.node("QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "bias"}, {"y"}, {}, "",
         {{DType::UInt8, graph::Shape{1, 1, 1, 1}}});
  const graph::Graph g = b.done({"y"});
  Tensor x = Tensor::zeros(DType::UInt8, {1, 1, 2, 2});
  const uint8_t xv[4] = {10, 20, 30, 40};
  std::memcpy(x.bytes.data(), xv, 4);
  const float m = (0.5f * 0.25f) / 0.1f;  // 1.25 in float: 34 * 1.25 = 42.5 exactly
  ASSERT_EQ(34.0f * m, 42.5f);
  EXPECT_EQ(run_reference(g, {{"x", x}}).at("y").at(0), 47);
  EXPECT_EQ(Engine(g).run({{"x", x}}).at("y").at(0), 47);
}

TEST(Reference, QLinearConvWithFewerZeroPointsThanChannelsIsAUserError) {
  // 4 output channels, a weight zero point with 2 values: neither per-tensor nor per-channel. The
  // reference interpreter used to read zw[2] and zw[3] past the end of the tensor.
  Builder b;
  b.input("x", DType::UInt8, {1, 1, 2, 2});
  b.constant("sx", testing::scalar_f(0.5f)).constant("zx", testing::scalar_u8(10));
  b.constant("w", Tensor::zeros(DType::Int8, {4, 1, 1, 1}));
  b.constant("sw", testing::scalar_f(0.25f)).constant("zw", Tensor::zeros(DType::Int8, {2}));
  b.constant("sy", testing::scalar_f(0.1f)).constant("zy", testing::scalar_u8(5));
  b.node("QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy"}, {"y"}, {}, "",
         {{DType::UInt8, graph::Shape{1, 4, 2, 2}}});
  const graph::Graph g = b.done({"y"});
  const TensorMap in{{"x", Tensor::zeros(DType::UInt8, {1, 1, 2, 2})}};
  try {
    (void)run_reference(g, in);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("(zero point) has 2 values, expected 1 or 4"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)Engine(g), UserError);
}

// Four uint8 elements as a 1x4 tensor.
Tensor u8x4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  Tensor t = Tensor::zeros(DType::UInt8, {1, 4});
  const uint8_t v[4] = {a, b, c, d};
  std::memcpy(t.bytes.data(), v, 4);
  return t;
}

std::vector<int> ints_of(const Tensor& t) {
  std::vector<int> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<int>(t.at(i)));
  return v;
}

// Scales are powers of two, so every value below is exact in float and the ties are true ties.
// hetcim computes QLinearAdd/QLinearMul as ONNX Runtime's x86 kernels do (exec/kernels.h): the
// output zero point is added before rounding half to even, so an odd zero point moves a tie.
TEST(Reference, QLinearAddAndMulByHand) {
  Builder b;
  b.input("a", DType::UInt8, {1, 4});
  b.input("b", DType::UInt8, {1, 4});
  b.constant("sa", testing::scalar_f(0.5f)).constant("za", testing::scalar_u8(10));
  b.constant("sb", testing::scalar_f(0.25f)).constant("zb", testing::scalar_u8(20));
  b.constant("sy", testing::scalar_f(0.5f)).constant("zy", testing::scalar_u8(5));
  const graph::TensorInfo out{DType::UInt8, graph::Shape{1, 4}};
  b.node("QLinearAdd", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"add"}, {}, "com.microsoft",
         {out});
  b.node("QLinearMul", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"mul"}, {}, "com.microsoft",
         {out});
  const graph::Graph g = b.done({"add", "mul"});
  // a = 0.5 * (a_q - 10): {0, 1.5, 122.5, -5}; b = 0.25 * (b_q - 20): {0.25, 0.5, 58.75, 58.75}.
  const TensorMap in{{"a", u8x4(10, 13, 255, 0)}, {"b", u8x4(21, 22, 255, 255)}};
  // add: {0.25, 2, 181.25, 53.75} / 0.5 + 5 = {5.5, 9, 367.5, 112.5}
  //   -> round half to even {6, 9, 368 -> 255 (saturated), 112}
  //   (rounding before the zero point would give {5, 9, 255, 113})
  // mul: {0, 0.75, 7196.875, -293.75} / 0.5 + 5 = {5, 6.5, 14398.75, -582.5}
  //   -> {5, 6, 255 (saturated), 0 (saturated)}
  const std::vector<int> add{6, 9, 255, 112}, mul{5, 6, 255, 0};
  const TensorMap ref = run_reference(g, in);
  EXPECT_EQ(ints_of(ref.at("add")), add);
  EXPECT_EQ(ints_of(ref.at("mul")), mul);
  const TensorMap eng = Engine(g).run(in);
  EXPECT_EQ(ints_of(eng.at("add")), add);
  EXPECT_EQ(ints_of(eng.at("mul")), mul);
  // Ties in mul: (15-10)(22-20) * 0.125 / 0.5 + 5 = 7.5 -> 8 (half to even after the zero point;
  // 2 + 5 = 7 before it). Add: a = 11, b = 21: 0.5 + 0.25 = 0.75 / 0.5 + 5 = 6.5 -> 6.
  const TensorMap tin{{"a", u8x4(15, 11, 10, 10)}, {"b", u8x4(22, 21, 20, 20)}};
  for (const TensorMap& tie : {run_reference(g, tin), Engine(g).run(tin)}) {
    EXPECT_EQ(ints_of(tie.at("mul"))[0], 8);
    EXPECT_EQ(ints_of(tie.at("add"))[1], 6);
  }
}

// QLinearAdd and QLinearMul on all 65,536 pairs of bytes (the engine's vector kernel for this
// CPU, and its scalar tail, against the reference interpreter's scalar formula), with a fused
// Relu, for scales that are not powers of two and for the scales of the ties test below (0.1, 0.1,
// 0.2), where sums land on .5 after the zero point and the order of the fused multiply-adds
// decides the rounding.
TEST(Reference, QLinearAddAndMulEveryPairOfBytes) {
  struct Scales {
    float sa, sb, sy;
    uint8_t za, zb, zy;
  };
  for (const Scales& q :
       {Scales{0.037f, 0.052f, 0.061f, 121, 7, 133}, Scales{0.1f, 0.1f, 0.2f, 3, 250, 5}}) {
    SCOPED_TRACE(q.sa);
    Builder b;
    b.input("a", DType::UInt8, {1, 65541});  // 65,536 pairs and a tail of 5
    b.input("b", DType::UInt8, {1, 65541});
    b.constant("sa", testing::scalar_f(q.sa)).constant("za", testing::scalar_u8(q.za));
    b.constant("sb", testing::scalar_f(q.sb)).constant("zb", testing::scalar_u8(q.zb));
    b.constant("sy", testing::scalar_f(q.sy)).constant("zy", testing::scalar_u8(q.zy));
    b.constant("sm", testing::scalar_f(0.5f));
    const graph::TensorInfo out{DType::UInt8, graph::Shape{1, 65541}};
    b.node("QLinearAdd", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"add"}, {},
           "com.microsoft", {out});
    b.node("QLinearAdd", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"add_relu"},
           A{{"activation", std::string("Relu")}}, "com.microsoft", {out});
    b.node("QLinearMul", {"a", "sa", "za", "b", "sb", "zb", "sm", "zy"}, {"mul"}, {},
           "com.microsoft", {out});
    const graph::Graph g = b.done({"add", "add_relu", "mul"});
    Tensor x = Tensor::zeros(DType::UInt8, {1, 65541}), z = Tensor::zeros(DType::UInt8, {1, 65541});
    for (int i = 0; i < 65541; ++i) {
      x.data<uint8_t>()[i] = static_cast<uint8_t>((i >> 8) & 255);
      z.data<uint8_t>()[i] = static_cast<uint8_t>(i * 7);
    }
    const TensorMap in{{"a", x}, {"b", z}};
    const TensorMap ref = run_reference(g, in), eng = Engine(g).run(in);
    for (const char* y : {"add", "add_relu", "mul"})
      EXPECT_EQ(eng.at(y).bytes, ref.at(y).bytes) << y;
  }
}

// Scales that are not powers of two: values computed by onnxruntime-node 1.30 (x86, AVX-512
// machine, its QLinearAdd fused from DQ -> Add -> Q by its QDQ optimizer) on the same inputs; the
// exact sums are ties after the zero point (e.g. a = 7, b = 247: 0.1 (7 - 3) + 0.1 (247 - 250) =
// 0.1, / 0.2 = 0.5, + 5 = 5.5 -> 6), which ORT's float arithmetic resolves as listed.
TEST(Reference, QLinearAddMatchesOnnxRuntimeOnTies) {
  Builder b;
  b.input("a", DType::UInt8, {1, 4});
  b.input("b", DType::UInt8, {1, 4});
  b.constant("sa", testing::scalar_f(0.1f)).constant("za", testing::scalar_u8(3));
  b.constant("sb", testing::scalar_f(0.1f)).constant("zb", testing::scalar_u8(250));
  b.constant("sy", testing::scalar_f(0.2f)).constant("zy", testing::scalar_u8(5));
  b.node("QLinearAdd", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"add"}, {}, "com.microsoft",
         {{DType::UInt8, graph::Shape{1, 4}}});
  const graph::Graph g = b.done({"add"});
  const TensorMap in{{"a", u8x4(7, 14, 21, 28)}, {"b", u8x4(247, 234, 247, 234)}};
  const std::vector<int> ort{6, 2, 12, 10};  // hetcim before issue #10: {5, 3, 13, 9}
  EXPECT_EQ(ints_of(run_reference(g, in).at("add")), ort);
  EXPECT_EQ(ints_of(Engine(g).run(in).at("add")), ort);
}

// A single-valued operand on either side (the engine's table path) and a per-row operand (its
// strided path) give the same hand-computed values in both engines.
TEST(Reference, QLinearAddBroadcastByHand) {
  Builder b;
  b.input("a", DType::UInt8, {2, 4});
  b.input("s", DType::UInt8, {1});
  b.input("r", DType::UInt8, {2, 1});
  b.constant("sa", testing::scalar_f(0.5f)).constant("za", testing::scalar_u8(10));
  b.constant("sb", testing::scalar_f(0.25f)).constant("zb", testing::scalar_u8(20));
  b.constant("sy", testing::scalar_f(0.5f)).constant("zy", testing::scalar_u8(5));
  const graph::TensorInfo out{DType::UInt8, graph::Shape{2, 4}};
  b.node("QLinearAdd", {"a", "sa", "za", "s", "sb", "zb", "sy", "zy"}, {"as"}, {}, "com.microsoft",
         {out});
  b.node("QLinearAdd", {"s", "sb", "zb", "a", "sa", "za", "sy", "zy"}, {"sa_"}, {}, "com.microsoft",
         {out});
  b.node("QLinearAdd", {"r", "sb", "zb", "a", "sa", "za", "sy", "zy"}, {"ra"}, {}, "com.microsoft",
         {out});
  const graph::Graph g = b.done({"as", "sa_", "ra"});
  Tensor a = Tensor::zeros(DType::UInt8, {2, 4});
  const uint8_t av[8] = {10, 11, 12, 0, 20, 30, 255, 9};
  std::memcpy(a.bytes.data(), av, 8);
  Tensor s = Tensor::zeros(DType::UInt8, {1});
  s.bytes[0] = 22;  // 0.25 * 2 = 0.5
  Tensor r = Tensor::zeros(DType::UInt8, {2, 1});
  r.bytes[0] = 21;  // 0.25
  r.bytes[1] = 16;  // -1
  const TensorMap in{{"a", a}, {"s", s}, {"r", r}};
  // a = 0.5 (a_q - 10) = {0, 0.5, 1, -5 | 5, 10, 122.5, -0.5}; y = (a + x) / 0.5 + 5
  // x = 0.5: {1, 2, 3, -9 | 11, 21, 246, 0} + 5 -> {6, 7, 8, 0 (saturated) | 16, 26, 251, 5}
  const std::vector<int> with_s{6, 7, 8, 0, 16, 26, 251, 5};
  // row x = {0.25 | -1}: {0.25, 0.75, 1.25, -4.75 | 4, 9, 121.5, -1.5} / 0.5 + 5
  //   = {5.5, 6.5, 7.5, -4.5 | 13, 23, 248, 2} -> {6, 6, 8, 0 | 13, 23, 248, 2}
  const std::vector<int> with_r{6, 6, 8, 0, 13, 23, 248, 2};
  for (const TensorMap& y : {run_reference(g, in), Engine(g).run(in)}) {
    EXPECT_EQ(ints_of(y.at("as")), with_s);
    EXPECT_EQ(ints_of(y.at("sa_")), with_s);
    EXPECT_EQ(ints_of(y.at("ra")), with_r);
  }
}

TEST(Reference, QLinearSigmoidByHand) {
  Builder b;
  b.input("x", DType::UInt8, {1, 4});
  b.constant("sx", testing::scalar_f(0.5f)).constant("zx", testing::scalar_u8(128));
  b.constant("sy", testing::scalar_f(1.0f / 256.0f)).constant("zy", testing::scalar_u8(0));
  b.node("QLinearSigmoid", {"x", "sx", "zx", "sy", "zy"}, {"y"}, {}, "com.microsoft",
         {{DType::UInt8, graph::Shape{1, 4}}});
  const graph::Graph g = b.done({"y"});
  // x = {0, 1, 63.5, -64}: sigmoid * 256 = {128, 187.15, 256 - 4.5e-26, 4.1e-26}
  //   -> {128, 187, 255 (256 saturated), 0}
  const TensorMap in{{"x", u8x4(128, 130, 255, 0)}};
  const std::vector<int> want{128, 187, 255, 0};
  EXPECT_EQ(ints_of(run_reference(g, in).at("y")), want);
  EXPECT_EQ(ints_of(Engine(g).run(in).at("y")), want);
}

// QLinearSigmoid with output zero points: ONNX Runtime builds a 256-entry table by dequantizing,
// applying the sigmoid and quantizing with MlasQuantizeLinear, which rounds x / scale half to even
// and then adds the zero point (read from ORT's source, not measured); hetcim's table does the
// same (quantize.h).
TEST(Reference, QLinearSigmoidZeroPointsAndTiesByHand) {
  Builder b;
  b.input("x", DType::UInt8, {1, 4});
  b.constant("sx", testing::scalar_f(1.0f)).constant("zx", testing::scalar_u8(128));
  b.constant("s1", testing::scalar_f(1.0f)).constant("z1", testing::scalar_u8(3));
  b.constant("s2", testing::scalar_f(1.0f / 256.0f)).constant("z2", testing::scalar_u8(200));
  const graph::TensorInfo out{DType::UInt8, graph::Shape{1, 4}};
  b.node("QLinearSigmoid", {"x", "sx", "zx", "s1", "z1"}, {"y1"}, {}, "com.microsoft", {out});
  b.node("QLinearSigmoid", {"x", "sx", "zx", "s2", "z2"}, {"y2"}, {}, "com.microsoft", {out});
  const graph::Graph g = b.done({"y1", "y2"});
  // x = {0, 127, -128, 1}: sigmoid = {0.5, 1 - 7e-56, 2.6e-56, 0.731}
  const TensorMap in{{"x", u8x4(128, 255, 0, 129)}};
  // scale 1, zero point 3: {0.5 -> 0 (tie, half to even), 1, 0, 0.73 -> 1} + 3 = {3, 4, 3, 4}
  // scale 1/256, zero point 200: {128, 256, 0, 187.1 -> 187} + 200 = {255, 255, 200, 255}
  //   (328, 456 and 387 saturate)
  const std::vector<int> want1{3, 4, 3, 4}, want2{255, 255, 200, 255};
  for (const TensorMap& y : {run_reference(g, in), Engine(g).run(in)}) {
    EXPECT_EQ(ints_of(y.at("y1")), want1);
    EXPECT_EQ(ints_of(y.at("y2")), want2);
  }
}

// The operators of the engine's host-kernel table (exec/host_kernels), by hand, in both engines.
TEST(Reference, HostKernelOperatorsByHand) {
  Builder b;
  b.input("x", DType::Float32, {1, 2, 1, 2});  // {1, 3 | 4, 6}: channel 0 = {1, 3}, 1 = {4, 6}
  b.constant("scale", Tensor::from_floats({2}, {1, 2}))
      .constant("bias", Tensor::from_floats({2}, {0, 1}))
      .constant("mean", Tensor::from_floats({2}, {2, 2}))
      .constant("var", Tensor::from_floats({2}, {4, 1}));
  b.constant("ln_scale", Tensor::from_floats({2}, {2, 2}))
      .constant("ln_bias", Tensor::from_floats({2}, {1, 1}));
  Tensor pads = Tensor::zeros(DType::Int64, {8});
  pads.data<int64_t>()[3] = 1;  // one before and two after on the last axis
  pads.data<int64_t>()[7] = 2;
  b.constant("pads", pads).constant("pad_value", testing::scalar_f(9.0f));
  Tensor idx = Tensor::zeros(DType::Int64, {});
  idx.data<int64_t>()[0] = 1;
  b.constant("idx", idx);
  b.node("ReduceMean", {"x"}, {"rm"}, A{{"axes", Ints{3}}});
  b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"bn"}, A{{"epsilon", 0.0}});
  b.node("LayerNormalization", {"x", "ln_scale", "ln_bias"}, {"ln"}, A{{"epsilon", 0.0}});
  b.node("Pad", {"x", "pads", "pad_value"}, {"pad"});
  b.node("Gather", {"x", "idx"}, {"gather"}, A{{"axis", int64_t{1}}});
  b.node("Erf", {"x"}, {"erf"});
  b.node("Sqrt", {"x"}, {"sqrt"});
  const graph::Graph g = b.done({"rm", "bn", "ln", "pad", "gather", "erf", "sqrt"});
  const TensorMap in{{"x", Tensor::from_floats({1, 2, 1, 2}, {1, 3, 4, 6})}};
  for (const TensorMap& out : {run_reference(g, in), Engine(g).run(in)}) {
    EXPECT_EQ(out.at("rm").floats(), (std::vector<float>{2, 5}));
    // (x - mean) / sqrt(var) * scale + B: (1-2)/2, (3-2)/2; ((4-2)/1, (6-2)/1) * 2 + 1
    EXPECT_EQ(out.at("bn").floats(), (std::vector<float>{-0.5f, 0.5f, 5, 9}));
    // rows {1, 3} and {4, 6}: mean 2 / 5, variance 1: {-1, 1} * 2 + 1
    EXPECT_EQ(out.at("ln").floats(), (std::vector<float>{-1, 3, -1, 3}));
    EXPECT_EQ(out.at("pad").floats(), (std::vector<float>{9, 1, 3, 9, 9, 9, 4, 6, 9, 9}));
    EXPECT_EQ(out.at("pad").shape, (graph::Shape{1, 2, 1, 5}));
    EXPECT_EQ(out.at("gather").floats(), (std::vector<float>{4, 6}));
    EXPECT_EQ(out.at("gather").shape, (graph::Shape{1, 1, 2}));
    EXPECT_NEAR(out.at("erf").floats()[0], 0.8427008f, 1e-6);   // erf(1)
    EXPECT_NEAR(out.at("sqrt").floats()[3], 2.4494897f, 1e-6);  // sqrt(6)
  }
}

TEST(Reference, PoolingByHand) {
  Builder b;
  b.input("x", DType::Float32, {1, 1, 2, 2});
  b.node("MaxPool", {"x"}, {"m"}, A{{"kernel_shape", Ints{2, 2}}});
  b.node("AveragePool", {"x"}, {"a"}, A{{"kernel_shape", Ints{2, 2}}, {"pads", Ints{1, 1, 0, 0}}});
  const graph::Graph g = b.done({"m", "a"});
  const TensorMap out = run_reference(g, {{"x", Tensor::from_floats({1, 1, 2, 2}, {1, 2, 3, 4})}});
  EXPECT_EQ(out.at("m").floats(), std::vector<float>{4});
  // count_include_pad = 0: windows over the top-left padding average only real values.
  EXPECT_EQ(out.at("a").floats(), (std::vector<float>{1, 1.5f, 2, 2.5f}));
}

TEST(Reference, ResizeNearestAsymmetricByHand) {
  Builder b;
  b.input("x", DType::Float32, {1, 1, 1, 2});
  b.constant("roi", Tensor::from_floats({0}, {}));
  b.constant("scales", Tensor::from_floats({4}, {1, 1, 2, 2}));
  b.node("Resize", {"x", "roi", "scales"}, {"y"},
         A{{"mode", std::string("nearest")},
           {"coordinate_transformation_mode", std::string("asymmetric")},
           {"nearest_mode", std::string("floor")}});
  const graph::Graph g = b.done({"y"});
  const TensorMap out = run_reference(g, {{"x", Tensor::from_floats({1, 1, 1, 2}, {1, 2})}});
  EXPECT_EQ(out.at("y").floats(), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2}));
}

// ---- engine versus reference: float ---------------------------------------------------------

struct ConvCase {
  const char* name;
  int64_t c, m, h, k, stride, pad, dil, group;
  const char* act;
};

class ConvF32 : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvF32, MatchesReference) {
  const ConvCase p = GetParam();
  Builder b;
  b.input("x", DType::Float32, {2, p.c, p.h, p.h});
  b.constant("w", random_tensor(DType::Float32, {p.m, p.c / p.group, p.k, p.k}, 5));
  b.constant("b", random_tensor(DType::Float32, {p.m}, 6));
  A attrs{{"strides", Ints{p.stride, p.stride}},
          {"pads", Ints{p.pad, p.pad, p.pad, p.pad}},
          {"dilations", Ints{p.dil, p.dil}},
          {"group", p.group}};
  if (std::string(p.act) == "Relu") attrs["activation"] = std::string("Relu");
  if (std::string(p.act) == "Clip") {
    attrs["activation"] = std::string("Clip");
    attrs["activation_min"] = 0.0;
    attrs["activation_max"] = 0.5;
  }
  b.node("Conv", {"x", "w", "b"}, {"y"}, attrs);
  both_thread_counts(b.done({"y"}));
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvF32,
                         ::testing::Values(ConvCase{"k3", 16, 32, 9, 3, 1, 1, 1, 1, ""},
                                           ConvCase{"k1s2", 32, 16, 8, 1, 2, 0, 1, 1, "Relu"},
                                           ConvCase{"rgb7x7", 3, 16, 15, 7, 2, 3, 1, 1, "Relu"},
                                           ConvCase{"depthwise", 24, 24, 9, 3, 1, 1, 1, 24, "Clip"},
                                           ConvCase{"grouped", 16, 32, 7, 3, 2, 1, 1, 4, ""},
                                           ConvCase{"dilated", 8, 8, 11, 3, 1, 2, 2, 1, ""}),
                         [](const auto& info) { return std::string(info.param.name); });

// DenseNet's pre-activation pattern, Concat -> BatchNormalization -> Relu -> Conv, with the
// convolutions' own layouts (oneDNN's BatchNormalization takes its producer's layout), and
// HardSigmoid (hand-written kernel) on a convolution's output: both against the reference.
TEST(EngineF32, BatchNormBetweenConvolutionsMatchesReference) {
  Builder b;
  b.input("x", DType::Float32, {1, 8, 9, 9});
  b.constant("w1", random_tensor(DType::Float32, {24, 8, 3, 3}, 51))
      .constant("w2", random_tensor(DType::Float32, {16, 32, 1, 1}, 52));
  b.constant("scale", random_tensor(DType::Float32, {32}, 53))
      .constant("bias", random_tensor(DType::Float32, {32}, 54))
      .constant("mean", random_tensor(DType::Float32, {32}, 55))
      .constant("var", random_tensor(DType::Float32, {32}, 56, 0.5, 2));
  b.node("Conv", {"x", "w1"}, {"c1"}, A{{"pads", Ints{1, 1, 1, 1}}}, "",
         {{DType::Float32, graph::Shape{1, 24, 9, 9}}});
  b.node("Concat", {"c1", "x"}, {"cat"}, A{{"axis", int64_t{1}}}, "",
         {{DType::Float32, graph::Shape{1, 32, 9, 9}}});
  b.node("BatchNormalization", {"cat", "scale", "bias", "mean", "var"}, {"bn"}, {}, "",
         {{DType::Float32, graph::Shape{1, 32, 9, 9}}});
  b.node("Relu", {"bn"}, {"r"}, {}, "", {{DType::Float32, graph::Shape{1, 32, 9, 9}}});
  b.node("Conv", {"r", "w2"}, {"c2"}, {}, "", {{DType::Float32, graph::Shape{1, 16, 9, 9}}});
  b.node("HardSigmoid", {"c2"}, {"hs"}, A{{"alpha", 1.0 / 6.0}, {"beta", 0.5}}, "",
         {{DType::Float32, graph::Shape{1, 16, 9, 9}}});
  both_thread_counts(b.done({"hs"}));
}

TEST(EngineF32, HostKernelOperatorsMatchReference) {
  Builder b;
  b.input("x", DType::Float32, {2, 6, 5, 7});
  b.constant("scale", random_tensor(DType::Float32, {6}, 21))
      .constant("bias", random_tensor(DType::Float32, {6}, 22))
      .constant("mean", random_tensor(DType::Float32, {6}, 23))
      .constant("var", random_tensor(DType::Float32, {6}, 24, 0.5, 2));
  b.constant("ln_scale", random_tensor(DType::Float32, {5, 7}, 25))
      .constant("ln_bias", random_tensor(DType::Float32, {5, 7}, 26));
  Tensor pads = Tensor::zeros(DType::Int64, {8});
  pads.data<int64_t>()[2] = 1;
  pads.data<int64_t>()[3] = 2;
  pads.data<int64_t>()[6] = 3;
  pads.data<int64_t>()[7] = -1;  // a negative pad crops
  b.constant("pads", pads);
  Tensor idx = Tensor::zeros(DType::Int64, {2});
  idx.data<int64_t>()[0] = 3;
  idx.data<int64_t>()[1] = -1;
  b.constant("idx", idx);
  b.node("ReduceMean", {"x"}, {"rm"}, A{{"axes", Ints{1, 3}}, {"keepdims", int64_t{0}}});
  b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"bn"});
  b.node("LayerNormalization", {"x", "ln_scale", "ln_bias"}, {"ln"}, A{{"axis", int64_t{-2}}});
  b.node("Pad", {"x", "pads"}, {"pad"});
  b.node("Gather", {"x", "idx"}, {"gather"}, A{{"axis", int64_t{1}}});
  b.node("Erf", {"x"}, {"erf"});
  b.node("Mul", {"x", "x"}, {"sq"});
  b.node("Sqrt", {"sq"}, {"sqrt"});
  // Innermost axes (the contiguous-row kernel): 35 per row (unrolled part and tail), 7 per row.
  b.node("ReduceMean", {"x"}, {"rm_hw"}, A{{"axes", Ints{2, 3}}});
  b.node("ReduceMean", {"x"}, {"rm_w"}, A{{"axes", Ints{-1}}, {"keepdims", int64_t{0}}});
  both_thread_counts(b.done({"rm", "bn", "ln", "pad", "gather", "erf", "sqrt", "rm_hw", "rm_w"}));
}

TEST(EngineF32, GemmMatMulAndBinaryOps) {
  Builder b;
  b.input("a", DType::Float32, {3, 20});
  b.input("c", DType::Float32, {2, 3, 5});
  b.constant("w", random_tensor(DType::Float32, {7, 20}, 9));
  b.constant("bias", random_tensor(DType::Float32, {7}, 10));
  b.constant("m", random_tensor(DType::Float32, {5, 4}, 11));
  b.constant("row", random_tensor(DType::Float32, {1, 4}, 12, 0.5, 2));
  b.node("Gemm", {"a", "w", "bias"}, {"g"},
         A{{"transB", int64_t{1}}, {"alpha", 0.5}, {"activation", std::string("Relu")}});
  b.node("Gemm", {"a", "w"}, {"g2"}, A{{"transB", int64_t{1}}});
  b.node("MatMul", {"c", "m"}, {"mm"});
  b.node("Add", {"mm", "row"}, {"add"});
  b.node("Sub", {"row", "mm"}, {"sub"});  // first operand broadcasts: generic kernel
  b.node("Mul", {"row", "mm"}, {"mul"});  // commutative: swapped into oneDNN binary
  b.node("Div", {"mm", "row"}, {"div"});
  b.node("Pow", {"row", "row"}, {"pow"});
  b.constant("two", testing::scalar_f(2.0f));
  b.node("Pow", {"mm", "two"}, {"sq"});
  both_thread_counts(b.done({"g", "g2", "add", "sub", "mul", "div", "pow", "sq"}));
}

TEST(EngineF32, ElementwiseAndPooling) {
  Builder b;
  b.input("x", DType::Float32, {1, 16, 9, 9});
  b.node("Relu", {"x"}, {"relu"});
  b.node("Sigmoid", {"x"}, {"sig"});
  b.node("Tanh", {"x"}, {"tanh"});
  b.node("LeakyRelu", {"x"}, {"leaky"}, A{{"alpha", 0.1}});
  b.constant("lo", testing::scalar_f(-0.25f)).constant("hi", testing::scalar_f(0.5f));
  b.node("Clip", {"x", "lo", "hi"}, {"clip"});
  b.node("HardSigmoid", {"x"}, {"hsig"});
  b.node("HardSwish", {"x"}, {"hswish"});
  b.node("MaxPool", {"x"}, {"mp"},
         A{{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  b.node("MaxPool", {"x"}, {"mpc"},
         A{{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}});
  b.node("AveragePool", {"x"}, {"ap"}, A{{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}});
  b.node("AveragePool", {"x"}, {"api"},
         A{{"kernel_shape", Ints{3, 3}},
           {"pads", Ints{1, 1, 1, 1}},
           {"count_include_pad", int64_t{1}}});
  b.node("GlobalAveragePool", {"x"}, {"gap"});
  b.node("GlobalMaxPool", {"x"}, {"gmp"});
  both_thread_counts(b.done({"relu", "sig", "tanh", "leaky", "clip", "hsig", "hswish", "mp", "mpc",
                             "ap", "api", "gap", "gmp"}),
                     2e-5);
}

// The engine's own Sigmoid kernel over its whole range (saturation included), 1e-6 absolute.
TEST(EngineF32, SigmoidOverAWideRange) {
  Builder b;
  b.input("x", DType::Float32, {1, 3, 17, 19});  // 969 elements: vector body and scalar tail
  b.node("Sigmoid", {"x"}, {"y"});
  const graph::Graph g = b.done({"y"});
  Tensor x = random_tensor(DType::Float32, {1, 3, 17, 19}, 77, -30, 30);
  x.data<float>()[0] = -100.0f;
  x.data<float>()[1] = 100.0f;
  x.data<float>()[2] = 0.0f;
  const Tensor want = run_reference(g, {{"x", x}}).at("y");
  const Tensor got = Engine(g).run({{"x", x}}).at("y");
  double worst = 0;
  for (int64_t i = 0; i < x.numel(); ++i)
    worst = std::max(worst, std::fabs(got.at(i) - want.at(i)));
  EXPECT_LE(worst, 1e-6);
  EXPECT_EQ(got.at(2), 0.5);
}

// Relative error where the sigmoid is small: an absolute bound does not see a wrong exponent
// 2^k there. Against 1 / (1 + exp(-x)) in double, for x in [-87, 87] (sigmoid >= 1.6e-38, a
// normal float), and the SiLU x * sigmoid(x) of the fused Sigmoid -> Mul.
TEST(EngineF32, SigmoidAndSiluRelativeErrorInTheTails) {
  Builder b;
  b.input("x", DType::Float32, {1, 1, 1, 1749});  // 1749 = 109 x 16 + 5: vector body and tail
  b.node("Sigmoid", {"x"}, {"s"});
  b.node("Mul", {"x", "s"}, {"y"});
  const graph::Graph g = b.done({"y"});
  Tensor x = Tensor::zeros(DType::Float32, {1, 1, 1, 1749});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = -87.0f + 174.0f * static_cast<float>(i) / 1748.0f;
  const Tensor got = Engine(g).run({{"x", x}}).at("y");
  double worst = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.at(i);
    const double want = v / (1.0 + std::exp(-v));
    if (want != 0) worst = std::max(worst, std::fabs(got.at(i) - want) / std::fabs(want));
  }
  EXPECT_LE(worst, 1e-6);
}

// A squeeze-excitation Mul: a convolution's output (oneDNN's channel-blocked layout) times a
// per-channel [1, C, 1, 1] gate. Runs a vectorized kernel, not oneDNN's reference one (which
// its AVX2 binary kernels fall back to for a plain gate: 300x slower), for C a multiple of the
// block and not (20: padded blocks), and equals the reference interpreter.
TEST(EngineF32, ChannelGateMulRunsAVectorKernel) {
  for (const int64_t c : {32, 20}) {
    SCOPED_TRACE(c);
    Builder b;
    b.input("x", DType::Float32, {1, 8, 12, 12});
    b.constant("w", random_tensor(DType::Float32, {c, 8, 3, 3}, 5));
    b.node("Conv", {"x", "w"}, {"f"}, A{{"pads", Ints{1, 1, 1, 1}}});
    b.node("GlobalAveragePool", {"f"}, {"p"});
    b.node("Sigmoid", {"p"}, {"gate"});
    b.node("Mul", {"f", "gate"}, {"y"});
    const graph::Graph g = b.done({"y"});
    both_thread_counts(g);
    const Engine e(g);
    for (const OpInfo& o : e.ops()) {
      if (o.op_type == "Mul") {
        EXPECT_NE(o.impl.rfind("ref", 0), 0u) << o.impl;
      }
    }
  }
}

// A channel Concat of convolution outputs (oneDNN's channel-blocked layout, 8 or 16 channels a
// block on x86) over two images: whole blocks (16 + 32 channels) are copied slab by slab, a
// partial block (16 + 20) goes to oneDNN's concat; both equal the reference interpreter.
TEST(EngineF32, ChannelConcatOfBlockedTensors) {
  for (const int64_t c2 : {32, 20}) {
    SCOPED_TRACE(c2);
    Builder b;
    b.input("x", DType::Float32, {2, 8, 10, 10});
    b.constant("w1", random_tensor(DType::Float32, {16, 8, 3, 3}, 6));
    b.constant("w2", random_tensor(DType::Float32, {c2, 8, 1, 1}, 7));
    b.node("Conv", {"x", "w1"}, {"f1"}, A{{"pads", Ints{1, 1, 1, 1}}});
    b.node("Conv", {"x", "w2"}, {"f2"});
    b.node("Concat", {"f1", "f2", "f1"}, {"y"}, A{{"axis", int64_t{1}}});
    const graph::Graph g = b.done({"y"});
    both_thread_counts(g);
    const Engine e(g);
    for (const OpInfo& o : e.ops()) {
      if (o.op_type == "Concat" && c2 == 32 && o.layout == "blocked") {
        EXPECT_EQ(o.impl, "hetcim:concat_blocked");
      }
    }
  }
}

TEST(EngineF32, DataMovement) {
  Builder b;
  b.input("x", DType::Float32, {1, 8, 6, 6});
  b.constant("w", random_tensor(DType::Float32, {8, 8, 1, 1}, 4));
  b.node("Conv", {"x", "w"}, {"c"});  // blocked layout feeding the data-movement ops
  b.node("Concat", {"c", "x"}, {"cat"}, A{{"axis", int64_t{1}}});
  b.constant("split", Tensor::zeros(DType::Int64, {2}));
  graph::Initializer sp = graph::Initializer::from_ints({2}, {3, 5});
  b.constant("sizes", Tensor::from_initializer(sp, "sizes"));
  b.node("Split", {"c", "sizes"}, {"s0", "s1"}, A{{"axis", int64_t{1}}});
  b.constant("starts",
             Tensor::from_initializer(graph::Initializer::from_ints({2}, {1, 5}), "starts"));
  b.constant("ends", Tensor::from_initializer(graph::Initializer::from_ints({2}, {6, 0}), "ends"));
  b.constant("axes", Tensor::from_initializer(graph::Initializer::from_ints({2}, {2, 3}), "axes"));
  b.constant("steps",
             Tensor::from_initializer(graph::Initializer::from_ints({2}, {2, -2}), "steps"));
  b.node("Slice", {"c", "starts", "ends", "axes", "steps"}, {"sl"});
  b.constant("roi", Tensor::from_floats({0}, {}));
  b.constant("scales", Tensor::from_floats({4}, {1, 1, 2, 2}));
  b.node("Resize", {"c", "roi", "scales"}, {"rs"}, A{{"mode", std::string("nearest")}});
  b.node("Flatten", {"c"}, {"fl"}, A{{"axis", int64_t{1}}});
  b.constant("shape",
             Tensor::from_initializer(graph::Initializer::from_ints({3}, {1, 8, 36}), "shape"));
  b.node("Reshape", {"c", "shape"}, {"rsh"});
  b.node("Transpose", {"rsh"}, {"tr"}, A{{"perm", Ints{0, 2, 1}}});
  b.node("Softmax", {"tr"}, {"sm"}, A{{"axis", int64_t{-1}}});
  both_thread_counts(b.done({"cat", "s0", "s1", "sl", "rs", "fl", "tr", "sm"}));
}

// ---- engine versus reference: int8 (exact) --------------------------------------------------

// Nearest Resize of uint8 data (an int8 network's upsampling), 2x and 3x along H and W.
TEST(EngineInt8, ResizeNearestExact) {
  Builder b;
  b.input("x", DType::UInt8, {1, 3, 5, 7});
  b.constant("roi", Tensor::from_floats({0}, {}));
  b.constant("s2", Tensor::from_floats({4}, {1, 1, 2, 2}));
  b.constant("s3", Tensor::from_floats({4}, {1, 1, 3, 2}));
  b.node("Resize", {"x", "roi", "s2"}, {"y2"}, A{{"mode", std::string("nearest")}});
  b.node("Resize", {"x", "roi", "s3"}, {"y3"}, A{{"mode", std::string("nearest")}});
  both_thread_counts(b.done({"y2", "y3"}));
}

// A QLinearConv with per-channel weight scales, non-zero input/output zero points and a bias.
graph::Graph qconv_graph(int64_t c, int64_t m, int64_t h, int64_t k, int64_t stride, int64_t pad,
                         int64_t group, const std::string& act) {
  Builder b;
  b.input("x", DType::UInt8, {1, c, h, h});
  b.constant("sx", testing::scalar_f(0.02f)).constant("zx", testing::scalar_u8(117));
  b.constant("w", random_tensor(DType::Int8, {m, c / group, k, k}, 21, -127, 127));
  b.constant("sw", random_tensor(DType::Float32, {m}, 22, 0.001, 0.01));
  Tensor zw = Tensor::zeros(DType::Int8, {m});
  b.constant("zw", zw);
  b.constant("sy", testing::scalar_f(0.05f)).constant("zy", testing::scalar_u8(90));
  b.constant("bias", random_tensor(DType::Int32, {m}, 23, -2000, 2000));
  const int64_t oh = (h + 2 * pad - k) / stride + 1;
  A attrs{{"strides", Ints{stride, stride}},
          {"pads", Ints{pad, pad, pad, pad}},
          {"group", group},
          {"kernel_shape", Ints{k, k}}};
  if (act == "Relu") attrs["activation"] = std::string("Relu");
  if (act == "Clip") {
    attrs["activation"] = std::string("Clip");
    attrs["activation_min"] = 0.0;
    attrs["activation_max"] = 3.0;
  }
  b.node("QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "bias"}, {"y"}, attrs, "",
         {{DType::UInt8, graph::Shape{1, m, oh, oh}}});
  return b.done({"y"});
}

TEST(EngineInt8, QLinearConvExact) {
  for (const auto& [c, m, h, k, s, p, g, act] : std::vector<
           std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, std::string>>{
           {16, 32, 10, 3, 1, 1, 1, ""},
           {32, 16, 8, 1, 1, 0, 1, "Relu"},
           {3, 16, 17, 7, 2, 3, 1, "Relu"},
           {32, 32, 9, 3, 2, 1, 32, "Clip"},
           {16, 32, 7, 3, 1, 1, 4, ""}}) {
    SCOPED_TRACE("conv c=" + std::to_string(c) + " m=" + std::to_string(m) +
                 " k=" + std::to_string(k) + " g=" + std::to_string(g));
    both_thread_counts(qconv_graph(c, m, h, k, s, p, g, act));
  }
}

// Activations mostly below 128 with about 1 % at 200: where int8_gemm.h runs, its blocks take the
// split kernel (vpmaddubsw on a & 127 plus the listed a >= 128; at most 3 % of a block's bytes);
// a full-range input takes the wide one. Both equal the reference interpreter.
TEST(EngineInt8, QLinearConvExactWithFewOrManyLargeActivations) {
  const graph::Graph g = qconv_graph(16, 32, 10, 3, 1, 1, 1, "Relu");
  Tensor few = random_tensor(DType::UInt8, {1, 16, 10, 10}, 51, 0, 127);
  for (int64_t i = 0; i < few.numel(); i += 97) few.data<uint8_t>()[i] = 200;
  const Tensor many = random_tensor(DType::UInt8, {1, 16, 10, 10}, 52, 0, 255);
  for (const Tensor* x : std::vector<const Tensor*>{&few, &many}) {
    const TensorMap in{{"x", *x}};
    testing::expect_engine_matches_reference(g, in, 0, 1);
    testing::expect_engine_matches_reference(g, in, 0, 2);
  }
}

// Where int16 pair sums saturate: u8 sources near 255 and weights near +-127 (2 * 255 * 127 =
// 64770 > 32767), and an s8 source with odd weights (which oneDNN rounds to even without VNNI).
// Equal to the reference interpreter's exact sums everywhere; without VNNI (int8_weight_halves)
// the kernels run as weight halves and say so. Every sum stays below 2^24.
TEST(EngineInt8, ExactWherePairSumsWouldSaturate) {
  const auto near = [](DType t, const graph::Shape& s, uint64_t seed, double lo, double hi) {
    return random_tensor(t, s, seed, lo, hi);
  };
  for (const DType xt : {DType::UInt8, DType::Int8}) {
    SCOPED_TRACE(xt == DType::UInt8 ? "u8 source" : "s8 source");
    const bool u8 = xt == DType::UInt8;
    Builder b;
    b.input("x", xt, {1, 32, 6, 6});
    b.input("xm", xt, {4, 32});
    b.constant("sx", testing::scalar_f(0.02f))
        .constant("zx", u8 ? testing::scalar_u8(0) : testing::scalar_i8(0));
    Tensor w = near(DType::Int8, {16, 32, 3, 3}, 41, 100, 127);
    for (int64_t i = 0; i < w.numel(); i += 3) w.data<int8_t>()[i] = -127;  // mixed signs
    if (!u8)  // odd weights: rounded to even without VNNI, kept whole by the halves
      for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] |= 1;
    b.constant("w", w)
        .constant("sw", testing::scalar_f(0.0004f))
        .constant("zw", testing::scalar_i8(0));
    b.constant("sy", testing::scalar_f(0.5f)).constant("zy", testing::scalar_u8(128));
    b.node("QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy"}, {"y"},
           A{{"pads", Ints{1, 1, 1, 1}}, {"kernel_shape", Ints{3, 3}}}, "",
           {{DType::UInt8, graph::Shape{1, 16, 6, 6}}});
    b.constant("m", near(DType::Int8, {32, 8}, 42, -127, -90));
    b.constant("sm", testing::scalar_f(0.0004f)).constant("zm", testing::scalar_i8(0));
    b.node("QLinearMatMul", {"xm", "sx", "zx", "m", "sm", "zm", "sy", "zy"}, {"mm"}, {}, "",
           {{DType::UInt8, graph::Shape{4, 8}}});
    const graph::Graph g = b.done({"y", "mm"});
    const TensorMap in{
        {"x", u8 ? near(xt, {1, 32, 6, 6}, 43, 230, 255) : near(xt, {1, 32, 6, 6}, 43, -128, 127)},
        {"xm", u8 ? near(xt, {4, 32}, 44, 230, 255) : near(xt, {4, 32}, 44, 100, 127)}};
    testing::expect_engine_matches_reference(g, in, 0, 1);
    testing::expect_engine_matches_reference(g, in, 0, 2);
    // Without VNNI: hetcim's one-pass kernels (exec/int8_gemm.h) where they run, unless
    // HETCIM_INT8_HALVES=1 keeps oneDNN's weight halves (the test exec_int8_halves_path).
    const char* forced = std::getenv("HETCIM_INT8_HALVES");
    const bool one_pass = int8_weight_halves() && int8_gemm::available() &&
                          !(forced != nullptr && std::string(forced) == "1");
    Engine e(g);
    for (const OpInfo& o : e.ops()) {
      EXPECT_EQ(o.impl.find("int8 weight halves") != std::string::npos,
                int8_weight_halves() && !one_pass)
          << o.name << ": " << o.impl;
      EXPECT_EQ(o.impl.find("hetcim:int8_vpmaddwd") != std::string::npos, one_pass)
          << o.name << ": " << o.impl;
    }
  }
}

TEST(EngineInt8, QGemmAndQLinearMatMulExact) {
  Builder b;
  b.input("a", DType::UInt8, {2, 40});
  b.constant("sa", testing::scalar_f(0.03f)).constant("za", testing::scalar_u8(128));
  b.constant("w", random_tensor(DType::Int8, {10, 40}, 31, -127, 127));
  b.constant("sw", random_tensor(DType::Float32, {10}, 32, 0.002, 0.02));
  b.constant("zw", Tensor::zeros(DType::Int8, {10}));
  b.constant("c", random_tensor(DType::Int32, {10}, 33, -500, 500));
  b.constant("sy", testing::scalar_f(0.07f)).constant("zy", testing::scalar_u8(100));
  b.node("QGemm", {"a", "sa", "za", "w", "sw", "zw", "c", "sy", "zy"}, {"g"},
         A{{"transB", int64_t{1}}}, "com.microsoft", {{DType::UInt8, graph::Shape{2, 10}}});
  b.constant("m", random_tensor(DType::Int8, {40, 6}, 34, -127, 127));
  b.constant("sm", testing::scalar_f(0.01f)).constant("zm", testing::scalar_i8(0));
  b.node("QLinearMatMul", {"a", "sa", "za", "m", "sm", "zm", "sy", "zy"}, {"mm"}, {}, "",
         {{DType::UInt8, graph::Shape{2, 6}}});
  both_thread_counts(b.done({"g", "mm"}));
}

TEST(EngineInt8, ElementwiseAndPoolingExact) {
  Builder b;
  b.input("a", DType::UInt8, {1, 24, 7, 9});
  b.input("b", DType::UInt8, {1, 24, 7, 9});
  b.input("v", DType::UInt8, {1, 24, 1, 1});
  b.constant("sa", testing::scalar_f(0.04f)).constant("za", testing::scalar_u8(120));
  b.constant("sb", testing::scalar_f(0.07f)).constant("zb", testing::scalar_u8(30));
  b.constant("sy", testing::scalar_f(0.09f)).constant("zy", testing::scalar_u8(70));
  const graph::TensorInfo full{DType::UInt8, graph::Shape{1, 24, 7, 9}};
  b.node("QLinearAdd", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"add"}, {}, "com.microsoft",
         {full});
  b.node("QLinearAdd", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"addr"},
         A{{"activation", std::string("Relu")}}, "com.microsoft", {full});
  b.node("QLinearMul", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"mul"}, {}, "com.microsoft",
         {full});
  b.node("QLinearMul", {"a", "sa", "za", "v", "sb", "zb", "sy", "zy"}, {"mulb"}, {},
         "com.microsoft", {full});
  b.node("QLinearSigmoid", {"a", "sa", "za", "sy", "zy"}, {"sig"}, {}, "com.microsoft", {full});
  b.node("QLinearLeakyRelu", {"a", "sa", "za", "sy", "zy"}, {"leaky"}, A{{"alpha", 0.1}},
         "com.microsoft", {full});
  b.node("QLinearGlobalAveragePool", {"a", "sa", "za", "sy", "zy"}, {"gap"}, {}, "com.microsoft",
         {{DType::UInt8, graph::Shape{1, 24, 1, 1}}});
  b.node("QLinearAveragePool", {"a", "sa", "za", "sy", "zy"}, {"ap"},
         A{{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}},
         "com.microsoft", {{DType::UInt8, graph::Shape{1, 24, 4, 5}}});
  b.node("QLinearConcat", {"sy", "zy", "a", "sa", "za", "b", "sb", "zb", "add", "sy", "zy"},
         {"cat"}, A{{"axis", int64_t{1}}}, "com.microsoft",
         {{DType::UInt8, graph::Shape{1, 72, 7, 9}}});
  b.node("MaxPool", {"a"}, {"mp"}, A{{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}});
  b.node("DequantizeLinear", {"add", "sy", "zy"}, {"deq"});
  b.node("QuantizeLinear", {"deq", "sa", "za"}, {"req"});
  both_thread_counts(b.done(
      {"add", "addr", "mul", "mulb", "sig", "leaky", "gap", "ap", "cat", "mp", "deq", "req"}));
}

// The 256-entry tables of QLinearSigmoid and of a QLinearConcat input with its own scale, on
// tensors with contiguous runs of >= 256 bytes (the vector table kernels; the test above has
// runs of 63).
TEST(EngineInt8, TablesOnLongRunsExact) {
  Builder b;
  b.input("a", DType::UInt8, {1, 8, 20, 20});
  b.input("b", DType::UInt8, {1, 8, 20, 20});
  b.constant("sa", testing::scalar_f(0.04f)).constant("za", testing::scalar_u8(120));
  b.constant("sb", testing::scalar_f(0.07f)).constant("zb", testing::scalar_u8(30));
  b.constant("sy", testing::scalar_f(0.09f)).constant("zy", testing::scalar_u8(70));
  b.node("QLinearSigmoid", {"a", "sa", "za", "sy", "zy"}, {"sig"}, {}, "com.microsoft",
         {{DType::UInt8, graph::Shape{1, 8, 20, 20}}});
  b.node("QLinearConcat", {"sy", "zy", "a", "sa", "za", "b", "sb", "zb"}, {"cat"},
         A{{"axis", int64_t{1}}}, "com.microsoft", {{DType::UInt8, graph::Shape{1, 16, 20, 20}}});
  both_thread_counts(b.done({"sig", "cat"}));
}

// copy_rows_u8 (channels-last concat parts and splits: one call for every pixel's run) against a
// byte loop, for every run length up to 130 (the AVX-512 table's masked tails and 64-byte steps,
// AVX2's 8-byte gathers and 1-byte tails), with and without a table, on 1, 3 and 300 rows (the
// last parallel). The suite also runs with DNNL_MAX_CPU_ISA=AVX2, which caps hetcim's own kernels.
TEST(EngineInt8, CopyRowsOfEveryLengthEqualAByteLoop) {
  std::vector<uint8_t> table(256);
  for (int v = 0; v < 256; ++v) table[static_cast<size_t>(v)] = static_cast<uint8_t>(v * 37 + 11);
  for (const int64_t rows : {1, 3, 300})
    for (int64_t len = 1; len <= 130; ++len)
      for (const bool with_table : {false, true}) {
        const int64_t ss = len + 5, ds = len + 11;
        std::vector<uint8_t> src(static_cast<size_t>(rows * ss));
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + 7);
        std::vector<uint8_t> got(static_cast<size_t>(rows * ds), 0xA5), want = got;
        const uint8_t* t = with_table ? table.data() : nullptr;
        kernels::copy_rows_u8(rows, len, src.data(), ss, got.data(), ds, t);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t i = 0; i < len; ++i) {
            const uint8_t v = src[static_cast<size_t>(r * ss + i)];
            want[static_cast<size_t>(r * ds + i)] = t ? t[v] : v;
          }
        ASSERT_EQ(got, want) << rows << " rows of " << len << (t ? " through the table" : "");
      }
}

// strided_copy (for_each_rows: runs of the innermost dimension, rows along the largest other
// one) against the element-wise definition, for every permutation of a 4-D tensor with 1- and
// 4-byte elements.
TEST(EngineInt8, StridedCopyOfEveryPermutationEqualsIndexing) {
  const std::vector<int64_t> xs = {2, 3, 5, 7};
  const std::vector<int64_t> xst = {105, 35, 7, 1};
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    std::vector<int64_t> ys(4), sst(4);
    for (size_t k = 0; k < 4; ++k) {
      ys[k] = xs[static_cast<size_t>(perm[k])];
      sst[k] = xst[static_cast<size_t>(perm[k])];
    }
    const std::vector<int64_t> yst = {ys[1] * ys[2] * ys[3], ys[2] * ys[3], ys[3], 1};
    for (const size_t es : {size_t{1}, size_t{4}}) {
      std::vector<uint8_t> src(210 * es);
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 29 + 3);
      std::vector<uint8_t> got(src.size(), 0), want(src.size(), 0);
      kernels::strided_copy(ys, src.data(), sst, got.data(), yst, es);
      for (int64_t a = 0; a < ys[0]; ++a)
        for (int64_t b = 0; b < ys[1]; ++b)
          for (int64_t c = 0; c < ys[2]; ++c)
            for (int64_t d = 0; d < ys[3]; ++d) {
              const int64_t to = a * yst[0] + b * yst[1] + c * yst[2] + d,
                            from = a * sst[0] + b * sst[1] + c * sst[2] + d * sst[3];
              std::memcpy(&want[static_cast<size_t>(to) * es], &src[static_cast<size_t>(from) * es],
                          es);
            }
      ASSERT_EQ(got, want) << "perm " << perm[0] << perm[1] << perm[2] << perm[3] << ", " << es
                           << "-byte elements";
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

// YOLOv5's detect head in int8 as the layout pass leaves it: a channels-last convolution, its
// layout change back to NCHW, Reshape to (anchors, outputs, H, W), Transpose to (anchors, H, W,
// outputs), Split and QLinearConcat (one part rescaled). The layout change and the reshape alias
// the convolution's bytes (no copy) and the transpose copies runs of channels; a second reshape
// that no strided view can express (channels merged with rows) still copies. Exact, both thread
// counts; the layout change of a graph output stays a copy, and a transpose of the view with no
// contiguous run goes to oneDNN's reorder.
TEST(EngineInt8, DetectHeadLayoutChangeAndReshapeAliasChannelsLast) {
  Builder b;
  b.input("x", DType::Float32, {1, 8, 6, 6});
  b.constant("s", testing::scalar_f(0.01f)).constant("z", testing::scalar_u8(128));
  b.constant("s2", testing::scalar_f(0.02f)).constant("z2", testing::scalar_u8(90));
  b.node("QuantizeLinear", {"x", "s", "z"}, {"q"});
  b.node("Transpose", {"q"}, {"q_nhwc"}, A{{"perm", Ints{0, 2, 3, 1}}, {"layout_only", int64_t{1}}},
         "", {{DType::UInt8, graph::Shape{1, 8, 6, 6}}});
  b.constant("w", random_tensor(DType::Int8, {18, 8, 3, 3}, 45, -127, 127));
  b.constant("sw", testing::scalar_f(0.003f)).constant("zw", testing::scalar_i8(0));
  b.node("QLinearConv", {"q_nhwc", "s", "z", "w", "sw", "zw", "s", "z"}, {"y"},
         A{{"pads", Ints{1, 1, 1, 1}}}, "", {{DType::UInt8, graph::Shape{1, 18, 6, 6}}});
  b.node("Transpose", {"y"}, {"y_nchw"}, A{{"perm", Ints{0, 3, 1, 2}}, {"layout_only", int64_t{1}}},
         "", {{DType::UInt8, graph::Shape{1, 18, 6, 6}}});
  b.constant("view",
             Tensor::from_initializer(graph::Initializer::from_ints({5}, {1, 3, 6, 6, 6}), "view"));
  b.node("Reshape", {"y_nchw", "view"}, {"v"});
  b.node("Transpose", {"v"}, {"p"}, A{{"perm", Ints{0, 1, 3, 4, 2}}});
  // The same view transposed so that no run is contiguous: oneDNN's reorder from the view.
  b.node("Transpose", {"v"}, {"pw"}, A{{"perm", Ints{0, 2, 1, 4, 3}}});
  b.constant("sizes",
             Tensor::from_initializer(graph::Initializer::from_ints({2}, {2, 4}), "sizes"));
  b.node("Split", {"p", "sizes"}, {"p0", "p1"}, A{{"axis", int64_t{4}}});
  b.node("QLinearConcat", {"s", "z", "p1", "s", "z", "p0", "s2", "z2"}, {"cat"},
         A{{"axis", int64_t{4}}}, "com.microsoft", {{DType::UInt8, graph::Shape{1, 3, 6, 6, 6}}});
  b.node("DequantizeLinear", {"cat", "s", "z"}, {"out"});
  // A graph output's layout change, and a reshape that merges channels with rows.
  b.node("Transpose", {"y"}, {"y_out"}, A{{"perm", Ints{0, 3, 1, 2}}, {"layout_only", int64_t{1}}},
         "", {{DType::UInt8, graph::Shape{1, 18, 6, 6}}});
  b.node("Transpose", {"y"}, {"y_nchw2"},
         A{{"perm", Ints{0, 3, 1, 2}}, {"layout_only", int64_t{1}}}, "",
         {{DType::UInt8, graph::Shape{1, 18, 6, 6}}});
  b.constant("merge",
             Tensor::from_initializer(graph::Initializer::from_ints({3}, {1, 108, 6}), "merge"));
  b.node("Reshape", {"y_nchw2", "merge"}, {"m"});
  b.node("Transpose", {"m"}, {"mt"}, A{{"perm", Ints{0, 2, 1}}});
  const graph::Graph g = b.done({"out", "y_out", "mt", "pw"});
  both_thread_counts(g);
  std::map<std::string, std::string> impl;
  const Engine e(g);
  for (const OpInfo& o : e.ops()) impl[o.name] = o.impl;
  const std::map<std::string, std::string> want = {{"y_nchw", "hetcim:alias"},
                                                   {"v", "hetcim:alias"},
                                                   {"y_nchw2", "hetcim:alias"},
                                                   {"p", "hetcim:transpose"},
                                                   {"pw", "reorder"},
                                                   {"y_out", "reorder"},
                                                   {"m", "reorder"}};
  for (const graph::Node& n : g.nodes) {
    const auto w = want.find(n.outputs[0]);
    if (w != want.end()) {
      EXPECT_EQ(impl[n.name], w->second) << n.name;
    }
  }
}

// SiLU in int8 (YOLOv5's QLinearSigmoid -> QLinearMul(x, s)): the fused plan folds the Mul into
// the sigmoid's table, in both operand orders and with a fused Relu; exact against the reference
// interpreter. A sigmoid with a second reader (here a graph output) keeps its own pass.
TEST(EngineInt8, SiluPairIsOneTableExact) {
  Builder b;
  b.input("x", DType::UInt8, {1, 16, 9, 7});
  b.constant("sx", testing::scalar_f(0.05f)).constant("zx", testing::scalar_u8(128));
  b.constant("ss", testing::scalar_f(1.0f / 255)).constant("zs", testing::scalar_u8(0));
  b.constant("sy", testing::scalar_f(0.03f)).constant("zy", testing::scalar_u8(20));
  const graph::TensorInfo full{DType::UInt8, graph::Shape{1, 16, 9, 7}};
  for (const std::string k : {"a", "b", "c", "d"})
    b.node("QLinearSigmoid", {"x", "sx", "zx", "ss", "zs"}, {"s" + k}, {}, "com.microsoft", {full});
  b.node("QLinearMul", {"x", "sx", "zx", "sa", "ss", "zs", "sy", "zy"}, {"ya"}, {}, "com.microsoft",
         {full});
  b.node("QLinearMul", {"sb", "ss", "zs", "x", "sx", "zx", "sy", "zy"}, {"yb"}, {}, "com.microsoft",
         {full});
  b.node("QLinearMul", {"x", "sx", "zx", "sc", "ss", "zs", "sy", "zy"}, {"yc"},
         A{{"activation", std::string("Relu")}}, "com.microsoft", {full});
  b.node("QLinearMul", {"x", "sx", "zx", "sd", "ss", "zs", "sy", "zy"}, {"yd"}, {}, "com.microsoft",
         {full});
  const graph::Graph g = b.done({"ya", "yb", "yc", "yd", "sd"});
  both_thread_counts(g);
  const Engine e(g);
  int folded = 0;
  for (const OpInfo& o : e.ops()) {
    if (o.impl.rfind("hetcim:table+mul(", 0) == 0) ++folded;
    if (o.name == g.nodes[3].name) {
      EXPECT_EQ(o.impl, "hetcim:table") << "sd has two readers";
    }
  }
  EXPECT_EQ(folded, 3);
}

TEST(EngineInt8, LayoutTransposesAreLogicalIdentities) {
  // Q -> ToNHWC -> QLinearConv -> ToNCHW -> DQ, as passes::layout_nhwc writes it.
  Builder b;
  b.input("x", DType::Float32, {1, 8, 5, 5});
  b.constant("s", testing::scalar_f(0.01f)).constant("z", testing::scalar_u8(128));
  b.node("QuantizeLinear", {"x", "s", "z"}, {"q"});
  b.node("Transpose", {"q"}, {"q_nhwc"}, A{{"perm", Ints{0, 2, 3, 1}}, {"layout_only", int64_t{1}}},
         "", {{DType::UInt8, graph::Shape{1, 8, 5, 5}}});
  b.constant("w", random_tensor(DType::Int8, {8, 8, 3, 3}, 41, -127, 127));
  b.constant("sw", testing::scalar_f(0.003f)).constant("zw", testing::scalar_i8(0));
  b.node("QLinearConv", {"q_nhwc", "s", "z", "w", "sw", "zw", "s", "z"}, {"y"},
         A{{"pads", Ints{1, 1, 1, 1}}}, "", {{DType::UInt8, graph::Shape{1, 8, 5, 5}}});
  b.node("Transpose", {"y"}, {"y_nchw"}, A{{"perm", Ints{0, 3, 1, 2}}, {"layout_only", int64_t{1}}},
         "", {{DType::UInt8, graph::Shape{1, 8, 5, 5}}});
  b.node("DequantizeLinear", {"y_nchw", "s", "z"}, {"out"});
  both_thread_counts(b.done({"out"}));
}

// A squeeze-excitation gate's convolution in int8: channels-last, a 1x1 map, per-channel weight
// scales, weights beyond +-64 (two kernels over weight halves on a CPU without VNNI). Exact, and
// on a vector kernel: with its post-op operands in different dimension orders oneDNN 2.6 ran it
// with its reference kernel on AVX2.
TEST(EngineInt8, GateConvolutionOnA1x1MapExactOnAVectorKernel) {
  Builder b;
  b.input("x", DType::Float32, {1, 32, 1, 1});
  b.constant("s", testing::scalar_f(0.01f)).constant("z", testing::scalar_u8(128));
  b.node("QuantizeLinear", {"x", "s", "z"}, {"q"});
  b.node("Transpose", {"q"}, {"q_nhwc"}, A{{"perm", Ints{0, 2, 3, 1}}, {"layout_only", int64_t{1}}},
         "", {{DType::UInt8, graph::Shape{1, 32, 1, 1}}});
  b.constant("w", random_tensor(DType::Int8, {8, 32, 1, 1}, 43, -127, 127));
  b.constant("sw", random_tensor(DType::Float32, {8}, 44, 0.001, 0.01));
  b.constant("zw", Tensor::zeros(DType::Int8, {8}));
  b.node("QLinearConv", {"q_nhwc", "s", "z", "w", "sw", "zw", "s", "z"}, {"y"}, {}, "",
         {{DType::UInt8, graph::Shape{1, 8, 1, 1}}});
  b.node("Transpose", {"y"}, {"y_nchw"}, A{{"perm", Ints{0, 3, 1, 2}}, {"layout_only", int64_t{1}}},
         "", {{DType::UInt8, graph::Shape{1, 8, 1, 1}}});
  b.node("DequantizeLinear", {"y_nchw", "s", "z"}, {"out"});
  const graph::Graph g = b.done({"out"});
  both_thread_counts(g);
  const Engine e(g);
  for (const OpInfo& o : e.ops()) {
    EXPECT_NE(o.impl.rfind("ref", 0), 0u) << o.name << ": " << o.impl;
  }
}

// ---- errors ---------------------------------------------------------------------------------

TEST(EngineErrors, UnsupportedOperatorNamesTheNode) {
  Builder b;
  b.input("x", DType::Float32, {1, 4});
  b.node("Relu", {"x"}, {"y"});
  graph::Graph g = b.done({"y"});
  g.nodes[0].op_type = "Einsum";
  g.nodes[0].name = "my_einsum";
  g.opset = 13;
  try {
    Engine e(g);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "node 'my_einsum' (Einsum): unsupported operator 'Einsum' at opset 13"),
              std::string::npos)
        << e.what();
  }
  // The same table answers before any engine is built (what `hetcim inspect` lists).
  EXPECT_EQ(unsupported_operators(g),
            (std::vector<std::string>{"node 'my_einsum' (Einsum, opset 13)"}));
  EXPECT_THROW((void)run_reference(g, {{"x", Tensor::zeros(DType::Float32, {1, 4})}}), UserError);
}

TEST(EngineErrors, WrongInputShapeAndDtype) {
  Builder b;
  b.input("x", DType::Float32, {1, 4});
  b.node("Relu", {"x"}, {"y"});
  const graph::Graph g = b.done({"y"});
  Engine e(g);
  try {
    (void)e.run({{"x", Tensor::zeros(DType::Float32, {1, 5})}});
    FAIL();
  } catch (const UserError& err) {
    EXPECT_NE(std::string(err.what()).find("input 'x': expected float32 1x4, got float32 1x5"),
              std::string::npos)
        << err.what();
  }
  try {
    (void)e.run({{"x", Tensor::zeros(DType::UInt8, {1, 4})}});
    FAIL();
  } catch (const UserError& err) {
    EXPECT_NE(std::string(err.what()).find("expected float32 1x4, got uint8 1x4"),
              std::string::npos)
        << err.what();
  }
  try {
    (void)e.run({});
    FAIL();
  } catch (const UserError& err) {
    EXPECT_NE(std::string(err.what()).find("input 'x' is missing"), std::string::npos)
        << err.what();
  }
  EXPECT_THROW((void)e.run({{"x", Tensor::zeros(DType::Float32, {1, 4})},
                            {"z", Tensor::zeros(DType::Float32, {1})}}),
               UserError);
}

// ---- hetcim's Winograd F(2x2,3x3) / F(4x4,3x3) (exec/winograd.h) ------------------------------
// The transforms against a direct 3x3 sum in double, and the engine's use of them against the
// reference interpreter. The engine takes them only where oneDNN would run its AVX2 direct kernel:
// the ctest entry exec_winograd_on_avx2 runs EngineWinograd.* with oneDNN capped at AVX2.

std::vector<float> uniform(size_t n, uint64_t seed) {
  const Tensor t = random_tensor(DType::Float32, {static_cast<int64_t>(n)}, seed);
  return {t.data<float>(), t.data<float>() + n};
}

// aBcd8b offset of (image, channel, row, column).
int64_t at8(int64_t n, int64_t c, int64_t y, int64_t x, int64_t channels, int64_t h, int64_t w) {
  return (((n * (channels / 8) + c / 8) * h + y) * w + x) * 8 + c % 8;
}

struct WinogradCase {
  int m;
  int64_t pad;
};
void PrintTo(const WinogradCase& k, std::ostream* os) {
  *os << "F(" << k.m << "x" << k.m << "), pad " << k.pad;
}

class WinogradTransforms : public ::testing::TestWithParam<WinogradCase> {};

// y = relu(conv3x3(x) + bias + y0) over 2 images of 16 -> 24 channels, 9x11 (tiles cut by the
// border), in blocks of 5 tiles, the product by a plain loop; against the same in double.
// Measured worst error relative to the largest output: F(2x2) 2.0e-7, F(4x4) 1.6e-6 to 2.4e-6.
TEST_P(WinogradTransforms, EqualADirectSumInDouble) {
  if (!winograd::available()) GTEST_SKIP() << "no AVX2 + FMA";
  const WinogradCase k = GetParam();
  winograd::Conv cv;
  cv.images = 2;
  cv.c = 16;
  cv.h = 9;
  cv.w = 11;
  cv.oc = 24;
  cv.pt = cv.pl = k.pad;
  cv.oh = cv.h + 2 * k.pad - 2;
  cv.ow = cv.w + 2 * k.pad - 2;
  cv.m = k.m;
  const std::vector<float> x = uniform(static_cast<size_t>(cv.images * cv.c * cv.h * cv.w), 1);
  const std::vector<float> w = uniform(static_cast<size_t>(cv.oc * cv.c * 9), 2);
  const std::vector<float> bias = uniform(static_cast<size_t>(cv.oc), 3);
  const std::vector<float> y0 = uniform(static_cast<size_t>(cv.images * cv.oc * cv.oh * cv.ow), 4);

  const std::vector<float> u = winograd::transform_weights(cv, w.data());
  const int64_t nb = 5, p_n = cv.positions();
  std::vector<float> v(static_cast<size_t>(p_n * nb * cv.c)),
      mo(static_cast<size_t>(p_n * nb * cv.oc));
  std::vector<float> y = y0;
  winograd::Epilogue e;
  e.bias = bias.data();
  e.sum = true;
  e.act.kind = Activation::Relu;
  for (int64_t t0 = 0; t0 < cv.tiles(); t0 += nb) {
    const int64_t nt = std::min(nb, cv.tiles() - t0);
    winograd::transform_input(cv, x.data(), t0, nt, nb, v.data());
    for (int64_t p = 0; p < p_n; ++p)
      for (int64_t t = 0; t < nt; ++t)
        for (int64_t o = 0; o < cv.oc; ++o) {
          float s = 0;
          for (int64_t c = 0; c < cv.c; ++c)
            s += v[static_cast<size_t>((p * nb + t) * cv.c + c)] *
                 u[static_cast<size_t>((p * cv.c + c) * cv.oc + o)];
          mo[static_cast<size_t>((p * nb + t) * cv.oc + o)] = s;
        }
    winograd::transform_output(cv, mo.data(), t0, nt, nb, e, y.data());
  }

  double worst = 0, largest = 0;
  for (int64_t n = 0; n < cv.images; ++n)
    for (int64_t o = 0; o < cv.oc; ++o)
      for (int64_t oy = 0; oy < cv.oh; ++oy)
        for (int64_t ox = 0; ox < cv.ow; ++ox) {
          double s = bias[static_cast<size_t>(o)];
          for (int64_t c = 0; c < cv.c; ++c)
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = oy + ky - k.pad, ix = ox + kx - k.pad;
                if (iy < 0 || iy >= cv.h || ix < 0 || ix >= cv.w) continue;
                s += static_cast<double>(
                         x[static_cast<size_t>(at8(n, c, iy, ix, cv.c, cv.h, cv.w))]) *
                     w[static_cast<size_t>(((o * cv.c + c) * 3 + ky) * 3 + kx)];
              }
          const auto i = static_cast<size_t>(at8(n, o, oy, ox, cv.oc, cv.oh, cv.ow));
          const double want = std::max(0.0, s + y0[i]);
          worst = std::max(worst, std::fabs(y[i] - want));
          largest = std::max(largest, std::fabs(want));
        }
  ASSERT_GT(largest, 1.0);
  EXPECT_LE(worst / largest, k.m == 2 ? 1e-6 : 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Tiles, WinogradTransforms,
                         ::testing::Values(WinogradCase{2, 1}, WinogradCase{2, 0},
                                           WinogradCase{4, 1}, WinogradCase{4, 0}),
                         [](const auto& info) {
                           return "F" + std::to_string(info.param.m) + "_pad" +
                                  std::to_string(info.param.pad);
                         });

// A residual block, relu(conv3x3(relu(conv3x3(x) + b)) + conv1x1(x)), 64 channels over 2 images
// of 13x10: where oneDNN runs its AVX2 direct kernel (this test's ctest entry caps oneDNN at
// AVX2), both 3x3 convolutions are hetcim's Winograd kernel, the second with the Add and its
// ReLU fused; the outputs equal the reference interpreter to 1e-5 relative at 1 and 2 threads.
TEST(EngineWinograd, ResidualBlockEqualsTheReference) {
  Builder b;
  b.input("x", DType::Float32, {2, 64, 13, 10});
  b.constant("w1", random_tensor(DType::Float32, {64, 64, 3, 3}, 11, -0.1, 0.1));
  b.constant("b1", random_tensor(DType::Float32, {64}, 12));
  b.constant("w2", random_tensor(DType::Float32, {64, 64, 3, 3}, 13, -0.1, 0.1));
  b.constant("ws", random_tensor(DType::Float32, {64, 64, 1, 1}, 14, -0.1, 0.1));
  b.node("Conv", {"x", "w1", "b1"}, {"c1"},
         A{{"pads", Ints{1, 1, 1, 1}}, {"activation", std::string("Relu")}});
  b.node("Conv", {"x", "ws"}, {"s"});
  b.node("Conv", {"c1", "w2"}, {"c2"}, A{{"pads", Ints{1, 1, 1, 1}}});
  b.node("Add", {"c2", "s"}, {"y"}, A{{"activation", std::string("Relu")}});
  const graph::Graph g = b.done({"y"});
  const TensorMap in{{"x", random_tensor(DType::Float32, {2, 64, 13, 10}, 15)}};
  testing::expect_engine_matches_reference(g, in, 1e-5, 1);
  testing::expect_engine_matches_reference(g, in, 1e-5, 2);
  if (!winograd::available() || onednn_description().find("ISA avx2") == std::string::npos)
    GTEST_SKIP() << "oneDNN is not on its AVX2 kernels here: " << onednn_description();
  const Engine e(g);
  std::map<std::string, std::string> impl;
  for (const OpInfo& o : e.ops()) impl[o.name] = o.impl;
  EXPECT_EQ(impl["n0_Conv"].rfind("hetcim:winograd_f", 0), 0u) << impl["n0_Conv"];
  EXPECT_EQ(impl["n1_Conv"].find("winograd"), std::string::npos) << impl["n1_Conv"];  // 1x1
  EXPECT_EQ(impl["n2_Conv"].rfind("hetcim:winograd_f", 0), 0u) << impl["n2_Conv"];
  EXPECT_NE(impl["n2_Conv"].find("+sum(n3_Add)"), std::string::npos) << impl["n2_Conv"];
  EXPECT_EQ(impl["n3_Add"], "fused into 'n2_Conv'");
}

// Fewer channels: 16 -> 24 on 2 images of 18x17 (162 F(2x2) tiles) takes a Winograd kernel
// too (with the AVX2 cap), 16 -> 24 on 6x5 (18 tiles) keeps oneDNN's direct kernel; both equal the
// reference interpreter.
TEST(EngineWinograd, NarrowLayersOnLargeMapsOnly) {
  for (const int64_t side : {18, 6}) {
    SCOPED_TRACE(side);
    Builder b;
    b.input("x", DType::Float32, {2, 16, side, side - 1});
    b.constant("w", random_tensor(DType::Float32, {24, 16, 3, 3}, 21, -0.2, 0.2));
    b.constant("b", random_tensor(DType::Float32, {24}, 22));
    b.node("Conv", {"x", "w", "b"}, {"y"}, A{{"pads", Ints{1, 1, 1, 1}}});
    const graph::Graph g = b.done({"y"});
    const TensorMap in{{"x", random_tensor(DType::Float32, {2, 16, side, side - 1}, 23)}};
    testing::expect_engine_matches_reference(g, in, 1e-5, 1);
    if (!winograd::available() || onednn_description().find("ISA avx2") == std::string::npos)
      continue;
    const Engine e(g);
    EXPECT_EQ(e.ops().front().impl.rfind("hetcim:winograd_f", 0) == 0, side == 18)
        << e.ops().front().impl;
  }
}

// Where oneDNN has Winograd kernels of its own (AVX-512), hetcim's replaces them on maps of at
// least 32 F(2x2) tiles and not below: 64 -> 64 channels on 14x14 (49 tiles: hetcim's F(2x2)),
// on 2 images of 28x28 (392 F(4x4) tiles: F(4x4)) and on 7x7 (16 tiles: oneDNN's), each with a
// fused ReLU and equal to the reference interpreter at 1 and 2 threads. The larger maps' kernels
// are checked where oneDNN runs a Winograd kernel itself on the small one (its AVX2 kernels have
// none: the tests above cover them).
TEST(EngineWinograd, ReplacesOneDnnWinogradOnLargerMapsOnly) {
  struct Case {
    int64_t n, side;
    const char* want;  // impl prefix, or nullptr: oneDNN's own
  };
  std::string small_impl;
  for (const Case c : {Case{1, 7, nullptr}, Case{1, 14, "hetcim:winograd_f2x2"},
                       Case{2, 28, "hetcim:winograd_f4x4"}}) {
    SCOPED_TRACE(c.side);
    Builder b;
    b.input("x", DType::Float32, {c.n, 64, c.side, c.side});
    b.constant("w", random_tensor(DType::Float32, {64, 64, 3, 3}, 31, -0.1, 0.1));
    b.constant("b", random_tensor(DType::Float32, {64}, 32));
    b.node("Conv", {"x", "w", "b"}, {"y"},
           A{{"pads", Ints{1, 1, 1, 1}}, {"activation", std::string("Relu")}});
    const graph::Graph g = b.done({"y"});
    const TensorMap in{{"x", random_tensor(DType::Float32, {c.n, 64, c.side, c.side}, 33)}};
    testing::expect_engine_matches_reference(g, in, 1e-5, 1);
    testing::expect_engine_matches_reference(g, in, 1e-5, 2);
    const std::string impl = Engine(g).ops().front().impl;
    if (c.want == nullptr) {
      small_impl = impl;
      // On AVX-512 the small map never takes hetcim's kernel (oneDNN's Winograd or direct one).
      if (onednn_description().find("ISA avx512") != std::string::npos) {
        EXPECT_EQ(small_impl.rfind("hetcim:", 0), std::string::npos) << small_impl;
      }
      continue;
    }
    const bool onednn_winograd =
        small_impl.rfind("jit_fp32_wino", 0) == 0 || small_impl.rfind("jit_wino", 0) == 0;
    if (!winograd::available() || !onednn_winograd) continue;
    EXPECT_EQ(impl.rfind(c.want, 0), 0u) << impl;
  }
}

// Where oneDNN runs its AVX2 direct kernel, hetcim's Winograd takes 64 -> 64 channels from 16
// F(2x2) tiles (8x8) and not on 6x6 (9 tiles), where its transformed weights cost more than the
// tiles save (conv.cpp, winograd_tile); both equal the reference interpreter.
TEST(EngineWinograd, OnAvx2FromSixteenTilesOnly) {
  for (const auto& [side, hetcims] : {std::pair{int64_t{6}, false}, std::pair{int64_t{8}, true}}) {
    SCOPED_TRACE(side);
    Builder b;
    b.input("x", DType::Float32, {1, 64, side, side});
    b.constant("w", random_tensor(DType::Float32, {64, 64, 3, 3}, 31, -0.1, 0.1));
    b.node("Conv", {"x", "w"}, {"y"}, A{{"pads", Ints{1, 1, 1, 1}}});
    const graph::Graph g = b.done({"y"});
    const TensorMap in{{"x", random_tensor(DType::Float32, {1, 64, side, side}, 33)}};
    testing::expect_engine_matches_reference(g, in, 1e-5, 1);
    const std::string impl = Engine(g).ops().front().impl;
    if (!winograd::available() || onednn_description().find("ISA avx2") == std::string::npos)
      GTEST_SKIP() << "oneDNN's ISA here is not AVX2: " << onednn_description();
    EXPECT_EQ(impl.rfind("hetcim:winograd", 0) == 0, hetcims) << impl;
  }
}

// ---- the oracle covers the engine

TEST(Reference, RunsEveryOperatorTheEngineRuns) {
  // Each executed registry row in the domain it is written in (QGemm: com.microsoft): a kernel
  // row of exec/reference/<family>.cpp or the row's own `reference` (ops/registry.h).
  for (std::string_view op : ops::operators()) {
    graph::Node n;
    n.op_type = std::string(op);
    n.domain = std::string(ops::find(op)->domain);
    EXPECT_TRUE(reference_runs(n)) << op;
  }
  graph::Node lstm;
  lstm.op_type = "LSTM";
  EXPECT_FALSE(reference_runs(lstm));
}

}  // namespace
}  // namespace hetcim::exec
