#include "xbar/chip.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "util/error.h"
#include "xbar/rng.h"

namespace hetcim::xbar {
namespace {

ChipProfile ideal(const char* name = "ideal") {
  ChipProfile p;
  p.name = name;
  return p;
}

std::vector<float> random_matrix(int64_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> w(static_cast<size_t>(n));
  for (auto& x : w) x = static_cast<float>(r.normal());
  return w;
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<float> span_vec(std::span<const float> s) {
  return {s.begin(), s.end()};
}

// W (inputs x outputs) = [[1, 0.5], [0, -1]]: levels [255, 128, 0, -255] (127.5 -> 128).
// x = [1, 0.5]: DAC s = 1, codes [127, 64] (63.5 -> 64): v = [1, 64/127].
//   currents: col0 = 1, col1 = 128/255 - 64/127; ADC full scale 1: codes [127, round(-0.2515) = 0]
//   -> y = [1, 0].
// x = [0.25, 1]: v = [32/127 (31.75 -> 32), 1]; col0 = 32/127, col1 = (32/127)(128/255) - 1;
//   full scale |col1|, col1 -> code -127, col0 -> round(col0 / |col1| * 127) = 37.
TEST(Chip, NoiselessForwardByHand) {
  const Chip chip(ideal(), 3);
  const std::vector<float> w = {1.0f, 0.5f, 0.0f, -1.0f};
  const ProgrammedLayer layer = chip.program("fc", w.data(), 2, 2);
  const std::vector<float> x = {1.0f, 0.5f, 0.25f, 1.0f};
  std::vector<float> y(4);
  Rng rng(1);
  ForwardStats stats;
  layer.forward(x.data(), 2, y.data(), rng, &stats);
  EXPECT_NEAR(y[0], 1.0, 1e-6);
  EXPECT_NEAR(y[1], 0.0, 1e-6);
  const double col0 = 32.0 / 127;
  const double col1 = (32.0 / 127) * (128.0 / 255) - 1.0;
  EXPECT_NEAR(col0 / std::fabs(col1) * 127, 36.63, 0.01);  // rounds to 37
  EXPECT_NEAR(y[2], 37.0 / 127 * std::fabs(col1), 1e-6);
  EXPECT_NEAR(y[3], col1, 1e-6);
  EXPECT_EQ(stats.dac_conversions, 4);
  EXPECT_EQ(stats.adc_conversions, 4);
  EXPECT_EQ(stats.adc_clipped, 0);
}

TEST(Chip, IdealConvertersAndEightBitDevicesTrackTheDigitalProduct) {
  ChipProfile p = ideal();
  p.dac_bits = 0;
  p.adc_bits = 0;
  const int64_t K = 300, N = 40, B = 5;
  const auto w = random_matrix(K * N, 11);
  const auto x = random_matrix(B * K, 12);
  const ProgrammedLayer layer = Chip(p, 1).program("fc", w.data(), K, N);
  EXPECT_EQ(layer.row_tiles(), 2);  // 256-row arrays
  std::vector<float> y(B * N);
  Rng rng(1);
  layer.forward(x.data(), B, y.data(), rng);
  const auto eff = layer.effective_weights();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k) ref += double(x[b * K + k]) * eff[k * N + n];
      EXPECT_NEAR(y[b * N + n], ref, 1e-4 * (1 + std::fabs(ref)));
    }
}

TEST(Chip, SameSeedSameStateDifferentSeedOrLayerDiffers) {
  ChipProfile p = ideal("noisy");
  p.write_noise = 5e-6;
  p.stuck_fraction = 0.01;
  const auto w = random_matrix(64 * 32, 5);
  const Chip a(p, 7), b(p, 7), c(p, 8);
  const ProgrammedLayer la = a.program("fc1", w.data(), 64, 32);
  const ProgrammedLayer la2 = a.program("fc1", w.data(), 64, 32);
  const ProgrammedLayer lb = b.program("fc1", w.data(), 64, 32);
  const ProgrammedLayer lc = c.program("fc1", w.data(), 64, 32);
  const ProgrammedLayer lother = a.program("fc2", w.data(), 64, 32);
  EXPECT_TRUE(same_bytes(span_vec(la.g_plus()), span_vec(la2.g_plus())));
  EXPECT_TRUE(same_bytes(span_vec(la.g_plus()), span_vec(lb.g_plus())));
  EXPECT_TRUE(same_bytes(span_vec(la.g_minus()), span_vec(lb.g_minus())));
  EXPECT_FALSE(same_bytes(span_vec(la.g_plus()), span_vec(lc.g_plus())));
  EXPECT_FALSE(same_bytes(span_vec(la.g_plus()), span_vec(lother.g_plus())));
}

TEST(Chip, SameReadRngSameBytesFreshReadsDiffer) {
  ChipProfile p = ideal("noisy");
  p.read_noise = 3e-6;
  p.write_noise = 2e-6;
  const auto w = random_matrix(600 * 20, 5);
  const auto x = random_matrix(8 * 600, 6);
  const ProgrammedLayer layer = Chip(p, 1).program("fc", w.data(), 600, 20);
  std::vector<float> y1(8 * 20), y2(8 * 20), y3(8 * 20);
  Rng r1(10), r2(10);
  layer.forward(x.data(), 8, y1.data(), r1);
  layer.forward(x.data(), 8, y2.data(), r2);
  EXPECT_TRUE(same_bytes(y1, y2));
  layer.forward(x.data(), 8, y3.data(), r1);  // the next read: fresh noise
  EXPECT_FALSE(same_bytes(y1, y3));
}

// Stuck devices: a binomial count. 2 * 200 * 200 = 80000 devices, p = 5 %, half of them high.
TEST(Chip, StuckFractionWithinBinomialTolerance) {
  ChipProfile p = ideal("stuck");
  p.stuck_fraction = 0.05;
  p.stuck_high_share = 0.3;
  const int64_t K = 200, N = 200;
  const auto w = random_matrix(K * N, 9);
  const ProgrammedLayer layer = Chip(p, 4).program("fc", w.data(), K, N);
  const double n = 2.0 * K * N;
  const double ph = 0.05 * 0.3, pl = 0.05 * 0.7;
  const MappingAudit& a = layer.audit();
  EXPECT_NEAR(a.stuck_high, n * ph, 5 * std::sqrt(n * ph * (1 - ph)));
  EXPECT_NEAR(a.stuck_low, n * pl, 5 * std::sqrt(n * pl * (1 - pl)));
  // Every device at G_max is either a full-scale target or stuck high; the programmed state
  // holds at least the stuck-high count at exactly G_max.
  int64_t at_max = 0;
  for (float g : layer.g_plus()) at_max += g == static_cast<float>(p.g_max);
  for (float g : layer.g_minus()) at_max += g == static_cast<float>(p.g_max);
  EXPECT_GE(at_max, a.stuck_high);
  EXPECT_GT(a.programmed.rmse, a.quantized.rmse);
}

// Write noise: the programmed deviation from the target is N(0, sigma^2) away from the bounds.
TEST(Chip, WriteNoiseHasTheProfileStd) {
  ChipProfile p = ideal("w");
  p.write_noise = 4e-6;
  const int64_t n = 40000;
  // |w| = gamma / 2 for all weights: G+ = G_min + 128/255 * range ~ 183 uS, 50 uS from both bounds.
  std::vector<float> w(static_cast<size_t>(n), 0.5f);
  w[0] = 1.0f;
  const ProgrammedLayer layer = Chip(p, 2).program("fc", w.data(), n, 1);
  const double target = p.g_min + 128.0 / 255 * (p.g_max - p.g_min);
  double s = 0, s2 = 0;
  for (int64_t i = 1; i < n; ++i) {
    const double d = layer.g_plus()[static_cast<size_t>(i)] - target;
    s += d;
    s2 += d * d;
  }
  const double m = s / (n - 1), sd = std::sqrt(s2 / (n - 1) - m * m);
  EXPECT_NEAR(m, 0.0, 5 * 4e-6 / std::sqrt(n));
  EXPECT_NEAR(sd / 4e-6, 1.0, 0.02);
}

// Reference mode: uniform read noise +/-a, clamped. A weight at +gamma has G+ = G_max and
// G- = G_min; clamping folds half of each device's noise onto the bound, so
// E[G+ read] = G_max - a/4 and E[G- read] = G_min + a/4: E[w_read] = gamma (1 - a / (2 range)).
TEST(Chip, ReferenceModeClampsUniformReadNoise) {
  ChipProfile p = ideal("ref");
  p.mode = SimMode::Reference;
  p.read_noise = 20e-6;
  const std::vector<float> w = {2.0f};
  const ProgrammedLayer layer = Chip(p, 1).program("one", w.data(), 1, 1);
  Rng rng(3);
  const int calls = 40000;
  double s = 0;
  const float x = 1.0f;
  for (int i = 0; i < calls; ++i) {
    float y = 0;
    layer.forward(&x, 1, &y, rng);
    EXPECT_LE(y, 2.0f + 1e-6f);
    s += y;
  }
  const double expected = 2.0 * (1 - 20e-6 / (2 * 100e-6));  // 1.8
  // std of one read: each device read has std sqrt(a^2 (1/12 + 1/16) ... ) <= a / 2; so
  // sd(w_read) <= gamma * a / range = 0.4 and the mean is within 5 * 0.4 / sqrt(calls).
  EXPECT_NEAR(s / calls, expected, 5 * 0.4 / std::sqrt(calls));
}

// Reference mode draws the read noise once per call: identical inputs in one batch give
// identical outputs; physical mode reads every vector separately.
TEST(Chip, ReferenceNoiseIsSharedByTheBatchPhysicalIsNot) {
  const auto w = random_matrix(50 * 10, 1);
  std::vector<float> x(4 * 50);
  const auto row = random_matrix(50, 2);
  for (int b = 0; b < 4; ++b) std::copy(row.begin(), row.end(), x.begin() + b * 50);
  for (SimMode mode : {SimMode::Reference, SimMode::Physical}) {
    ChipProfile p = ideal("m");
    p.mode = mode;
    p.read_noise = 5e-6;
    const ProgrammedLayer layer = Chip(p, 1).program("fc", w.data(), 50, 10);
    std::vector<float> y(4 * 10);
    Rng rng(4);
    layer.forward(x.data(), 4, y.data(), rng);
    const bool equal_rows = std::equal(y.begin(), y.begin() + 10, y.begin() + 10);
    EXPECT_EQ(equal_rows, mode == SimMode::Reference) << sim_mode_name(mode);
  }
}

TEST(Chip, FixedAdcClipsAndCounts) {
  ChipProfile p = ideal("fixed");
  p.adc_ranging = AdcRanging::Fixed;
  p.adc_full_scale = 2.0;  // two devices at full difference, full input
  // 8 inputs of weight +gamma each, all inputs at full scale: current 8 > 2 -> clipped at 2.
  const std::vector<float> w(8, 1.0f);
  const ProgrammedLayer layer = Chip(p, 1).program("fc", w.data(), 8, 1);
  const std::vector<float> x(8, 0.5f);
  float y = 0;
  Rng rng(1);
  ForwardStats st;
  layer.forward(x.data(), 1, &y, rng, &st);
  EXPECT_EQ(st.adc_clipped, 1);
  EXPECT_NEAR(y, 1.0 * 0.5 * 2.0, 1e-6);  // gamma * s * full scale
  // One input only: current 1 (code 63.5 -> 64 of 127 at full scale 2).
  const std::vector<float> x1 = {0.5f, 0, 0, 0, 0, 0, 0, 0};
  ForwardStats st1;
  layer.forward(x1.data(), 1, &y, rng, &st1);
  EXPECT_EQ(st1.adc_clipped, 0);
  EXPECT_NEAR(y, 0.5 * 64.0 / 127 * 2.0, 1e-6);
}

TEST(Chip, TilingSplitsOverArrays) {
  ChipProfile p = ideal("small");
  p.array_rows = 100;
  p.array_cols = 20;  // 10 weight columns per array
  const auto w = random_matrix(250 * 25, 3);
  const ProgrammedLayer layer = Chip(p, 1).program("fc", w.data(), 250, 25);
  EXPECT_EQ(layer.row_tiles(), 3);
  EXPECT_EQ(layer.col_tiles(), 3);
  EXPECT_EQ(layer.audit().tiles, 9);
  p.mode = SimMode::Reference;
  const ProgrammedLayer ref = Chip(p, 1).program("fc", w.data(), 250, 25);
  EXPECT_EQ(ref.audit().tiles, 1);
}

// Fixed chunks of vectors and per-vector noise streams: the thread count never changes the bytes,
// for a layer large enough to run in parallel and for a small one that runs inline.
// Input rows produced on demand (a convolution's im2col chunks) give the bytes of the whole
// matrix, across chunk boundaries (1300 rows: 512, 512, 276), in both modes, with the read rng
// advanced alike (the next call's noise agrees too).
TEST(Chip, RowSourceGivesTheBytesOfTheWholeMatrix) {
  for (SimMode mode : {SimMode::Physical, SimMode::Reference}) {
    ChipProfile p = ideal("rows");
    p.mode = mode;
    p.read_noise = 4e-6;
    p.array_rows = 64;
    const int64_t K = 100, N = 24, batch = 1300;
    const auto w = random_matrix(K * N, 31);
    const auto x = random_matrix(batch * K, 32);
    const ProgrammedLayer layer = Chip(p, 1).program("conv", w.data(), K, N);
    std::vector<float> whole(static_cast<size_t>(batch * N)), chunked(whole.size());
    Rng r1(9), r2(9);
    ForwardStats s1, s2;
    layer.forward(x.data(), batch, whole.data(), r1, &s1);
    int64_t asked = 0;
    layer.forward_rows(
        [&](int64_t first, int64_t n, float* out) {
          asked += n;
          std::memcpy(out, x.data() + first * K, static_cast<size_t>(n * K) * sizeof(float));
        },
        batch, chunked.data(), r2, &s2);
    EXPECT_EQ(asked, batch) << sim_mode_name(mode);
    EXPECT_TRUE(same_bytes(whole, chunked)) << sim_mode_name(mode);
    EXPECT_EQ(s1.adc_conversions, s2.adc_conversions);
    EXPECT_EQ(r1.next_u64(), r2.next_u64());
  }
}

// The output epilogue run inside the simulator's ADC pass (on the last row tile, and on vectors
// with no input voltage, which skip the ADC) gives the bytes of the product followed by the
// epilogue by hand: y + shift[c], then the activation. Two row tiles (the last partial) and three
// column tiles, an all-zero input vector, every activation kind, both modes.
TEST(Chip, EpilogueInTheAdcPassGivesTheBytesOfApplyingItAfterwards) {
  using Act = OutputEpilogue::Act;
  for (SimMode mode : {SimMode::Physical, SimMode::Reference}) {
    ChipProfile p = ideal("epilogue");
    p.mode = mode;
    p.read_noise = 4e-6;
    p.array_rows = 64;
    p.array_cols = 16;
    const int64_t K = 100, N = 40, batch = 700;
    const auto w = random_matrix(K * N, 41);
    auto x = random_matrix(batch * K, 42);
    std::fill(x.begin() + 5 * K, x.begin() + 6 * K, 0.0f);  // vector 5: no input voltage
    const auto shift = random_matrix(N, 43);
    const ProgrammedLayer layer = Chip(p, 2).program("fc", w.data(), K, N);
    for (Act act : {Act::None, Act::Relu, Act::Clip}) {
      for (bool with_shift : {false, true}) {
        OutputEpilogue e;
        e.act = act;
        e.lo = -0.5f;
        e.hi = 0.75f;
        if (with_shift) e.shift = shift;
        std::vector<float> fused(static_cast<size_t>(batch * N)), after(fused.size());
        Rng r1(7), r2(7);
        layer.forward(x.data(), batch, fused.data(), r1, nullptr, &e);
        layer.forward(x.data(), batch, after.data(), r2);
        for (size_t i = 0; i < after.size(); ++i) {
          float v = after[i];
          if (with_shift) v = v + shift[i % static_cast<size_t>(N)];
          if (act == Act::Relu) v = v > 0 ? v : 0;
          if (act == Act::Clip) v = v < e.lo ? e.lo : (v > e.hi ? e.hi : v);
          after[i] = v;
        }
        EXPECT_TRUE(same_bytes(fused, after))
            << sim_mode_name(mode) << " act " << static_cast<int>(act) << " shift " << with_shift;
        if (with_shift && act == Act::None) {  // the shift reached the all-zero vector's outputs
          EXPECT_EQ(fused[static_cast<size_t>(5 * N + 3)], shift[3]);
        }
      }
    }
  }
}

TEST(Chip, SameBytesForAnyThreadCount) {
  for (SimMode mode : {SimMode::Physical, SimMode::Reference}) {
    for (int64_t batch : {3, 300}) {
      ChipProfile p = ideal("threads");
      p.mode = mode;
      p.read_noise = 4e-6;
      p.write_noise = 2e-6;
      p.array_rows = 128;
      const int64_t K = 300, N = 40;
      const auto w = random_matrix(K * N, 21);
      const auto x = random_matrix(batch * K, 22);
      const ProgrammedLayer layer = Chip(p, 1).program("fc", w.data(), K, N);
      std::vector<float> one(static_cast<size_t>(batch * N)), two(one.size());
      const int saved = omp_get_max_threads();
      omp_set_num_threads(1);
      Rng r1(5);
      layer.forward(x.data(), batch, one.data(), r1);
      omp_set_num_threads(2);
      Rng r2(5);
      layer.forward(x.data(), batch, two.data(), r2);
      omp_set_num_threads(saved);
      EXPECT_TRUE(same_bytes(one, two)) << sim_mode_name(mode) << " batch " << batch;
    }
  }
}

TEST(Chip, BadInputsAreUserErrors) {
  const Chip chip(ideal(), 1);
  std::vector<float> w = {1.0f, std::nanf("")};
  EXPECT_THROW((void)chip.program("fc", w.data(), 1, 2), UserError);
  EXPECT_THROW((void)chip.program("fc", w.data(), 0, 2), UserError);
  ChipProfile bad = ideal("bad");
  bad.g_min = 300e-6;
  try {
    Chip c(bad, 1);
    FAIL() << "accepted g_min >= g_max";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'bad'"), std::string::npos);
  }
  w[1] = 0.5f;
  const ProgrammedLayer layer = chip.program("fc", w.data(), 1, 2);
  Rng rng(1);
  float x = 1, y[2];
  EXPECT_THROW(layer.forward(&x, -1, y, rng), UserError);
}

}  // namespace
}  // namespace hetcim::xbar
