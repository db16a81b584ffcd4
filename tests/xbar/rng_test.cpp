#include "xbar/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "xbar/exp_bound.h"
#include "xbar/rng_detail.h"

namespace hetcim::xbar {
namespace {

TEST(Rng, SameSeedSameSequenceDifferentSeedDifferent) {
  Rng a(42), b(42), c(43);
  int differ = 0;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    differ += x != c.next_u64();
  }
  EXPECT_EQ(differ, 100);
}

TEST(Rng, DerivedStreamsDependOnNameAndSeed) {
  EXPECT_EQ(Rng::derive(7, "write/fc1"), Rng::derive(7, "write/fc1"));
  EXPECT_NE(Rng::derive(7, "write/fc1"), Rng::derive(7, "stuck/fc1"));
  EXPECT_NE(Rng::derive(7, "write/fc1"), Rng::derive(8, "write/fc1"));
}

TEST(Rng, UniformMomentsMatchU01) {
  Rng r(1);
  const int n = 200000;
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    s += u;
    s2 += u * u;
  }
  const double mean = s / n, var = s2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
}

// Both normal samplers: normal() (256-layer double ziggurat) and fill_normal() (4-lane,
// 128-layer float ziggurat), with blocks of 37 to cross fill_normal's 8-value steps.
std::vector<double> normal_draws(bool fill, uint64_t seed, int n) {
  Rng r(seed);
  std::vector<double> z(static_cast<size_t>(n));
  if (fill) {
    std::vector<float> block(37);
    for (int k = 0; k < n; k += 37) {
      r.fill_normal(block.data(), 37);
      for (int j = 0; j < 37 && k + j < n; ++j)
        z[static_cast<size_t>(k + j)] = block[static_cast<size_t>(j)];
    }
  } else {
    for (auto& v : z) v = r.normal();
  }
  return z;
}

// Standard normal: mean 0, variance 1, kurtosis 3, P(|z| > 3) = 0.0026998, P(|z| > 4) = 6.334e-5
// (the tails beyond the ziggurats' r = 3.654 / 3.443 are sampled separately).
TEST(Rng, NormalMomentsAndTailsMatchStandardNormal) {
  for (bool fill : {false, true}) {
    const int n = 1000000;
    const auto z = normal_draws(fill, 2024, n);
    double s = 0, s2 = 0, s4 = 0;
    int beyond3 = 0, beyond4 = 0;
    for (double v : z) {
      s += v;
      s2 += v * v;
      s4 += v * v * v * v;
      beyond3 += std::fabs(v) > 3.0;
      beyond4 += std::fabs(v) > 4.0;
    }
    const double mean = s / n, var = s2 / n - mean * mean;
    EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(n)) << "fill " << fill;
    EXPECT_NEAR(var, 1.0, 5 * std::sqrt(2.0 / n)) << "fill " << fill;
    EXPECT_NEAR(s4 / n, 3.0, 5 * std::sqrt(96.0 / n)) << "fill " << fill;
    const double p3 = 0.0026997961, p4 = 6.3342e-5;
    EXPECT_NEAR(beyond3, n * p3, 5 * std::sqrt(n * p3)) << "fill " << fill;
    EXPECT_NEAR(beyond4, n * p4, 5 * std::sqrt(n * p4)) << "fill " << fill;
  }
}

TEST(Rng, NormalCdfAtSeveralPointsWithinBinomialTolerance) {
  for (bool fill : {false, true}) {
    const int n = 400000;
    const auto z = normal_draws(fill, 99, n);
    for (double t : {-3.7, -2.0, -1.0, -0.3, 0.0, 0.5, 1.5, 2.5, 3.5}) {
      const double p = 0.5 * std::erfc(-t / std::sqrt(2.0));
      int below = 0;
      for (double v : z) below += v < t;
      EXPECT_NEAR(below, n * p, 5 * std::sqrt(n * p * (1 - p)) + 1)
          << "t = " << t << " fill " << fill;
    }
  }
}

TEST(Rng, FillNormalIsDeterministic) {
  Rng a(5), b(5);
  std::vector<float> x(1001), y(1001);
  a.fill_normal(x.data(), 1001);
  b.fill_normal(y.data(), 1001);
  EXPECT_EQ(x, y);
  a.fill_normal(x.data(), 1001);
  EXPECT_NE(x, y);
}

// fill_normal runs an AVX-512 kernel where the CPU has one, else an AVX2 kernel where it has
// that; each must give the bytes of the portable definition (same lanes, same ziggurat, same
// slow-path order), for lengths that end inside a 16-draw step (and inside the AVX2 kernel's
// 8-draw halves), on one, and across the 1024-candidate blocks, and leave the generator in the
// same state. The AVX2 kernel is also run directly (detail::fill_normal_avx2), so an AVX-512
// machine tests it too. (On a CPU without either, the calls are all portable.)
TEST(Rng, FillNormalMatchesItsPortableDefinitionByteForByte) {
  for (const int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 23, 1023, 1024, 1025, 40000}) {
    for (const uint64_t seed : {1ULL, 77ULL, 123456789ULL}) {
      Rng a(seed), b(seed), c(seed);
      std::vector<float> x(static_cast<size_t>(n) + 1, -1.0f), y(static_cast<size_t>(n) + 1, -1.0f);
      std::vector<float> w(static_cast<size_t>(n) + 1, -1.0f);
      a.fill_normal(x.data(), n);
      b.fill_normal_portable(y.data(), n);
      ASSERT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(float)))
          << "n " << n << " seed " << seed;
      const uint64_t next = b.next_u64();
      EXPECT_EQ(a.next_u64(), next) << "n " << n << " seed " << seed;
      if (detail::fill_normal_avx2(c, w.data(), n)) {
        ASSERT_EQ(0, std::memcmp(w.data(), y.data(), w.size() * sizeof(float)))
            << "AVX2 kernel, n " << n << " seed " << seed;
        EXPECT_EQ(c.next_u64(), next) << "AVX2 kernel, n " << n << " seed " << seed;
      }
    }
  }
}

// The wedge test's bound: exp_approx within 2e-8 of std::exp (relative) on [-8, 0], and
// below_exp deciding y < std::exp(a) exactly as std::exp does, for y on either side of std::exp(a)
// by 0 to 3 ulps (where the polynomial alone would decide wrongly), at the edges of its 1e-7 band,
// and anywhere in [0, 1]; a outside [-8, 0] goes to std::exp.
TEST(Rng, BelowExpDecidesAsStdExp) {
  Rng r(31);
  double worst = 0.0;
  int64_t checked = 0;
  for (int k = 0; k <= 400000; ++k) {
    const double a = k < 200000 ? -8.0 * k / 200000.0 : -8.0 * r.uniform();
    const double e = std::exp(a);
    worst = std::max(worst, std::fabs(exp_approx(a) - e) / e);
    std::vector<double> ys = {e,
                              e * (1 - 1e-7),
                              e * (1 + 1e-7),
                              e * (1 - 1.0001e-7),
                              e * (1 + 1.0001e-7),
                              e * (1 - 0.9999e-7),
                              e * (1 + 0.9999e-7),
                              r.uniform(),
                              0.0,
                              1.0};
    double up = e, down = e;
    for (int u = 0; u < 3; ++u) {
      up = std::nextafter(up, 2.0);
      down = std::nextafter(down, 0.0);
      ys.push_back(up);
      ys.push_back(down);
    }
    for (const double y : ys) {
      ASSERT_EQ(below_exp(y, a), y < e) << "a " << a << " y " << y;
      ++checked;
    }
  }
  EXPECT_LT(worst, 2e-8);
  EXPECT_GT(checked, 6000000);
  for (const double a : {-8.5, -30.0, 0.25, 3.0})
    for (const double y : {0.0, std::exp(a), std::nextafter(std::exp(a), 0.0), 1.0})
      EXPECT_EQ(below_exp(y, a), y < std::exp(a)) << "a " << a << " y " << y;
}

// Eight uniform streams side by side give each stream's own fill_uniform bytes, for every count
// of streams and a length that is not a multiple of anything.
TEST(Rng, FillUniformStreamsMatchesOneStreamAtATime) {
  const int64_t n = 37;
  for (int count = 1; count <= Rng::kUniformStreams; ++count) {
    std::vector<uint64_t> seeds;
    for (int l = 0; l < count; ++l) seeds.push_back(1000003ULL * static_cast<uint64_t>(l) + 5);
    std::vector<float> together(static_cast<size_t>(count * n) + 1, 9.0f);
    Rng::fill_uniform_streams(seeds.data(), count, together.data(), n, -0.25f, 0.75f);
    EXPECT_EQ(together.back(), 9.0f) << "wrote past count x n";
    for (int l = 0; l < count; ++l) {
      std::vector<float> alone(static_cast<size_t>(n));
      Rng(seeds[static_cast<size_t>(l)]).fill_uniform(alone.data(), n, -0.25f, 0.75f);
      EXPECT_EQ(0, std::memcmp(alone.data(), together.data() + l * n, n * sizeof(float)))
          << "count " << count << " stream " << l;
    }
  }
}

TEST(Rng, FillUniformStaysInRange) {
  Rng r(5);
  std::vector<float> v(10000);
  r.fill_uniform(v.data(), static_cast<int64_t>(v.size()), -2.0f, 3.0f);
  for (float x : v) {
    EXPECT_GE(x, -2.0f);
    EXPECT_LE(x, 3.0f);
  }
}

}  // namespace
}  // namespace hetcim::xbar
