#include "select/threshold.h"

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <numeric>
#include <vector>

#include "select/clopper_pearson.h"
#include "util/error.h"

namespace hetcim::select {
namespace {

void check_lengths(std::span<const double> scores, std::span<const uint8_t> correct) {
  if (scores.size() != correct.size())
    throw user_error("selective rule: ", scores.size(), " scores but ", correct.size(),
                     " correctness flags");
}

double ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

}  // namespace

double SelectiveStats::coverage() const {
  return ratio(accepted, size);
}
double SelectiveStats::selective_risk() const {
  return ratio(errors, accepted);
}
double SelectiveStats::accuracy() const {
  return ratio(correct, size);
}

SelectiveStats selective_stats(std::span<const double> scores, std::span<const uint8_t> correct,
                               double threshold) {
  check_lengths(scores, correct);
  SelectiveStats s;
  s.size = static_cast<int64_t>(scores.size());
  for (size_t i = 0; i < scores.size(); ++i) {
    s.correct += correct[i] != 0;
    if (scores[i] >= threshold) {
      ++s.accepted;
      s.errors += correct[i] == 0;
    }
  }
  return s;
}

namespace {

// U(e, n; delta) <= r without inverting the beta function: U is the p at which P[Binomial(n, p)
// <= e] = delta, and that tail falls as p grows, so U <= r exactly when P[Binomial(n, r) <= e]
// = 1 - I_r(e + 1, n - e) <= delta. One forward evaluation per prefix instead of a root search
// (about 10x faster; the fit tries every prefix of P).
bool passes(int64_t errors, int64_t n, double r, double delta) {
  if (n == 0 || errors == n) return false;  // U = 1 >= r
  return boost::math::ibetac(static_cast<double>(errors + 1), static_cast<double>(n - errors), r) <=
         delta;
}

}  // namespace

ThresholdFit fit_threshold(std::span<const double> scores, std::span<const uint8_t> correct,
                           const FitOptions& o) {
  check_lengths(scores, correct);
  if (!(o.risk > 0.0 && o.risk < 1.0))
    throw user_error("threshold fit: design risk must lie in (0, 1), got ", o.risk);
  if (!(o.delta > 0.0 && o.delta < 1.0))
    throw user_error("threshold fit: design delta must lie in (0, 1), got ", o.delta);
  const size_t n = scores.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });

  ThresholdFit best;
  best.stats.size = static_cast<int64_t>(n);
  for (size_t i = 0; i < n; ++i) best.stats.correct += correct[i] != 0;
  int64_t accepted = 0, errors = 0;
  for (size_t i = 0; i < n;) {
    const double tau = scores[order[i]];
    for (; i < n && scores[order[i]] == tau; ++i) {  // the whole tie group enters at once
      ++accepted;
      errors += correct[order[i]] == 0;
    }
    if (passes(errors, accepted, o.risk, o.delta)) {
      best.feasible = true;
      best.threshold = tau;
      best.stats.accepted = accepted;
      best.stats.errors = errors;
    }
  }
  if (best.feasible)
    best.upper_bound = clopper_pearson_upper(best.stats.errors, best.stats.accepted, o.delta);
  return best;
}

}  // namespace hetcim::select
