// Confidence scores against hand-computed values, and the bias correction of eq. (6).
#include "select/confidence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "select/bias_correction.h"
#include "util/error.h"
#include "util/hash.h"

namespace hetcim::select {
namespace {

TEST(Confidence, HandComputedScoresOfOneRow) {
  const std::vector<float> z = {1.0f, 3.0f, 0.0f};  // top class 1, runner-up class 0
  const double s = std::exp(1.0) + std::exp(3.0) + 1.0;
  const double p1 = std::exp(3.0) / s, p2 = std::exp(1.0) / s, p3 = 1.0 / s;
  EXPECT_EQ(predictions(z, 3), std::vector<int>{1});
  EXPECT_NEAR(confidence_scores(z, 3, ConfidenceScore::LogitMargin)[0], 2.0, 1e-12);
  EXPECT_NEAR(confidence_scores(z, 3, ConfidenceScore::MaxSoftmax)[0], p1, 1e-12);
  EXPECT_NEAR(confidence_scores(z, 3, ConfidenceScore::ProbabilityMargin)[0], p1 - p2, 1e-12);
  EXPECT_NEAR(confidence_scores(z, 3, ConfidenceScore::LogOdds)[0], std::log(p1 / (1.0 - p1)),
              1e-12);
  EXPECT_NEAR(confidence_scores(z, 3, ConfidenceScore::NegativeEntropy)[0],
              p1 * std::log(p1) + p2 * std::log(p2) + p3 * std::log(p3), 1e-12);
}

TEST(Confidence, TiesAndUniformRows) {
  const std::vector<float> z = {2.0f, 2.0f, -1.0f, 0.5f, 0.5f, 0.5f};
  EXPECT_EQ(predictions(z, 3), (std::vector<int>{0, 0}));  // first index among equal maxima
  const auto m = confidence_scores(z, 3, ConfidenceScore::LogitMargin);
  EXPECT_EQ(m[0], 0.0);
  EXPECT_EQ(m[1], 0.0);
  EXPECT_NEAR(confidence_scores(z, 3, ConfidenceScore::NegativeEntropy)[1], -std::log(3.0), 1e-12);
  EXPECT_NEAR(confidence_scores(z, 3, ConfidenceScore::MaxSoftmax)[1], 1.0 / 3.0, 1e-12);
}

TEST(Confidence, MaxSoftmaxAndLogOddsRankRowsIdentically) {
  // Table III of seed 002 lists identical results for the two: one is a monotone function of the
  // other. Moderate random logits keep p_(1) away from 1.
  SplitMix64 g{42};
  const int64_t rows = 500, K = 10;
  std::vector<float> z(rows * K);
  for (float& v : z) v = static_cast<float>(8.0 * g.uniform01() - 4.0);
  const auto a = confidence_scores(z, K, ConfidenceScore::MaxSoftmax);
  const auto b = confidence_scores(z, K, ConfidenceScore::LogOdds);
  std::vector<size_t> ia(rows), ib(rows);
  std::iota(ia.begin(), ia.end(), size_t{0});
  std::iota(ib.begin(), ib.end(), size_t{0});
  std::stable_sort(ia.begin(), ia.end(), [&](size_t x, size_t y) { return a[x] > a[y]; });
  std::stable_sort(ib.begin(), ib.end(), [&](size_t x, size_t y) { return b[x] > b[y]; });
  EXPECT_EQ(ia, ib);
  for (int64_t r = 0; r < rows; ++r) EXPECT_NEAR(b[r], std::log(a[r] / (1.0 - a[r])), 1e-9);
}

TEST(Confidence, NamesRoundTripAndBadInputIsRejected) {
  for (auto s : {ConfidenceScore::LogitMargin, ConfidenceScore::MaxSoftmax,
                 ConfidenceScore::ProbabilityMargin, ConfidenceScore::LogOdds,
                 ConfidenceScore::NegativeEntropy})
    EXPECT_EQ(parse_confidence_score(confidence_score_name(s)), s);
  EXPECT_EQ(parse_confidence_score("logit-margin"), ConfidenceScore::LogitMargin);
  EXPECT_THROW((void)parse_confidence_score("margin"), UserError);
  EXPECT_THROW((void)predictions(std::vector<float>{1, 2, 3}, 2), UserError);  // not a multiple
  EXPECT_THROW((void)predictions(std::vector<float>{1, 2}, 1), UserError);     // one class
  const std::vector<float> nan_row = {1.0f, std::nanf("")};
  EXPECT_THROW((void)confidence_scores(nan_row, 2, ConfidenceScore::LogitMargin), UserError);
}

TEST(BiasCorrection, MeanDifferenceOverTheHardwareRowsOnly) {
  // 3 rows x 2 classes; H = rows {0, 2}.
  const std::vector<float> raw = {1.0f, 2.0f, 100.0f, 100.0f, 3.0f, -1.0f};
  const std::vector<float> ref = {0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f};
  const std::vector<int64_t> h = {0, 2};
  const auto b = logit_bias(raw, ref, 2, h);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_DOUBLE_EQ(b[0], ((1.0 - 0.0) + (3.0 - 1.0)) / 2.0);   // 1.5
  EXPECT_DOUBLE_EQ(b[1], ((2.0 - 0.0) + (-1.0 - 1.0)) / 2.0);  // 0
  const auto z = apply_bias(raw, 2, b);
  EXPECT_FLOAT_EQ(z[0], -0.5f);
  EXPECT_FLOAT_EQ(z[2], 98.5f);
  EXPECT_FLOAT_EQ(z[5], -1.0f);
  EXPECT_THROW((void)logit_bias(raw, ref, 2, std::vector<int64_t>{}), UserError);
  EXPECT_THROW((void)logit_bias(raw, ref, 2, std::vector<int64_t>{3}), UserError);
  EXPECT_THROW((void)logit_bias(raw, std::vector<float>{0.0f}, 2, h), UserError);
}

}  // namespace
}  // namespace hetcim::select
