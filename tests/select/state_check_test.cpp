// One chip state checked against a certificate (select/state_check.h): the Kolmogorov-Smirnov
// distance and critical value by hand, and the re-calibration rule firing on exactly the signal
// that changed (coverage, score distribution, audit bound), never on an unchanged state.
#include "select/state_check.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/error.h"

namespace hetcim::select {
namespace {

TEST(ScoreShift, DistanceAndCriticalValueByHand) {
  // F_a - F_b is 0.5 at x = 2 (2/4 - 0) and at x = 4 (4/4 - 2/4), less elsewhere.
  const ScoreShift s = score_shift({1, 2, 3, 4}, {3, 4, 5, 6}, 0.05);
  EXPECT_DOUBLE_EQ(s.distance, 0.5);
  // sqrt(-ln(0.025) / 2) = sqrt(3.688879 / 2) = 1.358102, times sqrt(8 / 16): 0.960323.
  EXPECT_NEAR(s.critical, 0.960323, 1e-6);
  EXPECT_FALSE(s.shifted());
  // Ties step both samples: at x = 1, 2/3 - 1/3; at x = 2, 1 - 1.
  EXPECT_NEAR(score_shift({1, 1, 2}, {2, 1, 2}, 0.05).distance, 1.0 / 3, 1e-15);
  EXPECT_EQ(score_shift({3, 1, 2}, {2, 3, 1}, 0.05).distance, 0.0);
  EXPECT_THROW((void)score_shift({}, {1}, 0.05), UserError);
  EXPECT_THROW((void)score_shift({1}, {1}, 1.5), UserError);
}

// 1000 queries; `accepted` of them accepted, spread evenly (query i is accepted when
// floor((i + 1) a / 1000) > floor(i a / 1000), so every prefix has the stream's coverage, as an
// exchangeable stream has on average), scores i / 1000 + shift, accepted answers label 0, labels
// wrong on the first `wrong` accepted queries.
struct State {
  std::vector<Decision> decisions;
  std::vector<uint8_t> labels;
  std::vector<double> scores;
};
State state(int accepted, double shift, int wrong) {
  State s;
  int wrong_left = wrong;
  for (int i = 0; i < 1000; ++i) {
    Decision d;
    d.route = (i + 1) * accepted / 1000 > i * accepted / 1000 ? Route::Accept : Route::Fallback;
    d.label = 0;
    d.score = i / 1000.0 + shift;
    s.decisions.push_back(d);
    s.labels.push_back(d.route == Route::Accept && wrong_left-- > 0 ? 1 : 0);
    s.scores.push_back(d.score);
  }
  return s;
}

TEST(StateCheck, TheRuleFiresOnTheSignalThatChanged) {
  StateCheckOptions o;
  o.certified_accepted = 700;
  o.certified_size = 1000;
  o.risk = 0.10;
  const State t0 = state(700, 0.0, 0);
  // Unchanged: no signal, no re-calibration.
  StateCheck c = check_state(t0.decisions, {}, t0.scores, o);
  EXPECT_DOUBLE_EQ(c.coverage, 0.7);
  EXPECT_LE(c.coverage_lower, 0.7);
  EXPECT_GE(c.coverage_upper, 0.7);
  EXPECT_FALSE(c.coverage_shifted);
  EXPECT_EQ(c.score.distance, 0.0);
  EXPECT_EQ(c.audited, 0);
  EXPECT_FALSE(c.recalibrate);
  EXPECT_EQ(c.reason, "");
  // Coverage 40 % against a certified 70 %: a label-free coverage shift.
  const State low = state(400, 0.0, 0);
  c = check_state(low.decisions, {}, t0.scores, o);
  EXPECT_TRUE(c.coverage_shifted);
  EXPECT_EQ(c.reason, "coverage shift");
  // Every score 0.3 higher: distance 0.3 (F_t0 - F_now = 0.3 on [0.3, 1)), above 0.0607 (n = m =
  // 1000: 1.358102 x sqrt(2 / 1000)); coverage unchanged.
  const State up = state(700, 0.3, 0);
  c = check_state(up.decisions, {}, t0.scores, o);
  EXPECT_NEAR(c.score.distance, 0.3, 1.5e-3);  // +- one step where rounding splits a tie
  EXPECT_NEAR(c.score.critical, 1.358102 * std::sqrt(0.002), 1e-6);
  EXPECT_EQ(c.reason, "score shift");
  // An audit of 200 accepted queries with 40 wrong (20 % > r = 10 %): the anytime upper bound is
  // above r; with none wrong of 200 it is below: 1 - (7.6e-7)^(1/200) = 0.068 at the level
  // 0.05 x 6 / (pi^2 200^2) = 7.6e-7 spent at n = 200 (0.071 at half of it).
  o.audit = 200;
  const State bad = state(700, 0.0, 40);
  c = check_state(bad.decisions, bad.labels, t0.scores, o);
  EXPECT_EQ(c.audited, 200);
  EXPECT_EQ(c.audit_errors, 40);
  EXPECT_GT(c.audit_upper, 0.2);
  EXPECT_EQ(c.reason, "audit bound > r");
  const State good = state(700, 0.0, 0);
  c = check_state(good.decisions, good.labels, t0.scores, o);
  EXPECT_EQ(c.audit_errors, 0);
  EXPECT_LT(c.audit_upper, 0.10);
  EXPECT_FALSE(c.recalibrate);
  EXPECT_THROW((void)check_state(good.decisions, {}, t0.scores, o), UserError);  // no labels
}

}  // namespace
}  // namespace hetcim::select
