#include "select/confidence.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "util/error.h"

namespace hetcim::select {
namespace {

int64_t rows_of(std::span<const float> logits, int64_t classes) {
  if (classes < 2) throw user_error("confidence scores: need at least 2 classes, got ", classes);
  if (logits.size() % static_cast<size_t>(classes) != 0)
    throw user_error("confidence scores: ", logits.size(), " logits are not a multiple of ",
                     classes, " classes");
  return static_cast<int64_t>(logits.size()) / classes;
}

// Indices of the largest and the second-largest logit (the first index among equal values).
std::pair<int64_t, int64_t> top_two(const float* z, int64_t classes) {
  int64_t first = 0;
  for (int64_t k = 1; k < classes; ++k)
    if (z[k] > z[first]) first = k;
  int64_t second = first == 0 ? 1 : 0;
  for (int64_t k = 0; k < classes; ++k)
    if (k != first && z[k] > z[second]) second = k;
  return {first, second};
}

double score_of(const float* z, int64_t classes, ConfidenceScore s) {
  const auto [i1, i2] = top_two(z, classes);
  const double z1 = z[i1], z2 = z[i2];
  if (s == ConfidenceScore::LogitMargin) return z1 - z2;
  // Softmax relative to the maximum: p_k = exp(z_k - z1) / sum, sum >= 1.
  double sum = 0.0, others = 0.0;
  for (int64_t k = 0; k < classes; ++k) {
    const double e = std::exp(static_cast<double>(z[k]) - z1);
    sum += e;
    if (k != i1) others += e;
  }
  switch (s) {
    case ConfidenceScore::MaxSoftmax:
      return 1.0 / sum;
    case ConfidenceScore::ProbabilityMargin:
      return (1.0 - std::exp(z2 - z1)) / sum;
    case ConfidenceScore::LogOdds:
      return -std::log(others);  // log(p1 / (1 - p1)) = log(1 / others)
    case ConfidenceScore::NegativeEntropy: {
      const double log_sum = std::log(sum);
      double h = 0.0;
      for (int64_t k = 0; k < classes; ++k) {
        const double log_p = static_cast<double>(z[k]) - z1 - log_sum;
        h += std::exp(log_p) * log_p;
      }
      return h;
    }
    case ConfidenceScore::LogitMargin:
      break;
  }
  throw internal_error("unhandled confidence score");
}

}  // namespace

std::string_view confidence_score_name(ConfidenceScore s) {
  switch (s) {
    case ConfidenceScore::LogitMargin:
      return "logit_margin";
    case ConfidenceScore::MaxSoftmax:
      return "max_softmax";
    case ConfidenceScore::ProbabilityMargin:
      return "probability_margin";
    case ConfidenceScore::LogOdds:
      return "log_odds";
    case ConfidenceScore::NegativeEntropy:
      return "negative_entropy";
  }
  return "?";
}

ConfidenceScore parse_confidence_score(std::string_view text) {
  std::string t(text);
  std::replace(t.begin(), t.end(), '-', '_');
  for (ConfidenceScore s : {ConfidenceScore::LogitMargin, ConfidenceScore::MaxSoftmax,
                            ConfidenceScore::ProbabilityMargin, ConfidenceScore::LogOdds,
                            ConfidenceScore::NegativeEntropy})
    if (t == confidence_score_name(s)) return s;
  throw user_error("unknown confidence score '", text,
                   "' (expected logit_margin, max_softmax, probability_margin, log_odds or "
                   "negative_entropy)");
}

std::vector<int> predictions(std::span<const float> logits, int64_t classes) {
  const int64_t rows = rows_of(logits, classes);
  std::vector<int> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r)
    out[static_cast<size_t>(r)] =
        static_cast<int>(top_two(logits.data() + r * classes, classes).first);
  return out;
}

std::vector<double> confidence_scores(std::span<const float> logits, int64_t classes,
                                      ConfidenceScore score) {
  const int64_t rows = rows_of(logits, classes);
  std::vector<double> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* z = logits.data() + r * classes;
    for (int64_t k = 0; k < classes; ++k)
      if (!std::isfinite(z[k]))
        throw user_error("confidence scores: logit ", k, " of row ", r, " is not finite (", z[k],
                         ")");
    out[static_cast<size_t>(r)] = score_of(z, classes, score);
  }
  return out;
}

}  // namespace hetcim::select
