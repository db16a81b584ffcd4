// The threshold fit against hand-counted cases and against brute force over every threshold on
// small random score sets with ties; the certificate on its split.
#include "select/threshold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "select/certificate.h"
#include "select/clopper_pearson.h"
#include "util/error.h"
#include "util/hash.h"

namespace hetcim::select {
namespace {

// Rows with descending scores n, n-1, ..., 1 and the given correctness.
std::vector<double> descending(size_t n) {
  std::vector<double> s(n);
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<double>(n - i);
  return s;
}

TEST(Threshold, SmallestAcceptedSetWithZeroErrorsIsHandComputed) {
  // U(0, n; 0.10) = 1 - 0.1^(1/n) <= 0.08 needs n >= ln 0.1 / ln 0.92 = 27.6, i.e. n >= 28.
  const FitOptions o{0.08, 0.10};
  const std::vector<uint8_t> ok27(27, 1), ok28(28, 1);
  const ThresholdFit f27 = fit_threshold(descending(27), ok27, o);
  EXPECT_FALSE(f27.feasible);
  EXPECT_EQ(f27.stats.accepted, 0);
  EXPECT_EQ(f27.stats.coverage(), 0.0);
  EXPECT_TRUE(std::isinf(f27.threshold));
  EXPECT_EQ(f27.upper_bound, 1.0);
  EXPECT_EQ(f27.stats.correct, 27);
  const ThresholdFit f28 = fit_threshold(descending(28), ok28, o);
  ASSERT_TRUE(f28.feasible);
  EXPECT_EQ(f28.stats.accepted, 28);
  EXPECT_EQ(f28.threshold, 1.0);
  EXPECT_NEAR(f28.upper_bound, 1.0 - std::pow(0.1, 1.0 / 28.0), 1e-12);
}

TEST(Threshold, KeepsTheLargestPassingPrefixEvenAfterAFailingOne) {
  // 40 right answers, then 2 wrong, then 60 right: the prefixes of 41..~50 fail, the prefix of all
  // 102 (2 errors) passes: U(2, 102; 0.1) = 0.0515 <= 0.08. The rule keeps all 102.
  std::vector<uint8_t> c(102, 1);
  c[40] = c[41] = 0;
  const ThresholdFit f = fit_threshold(descending(102), c, FitOptions{0.08, 0.10});
  ASSERT_TRUE(f.feasible);
  EXPECT_EQ(f.stats.accepted, 102);
  EXPECT_EQ(f.stats.errors, 2);
  EXPECT_NEAR(f.stats.selective_risk(), 2.0 / 102.0, 1e-15);
  EXPECT_LE(clopper_pearson_upper(0, 40, 0.10), 0.08);  // the prefix before the errors passes
  EXPECT_GT(clopper_pearson_upper(2, 42, 0.10), 0.08);  // the failing prefix really fails
}

TEST(Threshold, TiedScoresEnterTogether) {
  // 28 right answers with score 2 and one wrong with score 2 as well: the tie cannot be split,
  // so the only candidate threshold 2 accepts 29 rows with 1 error: U(1, 29; 0.1) > 0.08.
  std::vector<double> s(29, 2.0);
  std::vector<uint8_t> c(29, 1);
  c[5] = 0;
  EXPECT_FALSE(fit_threshold(s, c, FitOptions{0.08, 0.10}).feasible);
  s[5] = 1.0;  // now the wrong answer can be cut off
  const ThresholdFit f = fit_threshold(s, c, FitOptions{0.08, 0.10});
  ASSERT_TRUE(f.feasible);
  EXPECT_EQ(f.threshold, 2.0);
  EXPECT_EQ(f.stats.accepted, 28);
}

// Brute force: every distinct score as a threshold, counted from scratch.
ThresholdFit brute_force(const std::vector<double>& s, const std::vector<uint8_t>& c,
                         const FitOptions& o) {
  ThresholdFit best;
  std::set<double> taus(s.begin(), s.end());
  for (double tau : taus) {
    const SelectiveStats st = selective_stats(s, c, tau);
    const double u = clopper_pearson_upper(st.errors, st.accepted, o.delta);
    if (u <= o.risk && (!best.feasible || st.accepted > best.stats.accepted)) {
      best.feasible = true;
      best.threshold = tau;
      best.stats = st;
      best.upper_bound = u;
    }
  }
  if (!best.feasible) best.stats = selective_stats(s, c, best.threshold);
  return best;
}

TEST(Threshold, MatchesBruteForceOnRandomInstances) {
  int feasible = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SplitMix64 g{seed};
    const size_t n = 20 + g.next() % 180;
    const double base_error = 0.3 * g.uniform01();
    const int levels = 3 + static_cast<int>(g.next() % 40);  // few levels: many ties
    std::vector<double> s(n);
    std::vector<uint8_t> c(n);
    for (size_t i = 0; i < n; ++i) {
      s[i] = static_cast<double>(g.next() % static_cast<uint64_t>(levels));
      // Errors are likelier at low scores, as for a real classifier.
      c[i] = g.uniform01() >= base_error * 2.0 * (1.0 - s[i] / levels);
    }
    const FitOptions o{0.02 + 0.1 * g.uniform01(), 0.05 + 0.1 * g.uniform01()};
    const ThresholdFit a = fit_threshold(s, c, o), b = brute_force(s, c, o);
    ASSERT_EQ(a.feasible, b.feasible) << "seed " << seed;
    EXPECT_EQ(a.threshold, b.threshold) << "seed " << seed;
    EXPECT_EQ(a.stats.accepted, b.stats.accepted) << "seed " << seed;
    EXPECT_EQ(a.stats.errors, b.stats.errors) << "seed " << seed;
    EXPECT_EQ(a.stats.correct, b.stats.correct) << "seed " << seed;
    EXPECT_EQ(a.upper_bound, b.upper_bound) << "seed " << seed;
    feasible += a.feasible;
  }
  EXPECT_GT(feasible, 30);  // both outcomes are exercised
  EXPECT_LT(feasible, 290);
}

TEST(Threshold, StatsCountAcceptedErrorsAndForcedAccuracy) {
  const std::vector<double> s = {0.9, 0.2, 0.5, 0.5, 0.1};
  const std::vector<uint8_t> c = {1, 0, 0, 1, 1};
  const SelectiveStats st = selective_stats(s, c, 0.5);
  EXPECT_EQ(st.size, 5);
  EXPECT_EQ(st.accepted, 3);
  EXPECT_EQ(st.errors, 1);
  EXPECT_EQ(st.correct, 3);
  EXPECT_DOUBLE_EQ(st.coverage(), 0.6);
  EXPECT_DOUBLE_EQ(st.selective_risk(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(st.accuracy(), 0.6);
  EXPECT_THROW((void)selective_stats(s, std::vector<uint8_t>{1}, 0.5), UserError);
  EXPECT_THROW((void)fit_threshold(s, c, FitOptions{0.0, 0.1}), UserError);
  EXPECT_THROW((void)fit_threshold(s, c, FitOptions{0.1, 1.0}), UserError);
}

TEST(Certificate, CertifiesExactlyWhenTheBoundClearsTheTarget) {
  // 100 rows, threshold accepts the 60 highest, all right: U = 1 - 0.05^(1/60) = 0.0487 <= 0.10.
  std::vector<double> s = descending(100);
  std::vector<uint8_t> c(100, 1);
  for (size_t i = 60; i < 100; ++i) c[i] = 0;  // the rejected rows are all wrong: irrelevant
  const Certificate a = certify(s, c, 41.0, 0.10, 0.05);
  EXPECT_EQ(a.stats.accepted, 60);
  EXPECT_EQ(a.stats.errors, 0);
  EXPECT_NEAR(a.upper_bound, 1.0 - std::pow(0.05, 1.0 / 60.0), 1e-12);
  EXPECT_TRUE(a.certified);
  // 25 accepted, all right: U = 1 - 0.05^(1/25) = 0.113 > 0.10: rejected (a result, not an error).
  const Certificate b = certify(s, c, 76.0, 0.10, 0.05);
  EXPECT_EQ(b.stats.accepted, 25);
  EXPECT_NEAR(b.upper_bound, 1.0 - std::pow(0.05, 1.0 / 25.0), 1e-12);
  EXPECT_FALSE(b.certified);
  // Nothing accepted: U = 1 by convention.
  const Certificate none = certify(s, c, std::numeric_limits<double>::infinity(), 0.10, 0.05);
  EXPECT_EQ(none.stats.accepted, 0);
  EXPECT_EQ(none.upper_bound, 1.0);
  EXPECT_FALSE(none.certified);
  EXPECT_THROW((void)certify(s, c, 1.0, 1.5, 0.05), UserError);
}

}  // namespace
}  // namespace hetcim::select
