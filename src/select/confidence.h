// Confidence scores of a classifier's answer from its logits (seed 002, Sec. III-C and Table III).
// The predicted label is the argmax of the logits (the lowest class index among equal maxima);
// every score grows with confidence, so an answer is accepted when score >= threshold (eq. 1).
//
//   logit_margin       z_(1) - z_(2), the top-two logit margin: the paper's primary score, eq. (7)
//   max_softmax        p_(1), p = softmax(z)
//   probability_margin p_(1) - p_(2)
//   log_odds           log(p_(1) / (1 - p_(1))) = z_(1) - logsumexp(z_k, k != argmax)
//   negative_entropy   sum_k p_k log p_k
//
// max_softmax and log_odds rank inputs identically (one is a monotone function of the other) as
// long as p_(1) is not rounded to 1; in double that happens for margins above ~37 and makes such
// inputs tie under max_softmax, while log_odds keeps them apart.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace hetcim::select {

enum class ConfidenceScore { LogitMargin, MaxSoftmax, ProbabilityMargin, LogOdds, NegativeEntropy };

[[nodiscard]] std::string_view confidence_score_name(ConfidenceScore s);  // "logit_margin", ...
// The names above (also with '-' for '_'); UserError listing them otherwise.
[[nodiscard]] ConfidenceScore parse_confidence_score(std::string_view text);

// Argmax per row of a row-major count x classes table (count = logits.size() / classes).
// UserError when classes < 2 or the size is not a multiple of classes.
[[nodiscard]] std::vector<int> predictions(std::span<const float> logits, int64_t classes);

// The score of every row. UserError as predictions(), and when a logit is not finite.
[[nodiscard]] std::vector<double> confidence_scores(std::span<const float> logits, int64_t classes,
                                                    ConfidenceScore score);

}  // namespace hetcim::select
