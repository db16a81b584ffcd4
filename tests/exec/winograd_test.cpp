// hetcim's Winograd F(2x2,3x3) / F(4x4,3x3) convolution (exec/winograd.h): the transforms against
// a direct 3x3 sum in double, and the engine's use of them (oneDNN capped at AVX2 by this test's
// ctest entry, where oneDNN 2.6 has no Winograd kernel) against the reference interpreter.
#include "exec/winograd.h"

#include <gtest/gtest.h>

#include <cmath>

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

std::vector<float> uniform(size_t n, uint64_t seed) {
  const Tensor t = random_tensor(DType::Float32, {static_cast<int64_t>(n)}, seed);
  return {t.data<float>(), t.data<float>() + n};
}

// aBcd8b offset of (image, channel, row, column).
int64_t at8(int64_t n, int64_t c, int64_t y, int64_t x, int64_t channels, int64_t h, int64_t w) {
  return (((n * (channels / 8) + c / 8) * h + y) * w + x) * 8 + c % 8;
}

struct Case {
  int m;
  int64_t pad;
};
void PrintTo(const Case& k, std::ostream* os) {
  *os << "F(" << k.m << "x" << k.m << "), pad " << k.pad;
}

class WinogradTransforms : public ::testing::TestWithParam<Case> {};

// y = relu(conv3x3(x) + bias + y0) over 2 images of 16 -> 24 channels, 9x11 (tiles cut by the
// border), in blocks of 5 tiles, the product by a plain loop; against the same in double.
// Measured worst error relative to the largest output: F(2x2) 2.0e-7, F(4x4) 1.6e-6 to 2.4e-6.
TEST_P(WinogradTransforms, EqualADirectSumInDouble) {
  if (!winograd::available()) GTEST_SKIP() << "no AVX2 + FMA";
  const Case k = GetParam();
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
                         ::testing::Values(Case{2, 1}, Case{2, 0}, Case{4, 1}, Case{4, 0}),
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

}  // namespace
}  // namespace hetcim::exec
