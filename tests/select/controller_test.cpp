// The online controller takes the same decisions as the offline evaluation on the same logits:
// fed the selected unit's raw logits of the test rows, it accepts exactly the rows run_race's test
// statistics count, the hybrid it implies has run_race's hybrid accuracy, and its energy per query
// is the paper-definition selective energy; abstention charges no fallback.
#include "select/controller.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/error.h"
#include "util/hash.h"

namespace hetcim::select {
namespace {

constexpr double uJ = 1e-6;
constexpr int64_t K = 4;

PoolLogits pool_with_test(uint64_t seed) {
  PoolLogits p;
  p.classes = K;
  SplitMix64 g{seed};
  auto table = [&](int64_t rows, std::vector<uint8_t>& labels, std::vector<float>& ref) {
    for (int64_t r = 0; r < rows; ++r) labels.push_back(static_cast<uint8_t>(g.next() % K));
    ref.assign(static_cast<size_t>(rows * K), 0.0f);
    for (int64_t r = 0; r < rows; ++r)
      ref[static_cast<size_t>(r * K + labels[static_cast<size_t>(r)])] = 1.0f;
  };
  table(1500, p.labels, p.reference_logits);
  table(700, p.test_labels, p.test_reference_logits);
  for (int u = 0; u < 3; ++u) {
    AcceleratorLogits a{"U" + std::to_string(u), (0.7 + 0.1 * u) * uJ, p.reference_logits,
                        p.test_reference_logits};
    const float offset[K] = {0.4f, -0.2f, 0.0f, 0.1f};  // a bias for eq. (6) to remove
    for (auto* v : {&a.logits, &a.test_logits})
      for (size_t i = 0; i < v->size(); ++i)
        (*v)[i] += offset[i % K] + static_cast<float>((1.5 + u) * (2.0 * g.uniform01() - 1.0));
    p.accelerators.push_back(std::move(a));
  }
  return p;
}

TEST(Controller, SameDecisionsAsTheOfflineEvaluation) {
  const PoolLogits p = pool_with_test(3);
  RaceOptions o;
  o.splits = SplitSizes{300, 500, 700, 0};
  const RaceResult r = run_race(p, o);
  ASSERT_TRUE(r.selected.has_value());
  const size_t sel = *r.selected;
  Controller c(freeze(r, o, K), false);
  const std::vector<float>& z = p.accelerators[sel].test_logits;
  const int64_t n = static_cast<int64_t>(p.test_labels.size());
  int64_t hybrid_right = 0;
  for (int64_t q = 0; q < n; ++q) {
    const Decision d = c.decide(std::span<const float>(z).subspan(static_cast<size_t>(q * K), K));
    int answer = d.label;
    if (d.route != Route::Accept) {  // the digital fallback's answer
      const float* ref = &p.test_reference_logits[static_cast<size_t>(q * K)];
      answer = static_cast<int>(std::max_element(ref, ref + K) - ref);
    }
    hybrid_right += answer == p.test_labels[static_cast<size_t>(q)];
  }
  EXPECT_EQ(c.counts().queries, n);
  EXPECT_EQ(c.counts().accepted, r.accelerators[sel].test.accepted);
  EXPECT_GT(c.counts().accepted, 0);
  EXPECT_LT(c.counts().accepted, n);  // some deferrals: the comparison is not vacuous
  EXPECT_DOUBLE_EQ(static_cast<double>(hybrid_right) / static_cast<double>(n), r.hybrid_accuracy);
  ASSERT_TRUE(r.energy.at_test.has_value());
  EXPECT_NEAR(c.counts().energy / static_cast<double>(n), r.energy.at_test->selective, 1e-18);

  Controller abstaining(freeze(r, o, K), true);
  for (int64_t q = 0; q < n; ++q)
    (void)abstaining.decide(std::span<const float>(z).subspan(static_cast<size_t>(q * K), K));
  EXPECT_EQ(abstaining.counts().abstained, n - r.accelerators[sel].test.accepted);
  EXPECT_EQ(abstaining.counts().fallback, 0);
  EXPECT_NEAR(abstaining.counts().energy, static_cast<double>(n) * r.energy.selected_activation,
              1e-15);
}

TEST(Controller, RejectsInconsistentPoliciesAndQueries) {
  FrozenPolicy p;
  p.unit = "A0";
  p.classes = 3;
  p.bias = {0.0, 0.0};
  EXPECT_THROW(Controller(p, false), UserError);
  p.bias = {0.0, 0.0, 0.0};
  Controller c(p, false);
  EXPECT_THROW((void)c.decide(std::vector<float>{1.0f, 2.0f}), UserError);
  EXPECT_THROW((void)c.decide(std::vector<float>{1.0f, NAN, 0.0f}), UserError);
  // No selected unit: every query deferred, no activation energy.
  p.unit = "";
  p.threshold = INFINITY;
  Controller none(p, false);
  EXPECT_EQ(none.decide(std::vector<float>{9.0f, 0.0f, 0.0f}).route, Route::Fallback);
  EXPECT_NEAR(none.counts().energy, p.fallback_energy, 1e-18);
}

}  // namespace
}  // namespace hetcim::select
