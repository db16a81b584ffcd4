#include "xbar/mapping.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "xbar/chip.h"

namespace hetcim::xbar {
namespace {

constexpr double kGmin = 133e-6, kGmax = 233e-6;

// W = [[1.0, -0.25], [0.1, -0.6]], gamma = 1, Q = 255: 255, -round(63.75) = -64,
// round(25.5000004) = 26 (0.1f is slightly above 0.1), -round(153.0000061) = -153.
TEST(Mapping, LevelsOfEquation4ByHand) {
  const std::vector<float> w = {1.0f, -0.25f, 0.1f, -0.6f};
  const LevelMapping m = map_levels(w.data(), 2, 2, 8);
  EXPECT_EQ(m.q, 255);
  EXPECT_DOUBLE_EQ(m.gamma, 1.0);
  EXPECT_EQ(m.levels, (std::vector<int32_t>{255, -64, 26, -153}));
  EXPECT_EQ(m.clipped_weights, 0);
}

TEST(Mapping, RoundsHalfToEvenLikeTorchRound) {
  // gamma = max |w| = 2: |w| = 1 -> 255 / 2 = 127.5 -> 128 (the even neighbour), 0.5 -> 63.75
  // -> 64.
  const std::vector<float> w = {2.0f, 1.0f, -1.0f, 0.5f};
  const LevelMapping m = map_levels(w.data(), 1, 4, 8);
  EXPECT_EQ(m.levels, (std::vector<int32_t>{255, 128, -128, 64}));
  // Q = 1 (1-bit devices): |w|/gamma = 0.5 -> round half to even = 0.
  const LevelMapping one = map_levels(w.data(), 1, 4, 1);
  EXPECT_EQ(one.levels, (std::vector<int32_t>{1, 0, 0, 0}));
}

TEST(Mapping, PairConductancesPutTheIdleDeviceAtGmin) {
  auto [gp, gm] = pair_conductance(255, 255, kGmin, kGmax);
  EXPECT_DOUBLE_EQ(gp, kGmax);
  EXPECT_DOUBLE_EQ(gm, kGmin);
  std::tie(gp, gm) = pair_conductance(-64, 255, kGmin, kGmax);
  EXPECT_DOUBLE_EQ(gp, kGmin);
  EXPECT_NEAR(gm, 133e-6 + 64.0 / 255.0 * 100e-6, 1e-15);  // 158.098 uS
  std::tie(gp, gm) = pair_conductance(0, 255, kGmin, kGmax);
  EXPECT_DOUBLE_EQ(gp, kGmin);
  EXPECT_DOUBLE_EQ(gm, kGmin);
  // Eq. (5): gamma (G+ - G-) / (G_max - G_min).
  EXPECT_NEAR(reconstruct_weight(kGmin, 158.0980392e-6, 1.0, kGmin, kGmax), -64.0 / 255.0, 1e-9);
  EXPECT_NEAR(reconstruct_weight(183e-6, kGmin, 0.4, kGmin, kGmax), 0.2, 1e-12);
}

TEST(Mapping, CallerGammaClipsLargerWeights) {
  const std::vector<float> w = {1.0f, -0.25f, 0.1f, -0.6f};
  const LevelMapping m = map_levels(w.data(), 2, 2, 8, 0.5);
  EXPECT_EQ(m.clipped_weights, 2);
  EXPECT_EQ(m.levels[0], 255);
  EXPECT_EQ(m.levels[3], -255);
  EXPECT_EQ(m.levels[1], -128);  // 0.25 / 0.5 * 255 = 127.5 -> 128
}

TEST(Mapping, ErrorMetricsByHand) {
  const std::vector<float> ref = {1.0f, -2.0f, 0.0f, 2.0f};
  const std::vector<float> approx = {1.5f, -2.0f, -1.0f, 2.0f};
  const ErrorMetrics e = error_metrics(ref.data(), approx.data(), 4);
  EXPECT_DOUBLE_EQ(e.mae, 1.5 / 4);
  EXPECT_DOUBLE_EQ(e.rmse, std::sqrt(1.25 / 4));
  EXPECT_DOUBLE_EQ(e.rel_l2, std::sqrt(1.25 / 9));
}

// The audit of a chip without device errors: 4 distinct levels, reconstructed values
// [1, -64/255, 26/255, -153/255] against [1, -0.25, 0.1f, -0.6f].
TEST(Mapping, AuditOfKnownMatrixOnAnIdealChip) {
  ChipProfile p;
  p.name = "ideal";
  const Chip chip(p, 1);
  const std::vector<float> w = {1.0f, -0.25f, 0.1f, -0.6f};
  const ProgrammedLayer layer = chip.program("fc", w.data(), 2, 2);
  const MappingAudit& a = layer.audit();
  EXPECT_EQ(a.layer, "fc");
  EXPECT_EQ(a.distinct_levels, 4);
  EXPECT_EQ(a.clipped_weights, 0);
  EXPECT_EQ(a.clamped_devices, 0);
  EXPECT_EQ(a.stuck_low + a.stuck_high, 0);
  EXPECT_EQ(a.tiles, 1);
  const double e1 = 64.0 / 255 - 0.25;           // |w_hat - w| of -0.25
  const double e2 = 26.0 / 255 - double(0.1f);   // of 0.1
  const double e3 = 153.0 / 255 - double(0.6f);  // of -0.6 (~2.4e-8, float rounding of 0.6)
  const double mae = (e1 + e2 + std::fabs(e3)) / 4;
  const double sq = e1 * e1 + e2 * e2 + e3 * e3;
  const double ref2 = 1.0 + 0.0625 + double(0.1f) * double(0.1f) + double(0.6f) * double(0.6f);
  EXPECT_NEAR(a.quantized.mae, mae, 1e-7);
  EXPECT_NEAR(a.quantized.rmse, std::sqrt(sq / 4), 1e-7);
  EXPECT_NEAR(a.quantized.rel_l2, std::sqrt(sq / ref2), 1e-7);
  // Without write noise and faults the programmed devices are the targets.
  EXPECT_NEAR(a.programmed.mae, a.quantized.mae, 1e-7);
  EXPECT_NEAR(layer.g_plus()[0], kGmax, 1e-11);  // stored as float
  EXPECT_NEAR(layer.g_minus()[1], 133e-6 + 64.0 / 255 * 100e-6, 1e-11);
  const std::vector<float> eff = layer.effective_weights();
  EXPECT_NEAR(eff[1], -64.0 / 255, 1e-6);
  EXPECT_NEAR(eff[2], 26.0 / 255, 1e-6);
}

TEST(Mapping, DistinctLevelsOfAFineRampUseAllLevels) {
  // 2 * 255 + 1 = 511 signed levels; a ramp over [-1, 1] with 5001 points hits all of them.
  std::vector<float> w(5001);
  for (size_t i = 0; i < w.size(); ++i) w[i] = -1.0f + 2.0f * static_cast<float>(i) / 5000.0f;
  ChipProfile p;
  p.name = "ideal";
  const ProgrammedLayer layer = Chip(p, 1).program("ramp", w.data(), 5001, 1);
  EXPECT_EQ(layer.audit().distinct_levels, 511);
  // Uniform quantization error with step 1/255: RMSE -> step / sqrt(12).
  EXPECT_NEAR(layer.audit().quantized.rmse, (1.0 / 255) / std::sqrt(12.0), 2e-5);
}

TEST(Mapping, AllZeroMatrixMapsToZero) {
  const std::vector<float> w(6, 0.0f);
  const LevelMapping m = map_levels(w.data(), 2, 3, 8);
  EXPECT_EQ(m.gamma, 0.0);
  for (int32_t k : m.levels) EXPECT_EQ(k, 0);
}

}  // namespace
}  // namespace hetcim::xbar
