// The fast path's read noise against brute force: the fast path draws one Gaussian per column
// and vector with std sqrt(2) sigma ||v_tile||_2 / (G_max - G_min); brute force perturbs every
// device of every read by N(0, sigma^2) and sums the currents. Both must agree in mean and
// standard deviation per output (std ratio within 2 % over many seeded draws), and both must
// match the closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "xbar/chip.h"
#include "xbar/rng.h"

namespace hetcim::xbar {
namespace {

struct Moments {
  std::vector<double> mean, sd;
};

Moments moments(const std::vector<std::vector<float>>& draws) {
  const size_t n = draws.front().size();
  Moments m{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  for (const auto& d : draws)
    for (size_t j = 0; j < n; ++j) m.mean[j] += d[j];
  for (auto& v : m.mean) v /= static_cast<double>(draws.size());
  for (const auto& d : draws)
    for (size_t j = 0; j < n; ++j) m.sd[j] += (d[j] - m.mean[j]) * (d[j] - m.mean[j]);
  for (auto& v : m.sd) v = std::sqrt(v / static_cast<double>(draws.size() - 1));
  return m;
}

// Brute force: every device read independently perturbed, one vector.
std::vector<float> brute_force_read(const ProgrammedLayer& layer, const std::vector<float>& x,
                                    Rng& rng) {
  const ChipProfile& p = layer.profile();
  const int64_t K = layer.rows(), N = layer.cols();
  const double range = p.g_max - p.g_min;
  std::vector<double> acc(static_cast<size_t>(N), 0.0);
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t n = 0; n < N; ++n) {
      const size_t i = static_cast<size_t>(k * N + n);
      const double gp = layer.g_plus()[i] + p.read_noise * rng.normal();
      const double gm = layer.g_minus()[i] + p.read_noise * rng.normal();
      acc[static_cast<size_t>(n)] += x[static_cast<size_t>(k)] * (gp - gm) / range;
    }
  }
  std::vector<float> y(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n)
    y[static_cast<size_t>(n)] = static_cast<float>(layer.gamma() * acc[static_cast<size_t>(n)]);
  return y;
}

void check_equivalence(int64_t K, int64_t N, int64_t array_rows, int draws) {
  ChipProfile p;
  p.name = "eq";
  p.read_noise = 6e-6;
  p.write_noise = 3e-6;
  p.dac_bits = 0;  // ideal converters: compare the analog sums themselves
  p.adc_bits = 0;
  p.array_rows = array_rows;
  Rng wr(1);
  std::vector<float> w(static_cast<size_t>(K * N)), x(static_cast<size_t>(K));
  for (auto& v : w) v = static_cast<float>(wr.normal());
  for (auto& v : x) v = static_cast<float>(wr.uniform() * 2 - 1);
  const ProgrammedLayer layer = Chip(p, 5).program("fc", w.data(), K, N);

  // The fast path reads the same vector `draws` times (a batch of copies: independent reads).
  std::vector<float> xb(static_cast<size_t>(draws * K));
  for (int d = 0; d < draws; ++d) std::copy(x.begin(), x.end(), xb.begin() + d * K);
  std::vector<float> yb(static_cast<size_t>(draws * N));
  Rng fast_rng(100);
  layer.forward(xb.data(), draws, yb.data(), fast_rng);
  std::vector<std::vector<float>> fast(static_cast<size_t>(draws)),
      brute(static_cast<size_t>(draws));
  for (int d = 0; d < draws; ++d)
    fast[static_cast<size_t>(d)].assign(yb.begin() + d * N, yb.begin() + (d + 1) * N);
  Rng brute_rng(200);
  for (int d = 0; d < draws; ++d)
    brute[static_cast<size_t>(d)] = brute_force_read(layer, x, brute_rng);

  const Moments mf = moments(fast), mb = moments(brute);
  // Closed form: mean x * W_eff, std gamma * sqrt(2) sigma / range * ||x||_2 (one tile or many:
  // independent tiles add variances, and their ||x_tile||^2 add up to ||x||^2).
  const std::vector<float> eff = layer.effective_weights();
  double x2 = 0;
  for (float v : x) x2 += double(v) * v;
  const double sd_exact =
      layer.gamma() * std::sqrt(2.0) * p.read_noise / (p.g_max - p.g_min) * std::sqrt(x2);
  for (int64_t n = 0; n < N; ++n) {
    double mean_exact = 0;
    for (int64_t k = 0; k < K; ++k)
      mean_exact += double(x[static_cast<size_t>(k)]) * eff[static_cast<size_t>(k * N + n)];
    const double se = 5 * sd_exact / std::sqrt(draws);
    const auto j = static_cast<size_t>(n);
    EXPECT_NEAR(mf.mean[j], mean_exact, se) << "column " << n;
    EXPECT_NEAR(mb.mean[j], mean_exact, se) << "column " << n;
    EXPECT_NEAR(mf.sd[j] / mb.sd[j], 1.0, 0.02) << "column " << n;
    EXPECT_NEAR(mf.sd[j] / sd_exact, 1.0, 0.02) << "column " << n;
  }
}

TEST(ReadNoise, FastPathMatchesPerDeviceSamplingOnOneArray) {
  check_equivalence(64, 6, 256, 40000);
}

TEST(ReadNoise, FastPathMatchesPerDeviceSamplingOverTiledArrays) {
  check_equivalence(96, 4, 40, 40000);  // 3 row tiles of 40, 40, 16 rows
}

// Noise on different columns and different vectors is independent (the covariance of two
// columns' outputs is 0 in the per-device model, since they share no device).
TEST(ReadNoise, ColumnsAreUncorrelated) {
  ChipProfile p;
  p.name = "c";
  p.read_noise = 8e-6;
  p.dac_bits = 0;
  p.adc_bits = 0;
  const std::vector<float> w = {1.0f, 1.0f, 1.0f, 1.0f};  // 2 x 2
  const ProgrammedLayer layer = Chip(p, 1).program("fc", w.data(), 2, 2);
  const int draws = 40000;
  std::vector<float> x(static_cast<size_t>(2 * draws), 1.0f), y(static_cast<size_t>(2 * draws));
  Rng rng(9);
  layer.forward(x.data(), draws, y.data(), rng);
  double m0 = 0, m1 = 0;
  for (int d = 0; d < draws; ++d) {
    m0 += y[static_cast<size_t>(2 * d)];
    m1 += y[static_cast<size_t>(2 * d + 1)];
  }
  m0 /= draws;
  m1 /= draws;
  double c = 0, v0 = 0, v1 = 0;
  for (int d = 0; d < draws; ++d) {
    const double a = y[static_cast<size_t>(2 * d)] - m0, b = y[static_cast<size_t>(2 * d + 1)] - m1;
    c += a * b;
    v0 += a * a;
    v1 += b * b;
  }
  EXPECT_NEAR(c / std::sqrt(v0 * v1), 0.0, 5.0 / std::sqrt(draws));
}

}  // namespace
}  // namespace hetcim::xbar
