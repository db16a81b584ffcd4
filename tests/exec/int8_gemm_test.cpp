// exec/int8_gemm.h against a plain int64 loop (the reference interpreter's QLinear arithmetic:
// sum (a - za) b + bias in int64, cast to int32, quantize.h's requantize, then the fused
// activation's clamp), on odd sizes, both operand and output signs, the extreme values at which
// oneDNN's int16 pair sums saturate without VNNI, sums that wrap int32, and every kernel: the AVX2
// split kernel (vpmaddubsw on a & 63 plus the listed high bits) and wide kernel (vpmaddwd), each
// forced through Gemm::split_limit, and the portable one.
#include "exec/int8_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace hetcim::exec {
namespace {

using int8_gemm::Gemm;
using int8_gemm::Output;

struct Case {
  int64_t m, k, n;
  bool a_signed, y_signed;
  int32_t za, zy;
  Activation act;
};

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng, int lo, int hi, bool is_signed) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<uint8_t> v(n);
  for (auto& x : v) {
    const int r = d(rng);
    x = is_signed ? static_cast<uint8_t>(static_cast<int8_t>(r)) : static_cast<uint8_t>(r);
  }
  return v;
}

int32_t value(uint8_t byte, bool is_signed) {
  return is_signed ? static_cast<int8_t>(byte) : byte;
}

// The reference's y for one output: requantize(int32(acc), scale, zy, range), then clamp.
uint8_t expected(int64_t acc, float scale, const Output& o) {
  const QRange r = o.is_signed ? QRange{-128, 127} : QRange{0, 255};
  const int32_t v =
      std::clamp(requantize(static_cast<int32_t>(acc), scale, o.zy, r), o.act_lo, o.act_hi);
  return o.is_signed ? static_cast<uint8_t>(static_cast<int8_t>(v)) : static_cast<uint8_t>(v);
}

// sum_k (a - za) b + bias in int64; a: M x K bytes (lda = K), b: K x N int8 row-major.
int64_t oracle_acc(const Case& c, const std::vector<uint8_t>& a, const std::vector<int8_t>& b,
                   const Output& o, int64_t i, int64_t j) {
  int64_t acc = o.bias.empty() ? 0 : o.bias[static_cast<size_t>(j)];
  for (int64_t k = 0; k < c.k; ++k)
    acc += (int64_t{value(a[static_cast<size_t>(i * c.k + k)], c.a_signed)} - c.za) *
           b[static_cast<size_t>(k * c.n + j)];
  return acc;
}

std::vector<uint8_t> oracle_gemm(const Case& c, const std::vector<uint8_t>& a,
                                 const std::vector<int8_t>& b, const Output& o) {
  std::vector<uint8_t> y(static_cast<size_t>(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j)
      y[static_cast<size_t>(i * c.n + j)] =
          expected(oracle_acc(c, a, b, o, i, j), o.scale[static_cast<size_t>(j)], o);
  return y;
}

// An output whose multipliers map each column's largest |sum| to 100 steps (no bias, zy 128, u8):
// nothing saturates, so a wrong sum shows in the output bytes wherever inputs are extreme.
Output fitted_output(const Case& c, const std::vector<uint8_t>& a, const std::vector<int8_t>& b) {
  Output o = int8_gemm::make_output(std::vector<float>(static_cast<size_t>(c.n), 1.0f), {}, 128,
                                    false, {}, 1.0f);
  for (int64_t j = 0; j < c.n; ++j) {
    int64_t most = 1;
    for (int64_t i = 0; i < c.m; ++i) most = std::max(most, std::abs(oracle_acc(c, a, b, o, i, j)));
    o.scale[static_cast<size_t>(j)] = 100.0f / static_cast<float>(most);
  }
  return o;
}

Output random_output(const Case& c, std::mt19937& rng) {
  std::vector<float> scale(static_cast<size_t>(c.n));
  std::vector<int32_t> bias(static_cast<size_t>(c.n));
  std::uniform_real_distribution<float> s(1e-5f, 4e-3f);
  std::uniform_int_distribution<int32_t> bi(-20000, 20000);
  for (auto& v : scale) v = s(rng);
  for (auto& v : bias) v = bi(rng);
  return int8_gemm::make_output(scale, bias, c.zy, c.y_signed, c.act, 0.05f);
}

// The kernels a prepared product can run: AVX2 split, AVX2 wide (when available), portable.
struct Kernel {
  const char* name;
  bool vector;
  float split_limit;
};
std::vector<Kernel> kernels() {
  std::vector<Kernel> k;
  if (int8_gemm::available()) {
    k.push_back({"AVX2 split", true, 2.0f});
    k.push_back({"AVX2 wide", true, -1.0f});
  }
  k.push_back({"portable", false, -1.0f});
  return k;
}

// Runs case c through every kernel at 1 and 2 threads and compares every output byte with the
// oracle.
void check_gemm(const Case& c, uint32_t seed, int a_lo, int a_hi, int b_lo, int b_hi,
                bool fitted = false) {
  SCOPED_TRACE("M=" + std::to_string(c.m) + " K=" + std::to_string(c.k) +
               " N=" + std::to_string(c.n) + " a_signed=" + std::to_string(c.a_signed) +
               " y_signed=" + std::to_string(c.y_signed) + " seed=" + std::to_string(seed));
  std::mt19937 rng(seed);
  const auto a = random_bytes(static_cast<size_t>(c.m * c.k), rng, a_lo, a_hi, c.a_signed);
  const auto braw = random_bytes(static_cast<size_t>(c.k * c.n), rng, b_lo, b_hi, true);
  const std::vector<int8_t> b(braw.begin(), braw.end());
  const Output o = fitted ? fitted_output(c, a, b) : random_output(c, rng);
  const std::vector<uint8_t> want = oracle_gemm(c, a, b, o);
  Gemm g = int8_gemm::prepare(b.data(), c.k, c.n, c.n, 1, c.a_signed, c.za, o);
  for (const Kernel& kernel : kernels()) {
    g.vector = kernel.vector;
    g.split_limit = kernel.split_limit;
    for (const int threads : {1, 2}) {
      std::vector<uint8_t> y(static_cast<size_t>(c.m * c.n), 0xAA);
      int8_gemm::run(g, c.m, a.data(), c.k, y.data(), c.n, threads);
      int64_t bad = 0, first = -1;
      for (size_t i = 0; i < y.size(); ++i)
        if (y[i] != want[i] && bad++ == 0) first = static_cast<int64_t>(i);
      EXPECT_EQ(bad, 0) << kernel.name << " threads=" << threads << ", first difference at "
                        << first << ": " << (first >= 0 ? int{y[static_cast<size_t>(first)]} : 0)
                        << " vs " << (first >= 0 ? int{want[static_cast<size_t>(first)]} : 0);
    }
  }
}

Activation relu() {
  Activation a;
  a.kind = Activation::Relu;
  return a;
}
Activation clip(float lo, float hi) {
  Activation a;
  a.kind = Activation::Clip;
  a.lo = lo;
  a.hi = hi;
  return a;
}

TEST(Int8Gemm, OddSizesEqualAnInt64Loop) {
  uint32_t seed = 1;
  for (const int64_t m : {1, 5, 7, 13, 50})
    for (const int64_t k : {1, 2, 3, 17, 33, 147})
      for (const int64_t n : {1, 15, 16, 17, 40}) {
        check_gemm({m, k, n, false, false, 7, 100, {}}, seed++, 0, 255, -128, 127);
        check_gemm({m, k, n, true, true, -3, -5, relu()}, seed++, -128, 127, -128, 127);
      }
}

// u8 x s8 pairs whose int16 sum saturates in vpmaddubsw (2 * 255 * 127 = 64770 > 32767), s8
// sources with odd weights, and the extremes -128 x -128.
TEST(Int8Gemm, ExactWherePairSumsWouldSaturate) {
  check_gemm({9, 64, 24, false, false, 0, 128, {}}, 11, 230, 255, 100, 127);
  check_gemm({9, 64, 24, false, false, 0, 128, {}}, 12, 250, 255, -128, -120);
  check_gemm({9, 63, 24, true, false, 0, 0, relu()}, 13, -128, -120, -128, -120);
  check_gemm({9, 63, 24, true, true, 5, 3, clip(-1.0f, 2.0f)}, 14, 100, 127, 100, 127);
  // every value at an extreme: a in {0, 255} or {-128, 127}, b in {-128, 127}
  check_gemm({11, 35, 33, false, false, 255, 0, {}}, 15, 0, 255, -128, 127);
  check_gemm({11, 35, 33, true, true, -128, 0, {}}, 16, -128, 127, -128, 127);
}

// The split kernel's two halves on their own and together: every activation >= 128 (bits 7 and
// mostly 6 listed, the lo bytes small), every one < 64 (no list), < 128 (bit 6 only), mixed; the
// lo bytes at their largest (63) against weights -128, where four int16 pair terms reach
// 4 * 63 * -128 = -32256 (a kernel keeping 7 lo bits would saturate here); K not a multiple of
// 2, 4 or 8 and M, N off the 6 x 16 tile.
TEST(Int8Gemm, SplitKernelOnEveryBitPattern) {
  uint32_t seed = 300;
  for (const int64_t k : {5, 31, 64, 67})
    for (const auto& [a_lo, a_hi] :
         {std::pair{128, 255}, {0, 63}, {0, 127}, {0, 255}, {63, 63}, {127, 127}, {255, 255}})
      for (const auto& [b_lo, b_hi] : {std::pair{-128, -128}, {-128, 127}, {127, 127}})
        check_gemm({13, k, 19, false, false, 3, 128, {}}, seed++, a_lo, a_hi, b_lo, b_hi, true);
  // s8 sources (read as u8 + 128: -1 becomes 127, -128 becomes 0)
  check_gemm({8, 45, 17, true, false, 5, 128, {}}, seed++, -128, -65, -128, 127, true);
  check_gemm({8, 45, 17, true, false, -5, 128, {}}, seed++, -1, -1, -128, -128, true);
}

// Products far beyond the output range (|float(acc) * scale| > 2^22, where round_half_even
// clamps first) and huge multipliers saturate as the reference does; Clip bounds outside the
// output range and a Clip whose lower bound exceeds its upper one clamp as std::clamp does.
TEST(Int8Gemm, SaturationAndClampsAtTheirEdges) {
  const int64_t m = 7, k = 19, n = 21;
  std::mt19937 rng(77);
  const auto a = random_bytes(static_cast<size_t>(m * k), rng, 0, 255, false);
  const auto braw = random_bytes(static_cast<size_t>(k * n), rng, -128, 127, true);
  const std::vector<int8_t> b(braw.begin(), braw.end());
  for (const float scale : {1e3f, 3e4f, 1e30f, 3e38f, -3e38f})
    for (const Activation act : {Activation{}, relu(), clip(-1e9f, 1e9f), clip(2.0f, -2.0f)})
      for (const bool y_signed : {false, true}) {
        SCOPED_TRACE("scale " + std::to_string(scale) + " act " + std::to_string(act.kind) +
                     " y_signed " + std::to_string(y_signed));
        const Case c{m, k, n, false, y_signed, 5, y_signed ? -3 : 3, act};
        const Output o =
            int8_gemm::make_output(std::vector<float>(n, scale), {}, c.zy, y_signed, act, 0.1f);
        const auto want = oracle_gemm(c, a, b, o);
        Gemm g = int8_gemm::prepare(b.data(), k, n, n, 1, false, c.za, o);
        const bool vector_allowed = g.vector;  // (not with a Clip whose bounds cross)
        for (const Kernel& kernel : kernels()) {
          g.vector = kernel.vector && vector_allowed;
          g.split_limit = kernel.split_limit;
          std::vector<uint8_t> y(want.size(), 0xAA);
          int8_gemm::run(g, m, a.data(), k, y.data(), n);
          EXPECT_EQ(y, want) << kernel.name;
        }
      }
}

// A sum beyond int32 wraps as the reference's int64 sum cast to int32 does.
TEST(Int8Gemm, SumsThatWrapInt32AsTheReference) {
  const int64_t k = 70001;  // 70001 * 255 * 127 > 2^31
  const std::vector<uint8_t> a(static_cast<size_t>(k * 2), 255);
  const std::vector<int8_t> b(static_cast<size_t>(k), 127);
  const Output o = int8_gemm::make_output({1e-6f}, {}, 0, true, {}, 1.0f);
  const int64_t acc = k * 255 * 127;
  ASSERT_GT(acc, int64_t{1} << 31);
  const uint8_t want = expected(acc, 1e-6f, o);
  Gemm g = int8_gemm::prepare(b.data(), k, 1, 1, 1, false, 0, o);
  for (const Kernel& kernel : kernels()) {
    g.vector = kernel.vector;
    g.split_limit = kernel.split_limit;
    std::vector<uint8_t> y(2, 0);
    int8_gemm::run(g, 2, a.data(), k, y.data(), 1);
    EXPECT_EQ(y[0], want) << kernel.name;
    EXPECT_EQ(y[1], want) << kernel.name;
  }
}

// By hand: a = [1 2 3], b = [[1], [-1], [2]], za = 1, bias 10: (0 - 1 + 4) + 10 = 13; scale 0.5
// -> 6.5 rounds to 6 (half to even), + zy 3 = 9.
TEST(Int8Gemm, OneOutputByHand) {
  const std::vector<uint8_t> a{1, 2, 3};
  const std::vector<int8_t> b{1, -1, 2};
  const Output o = int8_gemm::make_output({0.5f}, {10}, 3, false, {}, 1.0f);
  Gemm g = int8_gemm::prepare(b.data(), 3, 1, 1, 1, false, 1, o);
  for (const Kernel& kernel : kernels()) {
    g.vector = kernel.vector;
    g.split_limit = kernel.split_limit;
    uint8_t y = 0;
    int8_gemm::run(g, 1, a.data(), 3, &y, 1);
    EXPECT_EQ(y, 9) << kernel.name;
  }
}

// Convolutions on NHWC bytes against a direct loop (padding reads as the zero point).
void check_conv(const Window2d& w, bool x_signed, bool y_signed, int32_t zx, uint32_t seed,
                int x_lo, int x_hi, int w_lo, int w_hi) {
  SCOPED_TRACE("c=" + std::to_string(w.c) + " oc=" + std::to_string(w.oc) +
               " k=" + std::to_string(w.kh) + "x" + std::to_string(w.kw) +
               " s=" + std::to_string(w.sh) + " d=" + std::to_string(w.dh) +
               " g=" + std::to_string(w.group) + " seed=" + std::to_string(seed));
  std::mt19937 rng(seed);
  const int64_t icg = w.c / w.group, ocg = w.oc / w.group;
  const auto x =
      random_bytes(static_cast<size_t>(w.n * w.h * w.w * w.c), rng, x_lo, x_hi, x_signed);
  const auto wraw =
      random_bytes(static_cast<size_t>(w.oc * icg * w.kh * w.kw), rng, w_lo, w_hi, true);
  const std::vector<int8_t> wt(wraw.begin(), wraw.end());
  const Case c{1, 1, w.oc, x_signed, y_signed, zx, 9, relu()};
  const Output o = random_output(c, rng);
  std::vector<uint8_t> want(static_cast<size_t>(w.n * w.oh * w.ow * w.oc));
  for (int64_t b = 0; b < w.n; ++b)
    for (int64_t oh = 0; oh < w.oh; ++oh)
      for (int64_t ow = 0; ow < w.ow; ++ow)
        for (int64_t oc = 0; oc < w.oc; ++oc) {
          const int64_t gi = oc / ocg;
          int64_t acc = o.bias[static_cast<size_t>(oc)];
          for (int64_t ic = 0; ic < icg; ++ic)
            for (int64_t kh = 0; kh < w.kh; ++kh)
              for (int64_t kw = 0; kw < w.kw; ++kw) {
                const int64_t ih = oh * w.sh - w.pt + kh * w.dh, iw = ow * w.sw - w.pl + kw * w.dw;
                if (ih < 0 || ih >= w.h || iw < 0 || iw >= w.w) continue;
                const int64_t xv =
                    value(x[static_cast<size_t>(((b * w.h + ih) * w.w + iw) * w.c + gi * icg + ic)],
                          x_signed) -
                    zx;
                acc += xv * wt[static_cast<size_t>(((oc * icg + ic) * w.kh + kh) * w.kw + kw)];
              }
          want[static_cast<size_t>(((b * w.oh + oh) * w.ow + ow) * w.oc + oc)] =
              expected(acc, o.scale[static_cast<size_t>(oc)], o);
        }
  int8_gemm::Conv cv = int8_gemm::prepare_conv(w, wt.data(), x_signed, zx, o);
  for (const Kernel& kernel : kernels()) {
    for (auto& g : cv.groups) {
      g.vector = kernel.vector;
      g.split_limit = kernel.split_limit;
    }
    for (const int threads : {1, 2}) {
      std::vector<uint8_t> y(want.size(), 0xAA);
      int8_gemm::run_conv(cv, x.data(), y.data(), threads);
      int64_t bad = 0;
      for (size_t i = 0; i < y.size(); ++i) bad += y[i] != want[i];
      EXPECT_EQ(bad, 0) << kernel.name << " threads=" << threads;
    }
  }
}

Window2d window(int64_t c, int64_t oc, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t s,
                int64_t p, int64_t d, int64_t group) {
  Window2d win;
  win.n = 2;
  win.c = c;
  win.h = h;
  win.w = w;
  win.oc = oc;
  win.kh = kh;
  win.kw = kw;
  win.sh = win.sw = s;
  win.dh = win.dw = d;
  win.pt = win.pl = win.pb = win.pr = p;
  win.group = group;
  win.oh = (h + 2 * p - d * (kh - 1) - 1) / s + 1;
  win.ow = (w + 2 * p - d * (kw - 1) - 1) / s + 1;
  return win;
}

TEST(Int8Gemm, ConvolutionsEqualADirectLoop) {
  uint32_t seed = 100;
  check_conv(window(3, 16, 17, 13, 7, 7, 2, 3, 1, 1), false, false, 128, seed++, 0, 255, -128, 127);
  check_conv(window(16, 24, 9, 9, 3, 3, 1, 1, 1, 1), false, false, 0, seed++, 230, 255, 100, 127);
  check_conv(window(17, 21, 8, 11, 1, 1, 1, 0, 1, 1), true, true, -7, seed++, -128, 127, -128, 127);
  check_conv(window(16, 33, 10, 7, 3, 1, 2, 1, 2, 1), true, false, 3, seed++, -128, 127, -128, 127);
  check_conv(window(12, 8, 7, 7, 3, 3, 1, 2, 1, 4), false, true, 255, seed++, 0, 255, -128, 127);
  check_conv(window(6, 10, 5, 6, 5, 3, 3, 2, 1, 2), false, false, 17, seed++, 0, 255, -128, 127);
  // padding at a zero point >= 128 (a listed high bit in every padded tap) and an s8 input whose
  // padding reads as -100 (28 once shifted to u8)
  check_conv(window(5, 18, 6, 6, 3, 3, 1, 1, 1, 1), false, false, 200, seed++, 0, 40, -128, 127);
  check_conv(window(5, 18, 6, 6, 3, 3, 1, 1, 1, 1), true, false, -100, seed++, -128, 127, -128,
             -128);
}

}  // namespace
}  // namespace hetcim::exec
