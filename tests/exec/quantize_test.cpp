// ONNX QuantizeLinear / DequantizeLinear semantics, bit-exact against hand-computed values, in
// the scalar functions, the reference interpreter and the oneDNN engine; the parameter rules.
#include "exec/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/reference.h"
#include "test_util.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

using graph::DType;

TEST(Quantize, RoundsHalfToEven) {
  EXPECT_EQ(round_half_even(0.5f), 0.0f);
  EXPECT_EQ(round_half_even(1.5f), 2.0f);
  EXPECT_EQ(round_half_even(2.5f), 2.0f);
  EXPECT_EQ(round_half_even(-0.5f), 0.0f);
  EXPECT_EQ(round_half_even(-1.5f), -2.0f);
  EXPECT_EQ(round_half_even(-2.5f), -2.0f);
  EXPECT_EQ(round_half_even(2.4999998f), 2.0f);
  EXPECT_EQ(round_half_even(1e9f), 4194304.0f);  // clamped first: saturates anyway
}

TEST(Quantize, QuantizeLinearByHand) {
  const QRange u8{0, 255}, s8{-128, 127};
  // x / scale = 2.5 -> 2 (even), + zero point 10 = 12.
  EXPECT_EQ(quantize_value(1.25f, 0.5f, 10, u8), 12);
  // 3.5 -> 4, + 10 = 14.
  EXPECT_EQ(quantize_value(1.75f, 0.5f, 10, u8), 14);
  // -2.5 -> -2, + 10 = 8.
  EXPECT_EQ(quantize_value(-1.25f, 0.5f, 10, u8), 8);
  // Saturation.
  EXPECT_EQ(quantize_value(1000.0f, 0.5f, 10, u8), 255);
  EXPECT_EQ(quantize_value(-1000.0f, 0.5f, 10, u8), 0);
  EXPECT_EQ(quantize_value(1000.0f, 0.5f, 0, s8), 127);
  EXPECT_EQ(quantize_value(-1000.0f, 0.5f, 0, s8), -128);
  EXPECT_EQ(quantize_value(-63.75f, 0.5f, 0, s8), -128);  // -127.5 -> -128 (even), in range
  EXPECT_EQ(quantize_value(-63.25f, 0.5f, 0, s8), -126);  // -126.5 -> -126
  EXPECT_EQ(quantize_value(std::numeric_limits<float>::quiet_NaN(), 0.5f, 7, u8), 7);
  // The division is x / scale, not x * (1 / scale): for x = -42.5 * 0.3 (rounded to float) and
  // scale 0.3, x / scale is the tie -42.5 (-> -42) but x * (1 / scale) is -42.5000038 (-> -43).
  const float x = static_cast<float>(-42.5 * static_cast<double>(0.3f));
  ASSERT_EQ(x / 0.3f, -42.5f);
  ASSERT_NE(x * (1.0f / 0.3f), -42.5f);
  EXPECT_EQ(quantize_value(x, 0.3f, 100, u8), 58);
}

// Whichever vector kernel this CPU runs (AVX-512, AVX2 + FMA, or the scalar loop): the engine's
// QuantizeLinear equals quantize_value element for element on ties, saturation, NaN, infinities
// and the scalar tail (1210 elements: not a multiple of 8 or 16), to u8 and s8.
TEST(Quantize, VectorKernelsEqualTheScalarFormula) {
  std::vector<float> x;
  for (int i = -600; i <= 600; ++i) x.push_back(static_cast<float>(i) * 0.25f);  // ties at 0.5
  for (float v : {1e9f, -1e9f, 3.0e38f, -0.0f, 1e-30f}) x.push_back(v);
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(static_cast<float>(-42.5 * static_cast<double>(0.3f)));  // x / 0.3 is a tie
  const auto n = static_cast<int64_t>(x.size());
  for (const auto& [scale, zu, zs] : std::vector<std::tuple<float, uint8_t, int8_t>>{
           {0.5f, 10, 0}, {0.3f, 100, -7}, {0.0625f, 0, 3}}) {
    testing::Builder b;
    b.input("x", DType::Float32, {n});
    b.constant("s", testing::scalar_f(scale))
        .constant("zu", testing::scalar_u8(zu))
        .constant("zs", testing::scalar_i8(zs));
    b.node("QuantizeLinear", {"x", "s", "zu"}, {"qu"});
    b.node("QuantizeLinear", {"x", "s", "zs"}, {"qs"});
    const TensorMap out = Engine(b.done({"qu", "qs"})).run({{"x", Tensor::from_floats({n}, x)}});
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[static_cast<size_t>(i)];
      ASSERT_EQ(out.at("qu").at(i), quantize_value(v, scale, zu, {0, 255})) << "x = " << v;
      ASSERT_EQ(out.at("qs").at(i), quantize_value(v, scale, zs, {-128, 127})) << "x = " << v;
    }
  }
}

TEST(Quantize, DequantizeLinearByHand) {
  EXPECT_EQ(dequantize_value(12, 0.5f, 10), 1.0f);
  EXPECT_EQ(dequantize_value(0, 0.25f, 128), -32.0f);
  EXPECT_EQ(dequantize_value(-128, 0.5f, 0), -64.0f);
}

TEST(Quantize, ParameterRules) {
  // Range [-1, 3]: scale 4/255, zero point round(1 / (4/255)) = round(63.75) = 64.
  const QuantParams a = activation_params(-1.0f, 3.0f);
  EXPECT_FLOAT_EQ(a.scale, 4.0f / 255.0f);
  EXPECT_EQ(a.zero_point, 64);
  // A range that excludes 0 is widened to include it: [2, 5] -> [0, 5].
  const QuantParams b = activation_params(2.0f, 5.0f);
  EXPECT_FLOAT_EQ(b.scale, 5.0f / 255.0f);
  EXPECT_EQ(b.zero_point, 0);
  EXPECT_EQ(activation_params(0, 0).scale, 1.0f);
  const QuantParams w = weight_params(0.635f);
  EXPECT_FLOAT_EQ(w.scale, 0.005f);
  EXPECT_EQ(w.zero_point, 0);
  EXPECT_EQ(w.dtype, DType::Int8);
}

// QuantizeLinear / DequantizeLinear nodes on a fixture full of ties and out-of-range values: the
// reference and the engine (AVX-512 and scalar tails: 37 elements) both give the hand results.
TEST(Quantize, NodesBitExactOnTies) {
  std::vector<float> x;
  std::vector<int> want_u8, want_s8;
  for (int i = 0; i < 37; ++i) {
    const float v = -10.0f + 0.25f * static_cast<float>(i) * 1.0f;  // x / 0.5 = -20 + 0.5 i
    x.push_back(v);
    const double q = -20.0 + 0.5 * i;    // exact
    const double r = std::nearbyint(q);  // ties to even in the default mode
    want_u8.push_back(static_cast<int>(std::clamp(r + 3, 0.0, 255.0)));
    want_s8.push_back(static_cast<int>(std::clamp(r - 5, -128.0, 127.0)));
  }
  x[36] = 1e30f;
  want_u8[36] = 255;
  want_s8[36] = 127;
  x[35] = -1e30f;
  want_u8[35] = 0;
  want_s8[35] = -128;
  testing::Builder b;
  b.input("x", DType::Float32, {37});
  b.constant("s", testing::scalar_f(0.5f))
      .constant("zu", testing::scalar_u8(3))
      .constant("zs", testing::scalar_i8(-5));
  b.node("QuantizeLinear", {"x", "s", "zu"}, {"qu"});
  b.node("QuantizeLinear", {"x", "s", "zs"}, {"qs"});
  b.node("DequantizeLinear", {"qu", "s", "zu"}, {"du"});
  const graph::Graph g = b.done({"qu", "qs", "du"});
  const TensorMap in = {{"x", Tensor::from_floats({37}, x)}};
  for (int engine = 0; engine < 2; ++engine) {
    SCOPED_TRACE(engine ? "engine" : "reference");
    const TensorMap out = engine ? Engine(g).run(in) : run_reference(g, in);
    for (int i = 0; i < 37; ++i) {
      EXPECT_EQ(out.at("qu").at(i), want_u8[static_cast<size_t>(i)])
          << "x=" << x[static_cast<size_t>(i)];
      EXPECT_EQ(out.at("qs").at(i), want_s8[static_cast<size_t>(i)])
          << "x=" << x[static_cast<size_t>(i)];
      EXPECT_EQ(out.at("du").at(i), (want_u8[static_cast<size_t>(i)] - 3) * 0.5);
    }
  }
}

// Per-axis DequantizeLinear: channel c uses scale[c] and zero_point[c].
TEST(Quantize, PerAxisByHand) {
  testing::Builder b;
  b.input("q", DType::UInt8, {2, 3});
  b.constant("s", Tensor::from_floats({3}, {1.0f, 0.5f, 2.0f}));
  Tensor z = Tensor::zeros(DType::UInt8, {3});
  z.data<uint8_t>()[0] = 1;
  z.data<uint8_t>()[1] = 2;
  z.data<uint8_t>()[2] = 3;
  b.constant("z", z);
  b.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, {{"axis", int64_t{1}}});
  const graph::Graph g = b.done({"d"});
  Tensor q = Tensor::zeros(DType::UInt8, {2, 3});
  for (int i = 0; i < 6; ++i) q.data<uint8_t>()[i] = static_cast<uint8_t>(10 + i);
  const std::vector<float> want = {9, 4.5f, 18, 12, 6, 24};
  EXPECT_EQ(run_reference(g, {{"q", q}}).at("d").floats(), want);
  EXPECT_EQ(Engine(g).run({{"q", q}}).at("d").floats(), want);
}

// Calibration on the user's data: min/max is the range of the values given; the percentile method
// takes, per sample, the [100 - p, p] percentiles (nearest rank over the sorted values) and
// averages them over the samples.
TEST(Calibration, UserDataMinMaxAndPercentile) {
  testing::Builder b;
  b.input("x", DType::Float32, {1, 101});
  b.node("Relu", {"x"}, {"y"});
  const graph::Graph g = b.done({"y"});
  std::vector<float> v(101), w(101);
  for (int i = 0; i <= 100; ++i) {
    v[static_cast<size_t>(i)] = static_cast<float>(i - 50);        // -50 .. 50
    w[static_cast<size_t>(i)] = static_cast<float>(2 * (i - 50));  // -100 .. 100
  }
  CalibrationOptions o;
  o.data = {{{"x", Tensor::from_floats({1, 101}, v)}}, {{"x", Tensor::from_floats({1, 101}, w)}}};
  const Ranges mm = calibrate(g, o);
  EXPECT_EQ(mm.at("x").lo, -100.0f);
  EXPECT_EQ(mm.at("x").hi, 100.0f);
  EXPECT_EQ(mm.at("y").lo, 0.0f);
  EXPECT_EQ(mm.at("y").hi, 100.0f);
  o.method = CalibrationMethod::Percentile;
  o.percentile = 90.0;
  const Ranges pc = calibrate(g, o);
  // Sample 1: the 10th and 90th percentiles of -50..50 are -40 and 40; sample 2: -80 and 80.
  EXPECT_FLOAT_EQ(pc.at("x").lo, -60.0f);
  EXPECT_FLOAT_EQ(pc.at("x").hi, 60.0f);
  o.percentile = 40.0;
  EXPECT_THROW((void)calibrate(g, o), UserError);
}

}  // namespace
}  // namespace hetcim::exec
