// RACE-AIMC end to end on synthetic pools whose outcome is known by construction: splits,
// bias correction, selection, certificate, hybrid/ensemble accuracy and energies.
#include "select/race.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/hash.h"

namespace hetcim::select {
namespace {

constexpr double uJ = 1e-6;
constexpr int64_t K = 3;

// `rows` labels, balanced-ish, from a seed; the digital reference is perfect (5 on the label).
PoolLogits base_pool(int64_t rows, uint64_t seed) {
  PoolLogits p;
  p.classes = K;
  SplitMix64 g{seed};
  for (int64_t r = 0; r < rows; ++r) p.labels.push_back(static_cast<uint8_t>(g.next() % K));
  p.reference_logits.assign(static_cast<size_t>(rows * K), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    p.reference_logits[static_cast<size_t>(r * K + p.labels[r])] = 5.0f;
  return p;
}

// The reference logits plus a constant per-class offset: eq. (6) recovers the offset exactly.
AcceleratorLogits shifted(const PoolLogits& p, std::string name, double energy,
                          std::vector<float> offset) {
  AcceleratorLogits a{std::move(name), energy, p.reference_logits, {}};
  for (size_t i = 0; i < a.logits.size(); ++i) a.logits[i] += offset[i % K];
  return a;
}

// Always answers label + 1 (mod K), confidently: every answer wrong.
AcceleratorLogits broken(const PoolLogits& p, double energy) {
  AcceleratorLogits a{"broken", energy, std::vector<float>(p.reference_logits.size(), 0.0f), {}};
  for (size_t r = 0; r < p.labels.size(); ++r) a.logits[r * K + (p.labels[r] + 1) % K] = 5.0f;
  return a;
}

RaceOptions small_options() {
  RaceOptions o;
  o.splits = SplitSizes{100, 200, 300, 200};
  o.split_seed = 9;
  return o;
}

TEST(Race, SplitsAreDisjointSeededAndSized) {
  const Splits a = make_splits(1000, SplitSizes{100, 200, 300, 200}, 5);
  EXPECT_EQ(a.hardware.size(), 100u);
  EXPECT_EQ(a.policy.size(), 200u);
  EXPECT_EQ(a.certificate.size(), 300u);
  EXPECT_EQ(a.test.size(), 200u);
  std::vector<int64_t> all;
  for (const auto* v : {&a.hardware, &a.policy, &a.certificate, &a.test}) {
    EXPECT_TRUE(std::is_sorted(v->begin(), v->end()));
    all.insert(all.end(), v->begin(), v->end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());  // disjoint
  EXPECT_GE(all.front(), 0);
  EXPECT_LT(all.back(), 1000);
  const Splits b = make_splits(1000, SplitSizes{100, 200, 300, 200}, 5);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_NE(a.policy, make_splits(1000, SplitSizes{100, 200, 300, 200}, 6).policy);
  EXPECT_THROW((void)make_splits(700, SplitSizes{100, 200, 300, 200}, 5), UserError);
  EXPECT_THROW((void)make_splits(700, SplitSizes{100, 0, 300, 200}, 5), UserError);
}

TEST(Race, EveryRowIsEquallyLikelyInEachSplit) {
  // 10 rows, policy = 3 of them: over 3000 seeds each row lands in P 900 times on average
  // (binomial std 25.1); 6 std of slack.
  std::vector<int> hits(10, 0);
  for (uint64_t seed = 0; seed < 3000; ++seed)
    for (int64_t r : make_splits(10, SplitSizes{2, 3, 4, 1}, seed).policy)
      ++hits[static_cast<size_t>(r)];
  for (int h : hits) EXPECT_NEAR(h, 900, 151);
}

TEST(Race, SelectsTheCheapestPerfectAcceleratorAndCertifiesIt) {
  PoolLogits p = base_pool(1000, 1);
  p.accelerators.push_back(broken(p, 0.5 * uJ));  // cheapest, never right
  p.accelerators.push_back(shifted(p, "costly", 1.0 * uJ, {0.0f, 0.0f, 0.0f}));
  p.accelerators.push_back(
      shifted(p, "biased", 0.8 * uJ, {6.0f, 0.0f, -1.0f}));  // bias flips answers
  const RaceOptions o = small_options();
  const RaceResult r = run_race(p, o);
  ASSERT_EQ(r.accelerators.size(), 3u);
  // broken: every answer wrong, no feasible threshold, coverage 0, utility 0.
  EXPECT_FALSE(r.accelerators[0].fit.feasible);
  EXPECT_EQ(r.accelerators[0].utility, 0.0);
  EXPECT_EQ(r.accelerators[0].test.accuracy(), 0.0);
  // biased: eq. (6) recovers the offset exactly, after which it equals the reference.
  const auto& b = r.accelerators[2].bias;
  EXPECT_NEAR(b[0], 6.0, 1e-6);
  EXPECT_NEAR(b[1], 0.0, 1e-6);
  EXPECT_NEAR(b[2], -1.0, 1e-6);
  for (size_t i : {size_t{1}, size_t{2}}) {
    const AcceleratorResult& a = r.accelerators[i];
    ASSERT_TRUE(a.fit.feasible);
    EXPECT_EQ(a.fit.stats.accepted, 200);  // every policy row, all tied at margin 5
    EXPECT_EQ(a.fit.stats.errors, 0);
    EXPECT_NEAR(a.fit.upper_bound, 1.0 - std::pow(0.10, 1.0 / 200.0), 1e-12);
    EXPECT_NEAR(a.fit.threshold, 5.0, 1e-6);
    EXPECT_EQ(a.test.accuracy(), 1.0);
  }
  EXPECT_NEAR(r.accelerators[1].utility, 1.0 / (1.12 * uJ), 1e-3);
  EXPECT_NEAR(r.accelerators[2].utility, 1.0 / (0.92 * uJ), 1e-3);
  ASSERT_EQ(r.selected, std::optional<size_t>(2));
  // Certificate on 300 rows, all accepted and right: U = 1 - 0.05^(1/300).
  EXPECT_EQ(r.certificate.stats.size, 300);
  EXPECT_EQ(r.certificate.stats.accepted, 300);
  EXPECT_EQ(r.certificate.stats.errors, 0);
  EXPECT_NEAR(r.certificate.upper_bound, 1.0 - std::pow(0.05, 1.0 / 300.0), 1e-12);
  EXPECT_TRUE(r.certificate.certified);
  EXPECT_EQ(r.digital_accuracy, 1.0);
  EXPECT_EQ(r.hybrid_accuracy, 1.0);
  // Energies: activation 0.8 + 0.12 + 0.003 + 3 x 0.0002; ensemble sum of three; coverage 1.
  EXPECT_NEAR(r.energy.selected_activation / uJ, 0.9236, 1e-12);
  EXPECT_NEAR(r.energy.ensemble / uJ, 0.5 + 1.0 + 0.8 + 3 * (0.123 + 0.0006), 1e-12);
  ASSERT_TRUE(r.energy.at_test.has_value());
  EXPECT_EQ(r.energy.at_test->coverage, 1.0);
  EXPECT_NEAR(r.energy.at_test->selective / uJ, 0.9236, 1e-12);
  EXPECT_TRUE(std::isinf(r.energy.at_test->break_even_fallback));
  EXPECT_NEAR(r.energy.at_certificate.selective / uJ, 0.9236, 1e-12);
  EXPECT_TRUE(std::isinf(r.energy.at_certificate.break_even_fallback));
}

TEST(Race, WithoutBiasCorrectionTheBiasedAcceleratorErrs) {
  PoolLogits p = base_pool(1000, 2);
  p.accelerators.push_back(shifted(p, "biased", 0.8 * uJ, {6.0f, 0.0f, -1.0f}));
  RaceOptions o = small_options();
  o.bias_correction = false;
  const RaceResult r = run_race(p, o);
  // Raw logits: label 0 -> (11, 0, -1) right; label 1 -> (6, 5, -1) wrong; label 2 -> (6, 0, 4)
  // wrong.
  int64_t label0 = 0;
  for (int64_t t : r.splits.test) label0 += p.labels[static_cast<size_t>(t)] == 0;
  EXPECT_EQ(r.accelerators[0].test.correct, label0);
  EXPECT_EQ(r.accelerators[0].bias, std::vector<double>(3, 0.0));
  // Right answers have margin 11 and wrong ones 1 or 2: the fit accepts exactly the label-0 rows.
  int64_t policy0 = 0;
  for (int64_t t : r.splits.policy) policy0 += p.labels[static_cast<size_t>(t)] == 0;
  EXPECT_EQ(r.accelerators[0].fit.stats.accepted, policy0);
  EXPECT_EQ(r.accelerators[0].fit.stats.errors, 0);
  EXPECT_NEAR(r.accelerators[0].fit.threshold, 11.0, 1e-6);
  // Hybrid: accepted rows (label 0) answered right by the chip, the rest by the perfect fallback.
  EXPECT_EQ(r.hybrid_accuracy, 1.0);
  EXPECT_NEAR(r.certificate.stats.coverage(),
              static_cast<double>(r.certificate.stats.accepted) / 300.0, 1e-15);
  // The paper's energy uses the test split's coverage; the certificate variant C's.
  EXPECT_NEAR(
      r.energy.at_certificate.selective,
      r.energy.selected_activation + (1.0 - r.certificate.stats.coverage()) * o.energy.fallback,
      1e-18);
  ASSERT_TRUE(r.energy.at_test.has_value());
  EXPECT_EQ(r.energy.at_test->coverage, r.accelerators[0].test.coverage());
  EXPECT_NEAR(
      r.energy.at_test->selective,
      r.energy.selected_activation + (1.0 - r.accelerators[0].test.coverage()) * o.energy.fallback,
      1e-18);
}

TEST(Race, HybridTakesTheAcceleratorsAcceptedAnswersAndTheFallbackForTheRest) {
  // The digital reference is wrong on every label-0 row (it answers 1); the accelerator is right
  // everywhere, confidently on label-0 rows (margin 9) and barely elsewhere (margin 0.5).
  PoolLogits p = base_pool(1000, 5);
  AcceleratorLogits a{"chip", 0.7 * uJ, p.reference_logits, {}};
  for (size_t r = 0; r < p.labels.size(); ++r) {
    float* z = &a.logits[r * K];
    z[0] = z[1] = z[2] = 0.0f;
    z[p.labels[r]] = p.labels[r] == 0 ? 9.0f : 0.5f;
    if (p.labels[r] == 0) {
      p.reference_logits[r * K + 0] = 0.0f;
      p.reference_logits[r * K + 1] = 5.0f;
    }
  }
  p.accelerators.push_back(a);
  RaceOptions o = small_options();
  o.bias_correction = false;
  const RaceResult r = run_race(p, o);
  int64_t label0 = 0;
  for (int64_t t : r.splits.test) label0 += p.labels[static_cast<size_t>(t)] == 0;
  const double n = static_cast<double>(r.splits.test.size());
  EXPECT_DOUBLE_EQ(r.digital_accuracy, 1.0 - static_cast<double>(label0) / n);
  // Every answer is right, so the fit accepts every policy row (threshold 0.5)...
  ASSERT_TRUE(r.accelerators[0].fit.feasible);
  EXPECT_NEAR(r.accelerators[0].fit.threshold, 0.5, 1e-6);
  EXPECT_EQ(r.hybrid_accuracy, 1.0);  // ... and the hybrid answers all test rows from the chip
  // Forced to defer the barely-confident rows, the hybrid still gets label-0 rows from the chip
  // and the others from the (right) fallback.
  o.design_risk = 0.5;  // the full set (two thirds wrong) still fails
  AcceleratorLogits b = a;
  for (size_t r2 = 0; r2 < p.labels.size(); ++r2)
    if (p.labels[r2] != 0) b.logits[r2 * K + (p.labels[r2] + 1) % K] = 1.0f;  // wrong, margin 0.5
  p.accelerators = {b};
  const RaceResult r2 = run_race(p, o);
  EXPECT_NEAR(r2.accelerators[0].fit.threshold, 9.0, 1e-6);  // only the label-0 rows pass
  EXPECT_EQ(r2.hybrid_accuracy, 1.0);
  EXPECT_DOUBLE_EQ(r2.accelerators[0].test.accuracy(), static_cast<double>(label0) / n);
}

TEST(Race, NoFeasibleAcceleratorMeansEverythingIsDeferred) {
  PoolLogits p = base_pool(1000, 3);
  p.accelerators.push_back(broken(p, 0.7 * uJ));
  const RaceResult r = run_race(p, small_options());
  EXPECT_EQ(r.selected, std::nullopt);
  EXPECT_EQ(r.certificate.stats.accepted, 0);
  EXPECT_FALSE(r.certificate.certified);
  EXPECT_EQ(r.hybrid_accuracy, 1.0);  // all from the digital fallback
  EXPECT_EQ(r.energy.selected_activation, 0.0);
  EXPECT_NEAR(r.energy.at_certificate.selective, 4 * uJ, 1e-18);
  ASSERT_TRUE(r.energy.at_test.has_value());
  EXPECT_NEAR(r.energy.at_test->selective, 4 * uJ, 1e-18);
}

TEST(Race, DeterministicAndValidated) {
  PoolLogits p = base_pool(1000, 4);
  SplitMix64 g{77};
  AcceleratorLogits noisy{"noisy", 0.7 * uJ, p.reference_logits, {}};
  for (float& v : noisy.logits) v += static_cast<float>(6.0 * g.uniform01() - 3.0);
  p.accelerators.push_back(noisy);
  const RaceResult a = run_race(p, small_options()), b = run_race(p, small_options());
  EXPECT_EQ(a.accelerators[0].fit.threshold, b.accelerators[0].fit.threshold);
  EXPECT_EQ(a.certificate.upper_bound, b.certificate.upper_bound);
  EXPECT_EQ(a.splits.test, b.splits.test);
  // The ensemble of one accelerator is that accelerator's forced answer.
  EXPECT_DOUBLE_EQ(a.ensemble_accuracy, a.accelerators[0].test.accuracy());

  RaceOptions o = small_options();
  o.splits.test = 1000;
  EXPECT_THROW((void)run_race(p, o), UserError);
  o = small_options();
  o.risk = 0.0;
  EXPECT_THROW((void)run_race(p, o), UserError);
  PoolLogits bad = p;
  bad.accelerators[0].logits.pop_back();
  try {
    (void)run_race(bad, small_options());
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("accelerator 'noisy'"), std::string::npos) << e.what();
  }
  bad = p;
  bad.labels[3] = 7;
  EXPECT_THROW((void)run_race(bad, small_options()), UserError);
}

TEST(Race, SeparateTestSetIsTheTestSplitAndTouchesNothingElse) {
  // The paper's protocol: H/P/C from calibration rows, T = a separate test set. Calibration: 700
  // rows; test set: 250 rows on which the accelerator is always wrong. The fit, selection and
  // certificate see only calibration rows, so they equal those of the same pool without a test
  // set; every test column comes from the 250 rows.
  PoolLogits cal = base_pool(700, 21);
  SplitMix64 g{5};
  AcceleratorLogits noisy{"noisy", 0.7 * uJ, cal.reference_logits, {}};
  for (float& v : noisy.logits) v += static_cast<float>(4.0 * g.uniform01() - 2.0);
  cal.accelerators.push_back(noisy);
  RaceOptions o = small_options();
  o.splits.test = 0;
  const RaceResult alone = run_race(cal, o);

  PoolLogits p = cal;
  const PoolLogits test = base_pool(250, 22);
  p.test_labels = test.labels;
  p.test_reference_logits = test.reference_logits;
  p.accelerators[0].test_logits = broken(test, 0.7 * uJ).logits;
  const RaceResult r = run_race(p, o);
  EXPECT_EQ(r.rows, 950);
  ASSERT_EQ(r.splits.test.size(), 250u);
  EXPECT_EQ(r.splits.test.front(), 700);
  EXPECT_EQ(r.splits.test.back(), 949);
  EXPECT_EQ(r.splits.policy, alone.splits.policy);
  EXPECT_EQ(r.accelerators[0].fit.threshold, alone.accelerators[0].fit.threshold);
  EXPECT_EQ(r.certificate.upper_bound, alone.certificate.upper_bound);
  EXPECT_EQ(r.accelerators[0].test.size, 250);
  EXPECT_EQ(r.accelerators[0].test.correct, 0);  // broken on every test row
  EXPECT_EQ(r.digital_accuracy, 1.0);
  ASSERT_TRUE(r.selected.has_value());
  // Test coverage: the broken answers have margin 5, above any fitted threshold of the noisy
  // calibration logits (margins <= 5 + 4): recomputed from the stats, the energy follows it.
  ASSERT_TRUE(r.energy.at_test.has_value());
  EXPECT_EQ(r.energy.at_test->coverage, r.accelerators[0].test.coverage());
  EXPECT_FALSE(alone.energy.at_test.has_value());  // no T at all: no paper-definition energy

  o.splits.test = 10;  // a T size with a separate test set is a contradiction
  EXPECT_THROW((void)run_race(p, o), UserError);
  o.splits.test = 0;
  p.accelerators[0].test_logits.pop_back();
  try {
    (void)run_race(p, o);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("noisy (test set)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hetcim::select
