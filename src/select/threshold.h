// Seed 002's accept/reject rule and its threshold fit (Sec. III-D).
//
// An answer is accepted when its confidence score is >= the threshold (eq. 1). Coverage (eq. 2)
// is the accepted share of the rows; selective risk (eq. 3) the share of wrong answers among the
// accepted ones.
//
// fit_threshold is the paper's rule: sort the rows by decreasing score, grow the accepted prefix,
// and keep the largest prefix whose Clopper-Pearson upper bound U(e, n; delta_d) is <= the design
// risk r_d, i.e. the most permissive (lowest) threshold that passes, even when some smaller
// prefix failed. Rows with equal scores enter together: a prefix boundary inside a tie cannot be
// realized by a threshold, so candidate thresholds are exactly the distinct scores.
//
// What this does and does not guarantee. The bound U of the chosen prefix is NOT a confidence
// bound for the chosen threshold: the prefix was selected among many by looking at those same
// bounds (and the accelerator is then chosen among several such fits). The fit is a design rule
// whose slack (r_d below the deployment target r, delta_d) makes a pass more likely later. The
// statistical guarantee is produced by certificate.h on a split the fit never saw.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

namespace hetcim::select {

struct SelectiveStats {
  int64_t size = 0;      // rows evaluated
  int64_t accepted = 0;  // rows with score >= threshold
  int64_t errors = 0;    // wrong answers among the accepted rows
  int64_t correct = 0;   // right answers among all rows ("forced" accuracy, no deferral)

  [[nodiscard]] double coverage() const;        // accepted / size; 0 when size = 0
  [[nodiscard]] double selective_risk() const;  // errors / accepted; 0 when nothing is accepted
  [[nodiscard]] double accuracy() const;        // correct / size; 0 when size = 0
};

// `correct[i]` is 1 when row i's answer is right, 0 otherwise; same length as `scores`
// (UserError otherwise).
[[nodiscard]] SelectiveStats selective_stats(std::span<const double> scores,
                                             std::span<const uint8_t> correct, double threshold);

struct FitOptions {
  double risk = 0.08;   // design risk r_d, (0, 1)
  double delta = 0.10;  // design delta_d, (0, 1)
};

struct ThresholdFit {
  bool feasible = false;  // some threshold passes; otherwise nothing is accepted (coverage 0)
  double threshold = std::numeric_limits<double>::infinity();  // +inf when infeasible
  SelectiveStats stats;                                        // on the fitting rows at `threshold`
  double upper_bound = 1.0;  // U(stats.errors, stats.accepted; delta); 1 when infeasible
};

// UserError when the options are out of range or the spans differ in length.
[[nodiscard]] ThresholdFit fit_threshold(std::span<const double> scores,
                                         std::span<const uint8_t> correct,
                                         const FitOptions& options);

}  // namespace hetcim::select
