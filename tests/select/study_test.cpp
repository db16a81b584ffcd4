// The study replays: each run of a variant is exactly run_race with that option and the run's
// split seed; availability drops the first units; the fallback sweep is the energy formula per run;
// mean +- sd over runs by hand.
#include "select/study.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/error.h"
#include "util/hash.h"

namespace hetcim::select {
namespace {

constexpr double uJ = 1e-6;
constexpr int64_t K = 3;

// A perfect digital reference and units whose logits are the reference plus noise of growing size.
PoolLogits pool(uint64_t seed) {
  PoolLogits p;
  p.classes = K;
  SplitMix64 g{seed};
  const int64_t rows = 1200;
  for (int64_t r = 0; r < rows; ++r) p.labels.push_back(static_cast<uint8_t>(g.next() % K));
  p.reference_logits.assign(static_cast<size_t>(rows * K), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    p.reference_logits[static_cast<size_t>(r * K + p.labels[static_cast<size_t>(r)])] = 3.0f;
  for (int u = 0; u < 4; ++u) {
    AcceleratorLogits a{"U" + std::to_string(u), (0.7 + 0.1 * u) * uJ, p.reference_logits, {}};
    for (float& v : a.logits) v += static_cast<float>((1.0 + u) * (2.0 * g.uniform01() - 1.0));
    p.accelerators.push_back(std::move(a));
  }
  return p;
}

StudyOptions options() {
  StudyOptions o;
  o.race.splits = SplitSizes{200, 300, 400, 300};
  o.race.split_seed = 40;
  o.fallback_energies = {0.0, 4 * uJ, 10 * uJ};
  return o;
}

TEST(Study, EveryVariantIsTheProtocolReplayedPerRun) {
  const std::vector<PoolLogits> runs = {pool(1), pool(2), pool(3)};
  const StudyOptions o = options();
  const StudyResult s = run_study(runs, o);
  ASSERT_EQ(s.base.runs.size(), 3u);
  for (size_t i = 0; i < runs.size(); ++i) {
    RaceOptions x = o.race;
    x.split_seed = 40 + i;
    const RaceResult r = run_race(runs[i], x);
    const RunFigures f = figures_of(r);
    EXPECT_EQ(s.base.runs[i].upper_bound, r.certificate.upper_bound);
    EXPECT_EQ(s.base.runs[i].test_coverage, f.test_coverage);
    EXPECT_EQ(s.base.runs[i].selective_energy, r.energy.at_test->selective);
    x.design_risk = 0.05;
    EXPECT_EQ(s.design_risk[0].runs[i].certified_coverage,
              run_race(runs[i], x).certificate.stats.coverage());
  }
  // Mean and sd by hand over the three runs.
  const double c[3] = {s.base.runs[0].test_coverage, s.base.runs[1].test_coverage,
                       s.base.runs[2].test_coverage};
  const double m = (c[0] + c[1] + c[2]) / 3.0;
  const MeanSd ms = s.base.over(&RunFigures::test_coverage);
  EXPECT_DOUBLE_EQ(ms.mean, m);
  EXPECT_NEAR(
      ms.sd,
      std::sqrt(((c[0] - m) * (c[0] - m) + (c[1] - m) * (c[1] - m) + (c[2] - m) * (c[2] - m)) /
                2.0),
      1e-15);
  int passes = 0;
  for (const RunFigures& f : s.base.runs) passes += f.certified;
  EXPECT_EQ(s.base.passes, passes);

  // Availability: without U0, U0-U1, U0-U2; the selected unit is never a dropped one.
  ASSERT_EQ(s.availability.size(), 3u);
  EXPECT_EQ(s.availability[0].label, "without U0");
  EXPECT_EQ(s.availability[2].label, "without U0-U2");
  for (const RunFigures& f : s.availability[2].runs)
    EXPECT_TRUE(f.selected.empty() || f.selected == "U3");
  // Scores: the five of Table III, logit margin equal to the base.
  ASSERT_EQ(s.scores.size(), 5u);
  EXPECT_EQ(s.scores[2].label, "logit_margin");
  EXPECT_EQ(s.scores[2].runs[0].upper_bound, s.base.runs[0].upper_bound);
  ASSERT_EQ(s.bias.size(), 2u);
  EXPECT_EQ(s.bias[0].runs[1].upper_bound, s.base.runs[1].upper_bound);
  // Fallback sweep: activation + (1 - test coverage) F per run, averaged.
  ASSERT_EQ(s.fallback.size(), 3u);
  double sum = 0.0;
  for (const RunFigures& f : s.base.runs)
    sum += f.selected_activation + (1.0 - f.test_coverage) * 10 * uJ;
  EXPECT_NEAR(s.fallback[2].selective.mean, sum / 3.0, 1e-18);
  EXPECT_NEAR(s.fallback[0].ensemble, s.base.runs[0].ensemble_energy, 1e-18);
}

TEST(Study, RejectsRunsWithOtherUnits) {
  std::vector<PoolLogits> runs = {pool(1), pool(2)};
  runs[1].accelerators[2].name = "X";
  EXPECT_THROW((void)run_study(runs, options()), UserError);
  EXPECT_THROW((void)run_study({}, options()), UserError);
}

}  // namespace
}  // namespace hetcim::select
