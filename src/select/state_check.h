// One chip state checked against a frozen policy's certificate (issue 14 item 5, beyond the
// paper): what `hetcim analog drift` reports at every read time. Label-free: the running coverage
// against the certified coverage (CoverageMonitor of audit.h) and the shift of the confidence-
// score distribution against a reference state (two-sample Kolmogorov-Smirnov). Labelled, when an
// audit stream is given: the anytime-valid upper bound on the accepted error rate over the first n
// accepted queries (AuditMonitor of audit.h; validity argued there).
//
// Re-calibration rule: re-certify (new H/P/C on the current chip state) when any of
//   - the coverage monitor reports a shift (its interval and the certified one are disjoint),
//   - the score distance exceeds its critical value at `score_alpha`,
//   - the audit's upper bound exceeds the target r (the audit no longer supports the target).
// The first two need no labels. False alarms: the coverage signal at most reference_delta + delta
// over the whole stream, the score test about score_alpha (asymptotic) per state; "upper > r" is
// conservative: it also fires while the audit is too small to support r. The rule errs toward
// re-certifying.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "select/audit.h"
#include "select/controller.h"

namespace hetcim::select {

// The two-sample Kolmogorov-Smirnov distance sup_x |F_a(x) - F_b(x)| (empirical CDFs, ties
// handled by stepping both samples past equal values), and its asymptotic critical value at level
// alpha: sqrt(-ln(alpha / 2) / 2) sqrt((n + m) / (n m)) (Smirnov's limit; an approximation for
// small samples). UserError for an empty sample or alpha outside (0, 1).
struct ScoreShift {
  double distance = 0.0;
  double critical = 0.0;
  [[nodiscard]] bool shifted() const { return distance > critical; }
};
[[nodiscard]] ScoreShift score_shift(std::vector<double> reference, std::vector<double> now,
                                     double alpha);

struct StateCheckOptions {
  int64_t certified_accepted = 0, certified_size = 0;  // the certificate split's counts
  double risk = 0.10;                                  // the target r
  double delta = 0.05;        // coverage and audit monitors (anytime), (0, 1)
  double score_alpha = 0.05;  // the score test, (0, 1)
  int64_t audit = 0;          // labelled audit: the first n accepted queries (0: none)
};

struct StateCheck {
  double coverage = 0.0, coverage_lower = 0.0, coverage_upper = 1.0;  // running, anytime
  double certified_lower = 0.0, certified_upper = 1.0;  // the certificate's coverage interval
  bool coverage_shifted = false;
  ScoreShift score;
  int64_t audited = 0, audit_errors = 0;
  double audit_upper = 1.0;  // anytime upper bound on the accepted error rate (1 with no audit)
  bool recalibrate = false;
  std::string reason;  // "" or the signals that fired, e.g. "coverage shift; audit bound > r"
};

// `decisions` of the frozen policy on every query of this state, in order; `labels` one per
// query (used only for the audit; may be empty when options.audit is 0); `reference_scores` the
// scores of the reference state (e.g. the same queries right after programming).
[[nodiscard]] StateCheck check_state(const std::vector<Decision>& decisions,
                                     const std::vector<uint8_t>& labels,
                                     const std::vector<double>& reference_scores,
                                     const StateCheckOptions& options);

}  // namespace hetcim::select
