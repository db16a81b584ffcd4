#include "select/state_check.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::select {

ScoreShift score_shift(std::vector<double> a, std::vector<double> b, double alpha) {
  if (a.empty() || b.empty())
    throw user_error("score shift: both samples must be non-empty, got ", a.size(), " and ",
                     b.size());
  if (!(alpha > 0.0 && alpha < 1.0))
    throw user_error("score shift: alpha must lie in (0, 1), got ", alpha);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const double n = static_cast<double>(a.size()), m = static_cast<double>(b.size());
  size_t i = 0, j = 0;
  double d = 0.0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    d = std::max(d, std::fabs(static_cast<double>(i) / n - static_cast<double>(j) / m));
  }
  ScoreShift s;
  s.distance = d;
  s.critical = std::sqrt(-std::log(alpha / 2) / 2) * std::sqrt((n + m) / (n * m));
  return s;
}

StateCheck check_state(const std::vector<Decision>& decisions, const std::vector<uint8_t>& labels,
                       const std::vector<double>& reference_scores, const StateCheckOptions& o) {
  if (o.audit < 0) throw user_error("audit: the stream size must be >= 0, got ", o.audit);
  if (o.audit > 0 && labels.size() != decisions.size())
    throw user_error("audit: ", labels.size(), " labels for ", decisions.size(), " queries");
  CoverageMonitor coverage({o.certified_accepted, o.certified_size, o.delta, o.delta});
  AuditMonitor audit({o.risk, o.delta});
  StateCheck c;
  std::vector<double> scores;
  scores.reserve(decisions.size());
  for (size_t i = 0; i < decisions.size(); ++i) {
    const Decision& d = decisions[i];
    const bool accepted = d.route == Route::Accept;
    coverage.observe(accepted);
    c.coverage_shifted = c.coverage_shifted || coverage.shifted();
    scores.push_back(d.score);
    if (accepted && audit.audited() < o.audit) audit.observe(d.label != labels[i]);
  }
  c.coverage = coverage.coverage();
  c.coverage_lower = coverage.lower_bound();
  c.coverage_upper = coverage.upper_bound();
  c.certified_lower = coverage.reference_lower();
  c.certified_upper = coverage.reference_upper();
  c.score = score_shift(reference_scores, scores, o.score_alpha);
  c.audited = audit.audited();
  c.audit_errors = audit.errors();
  c.audit_upper = audit.upper_bound();
  auto add = [&](const char* why) {
    c.reason += (c.reason.empty() ? "" : "; ") + std::string(why);
  };
  if (c.coverage_shifted) add("coverage shift");
  if (c.score.shifted()) add("score shift");
  if (c.audited > 0 && c.audit_upper > o.risk) add("audit bound > r");
  c.recalibrate = !c.reason.empty();
  return c;
}

}  // namespace hetcim::select
