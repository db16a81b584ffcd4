#include "accuracy/cost.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numeric>

#include "util/error.h"

namespace hetcim::accuracy {

const char* cost_kind_name(CostKind k) {
  return k == CostKind::Top1 ? "top1" : "logit";
}

CostKind parse_cost_kind(const std::string& text, const std::string& field) {
  if (text == "top1") return CostKind::Top1;
  if (text == "logit") return CostKind::Logit;
  throw user_error(field, ": expected top1 or logit, got '", text, "'");
}

CostEstimate logit_cost(const std::vector<float>& digital, const std::vector<float>& chip,
                        int64_t classes, double level) {
  if (digital.size() != chip.size())
    throw user_error("logit cost: ", digital.size(), " digital and ", chip.size(), " chip logits");
  if (classes <= 0 || digital.size() % static_cast<size_t>(classes) != 0 || digital.empty())
    throw user_error("logit cost: ", digital.size(), " logits are not rows of ", classes,
                     " classes");
  if (!(level > 0.0 && level < 1.0))
    throw user_error("logit cost: confidence level ", level, ", expected in (0, 1)");
  const size_t k = static_cast<size_t>(classes), n = digital.size() / k;
  std::vector<double> err(n, 0.0);
  double den = 0.0;
  for (size_t r = 0; r < n; ++r)
    for (size_t j = 0; j < k; ++j) {
      const double d = digital[r * k + j], e = static_cast<double>(chip[r * k + j]) - d;
      err[r] += e * e;
      den += d * d;
    }
  den /= static_cast<double>(n);
  const double mean = std::accumulate(err.begin(), err.end(), 0.0) / static_cast<double>(n);
  CostEstimate c;
  if (den == 0.0) {
    c.value = c.lo = c.hi = mean == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
    return c;
  }
  c.value = c.lo = c.hi = mean / den;
  if (n < 2) return c;
  double ss = 0.0;
  for (double e : err) ss += (e - mean) * (e - mean);
  const double se = std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
  const boost::math::students_t t(static_cast<double>(n - 1));
  const double q = boost::math::quantile(t, 0.5 + level / 2);
  c.lo = std::max(0.0, (mean - q * se) / den);
  c.hi = (mean + q * se) / den;
  return c;
}

CostToDrop::CostToDrop(const std::vector<double>& costs, const std::vector<double>& drops) {
  if (costs.size() != drops.size())
    throw user_error("cost fit: ", costs.size(), " costs and ", drops.size(), " drops");
  std::vector<size_t> order(costs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return costs[a] < costs[b]; });
  for (size_t i : order) {
    if (!(costs[i] >= 0.0) || !std::isfinite(costs[i]) || !std::isfinite(drops[i]))
      throw user_error("cost fit: point ", i, " (cost ", costs[i], ", drop ", drops[i],
                       ") is not finite and >= 0");
    const double d = std::max(drop_.back(), drops[i]);
    if (costs[i] == cost_.back()) {
      drop_.back() = d;
    } else {
      cost_.push_back(costs[i]);
      drop_.push_back(d);
    }
  }
}

double CostToDrop::drop(double cost) const {
  if (cost <= cost_.front()) return drop_.front();
  for (size_t i = 1; i < cost_.size(); ++i)
    if (cost <= cost_[i])
      return drop_[i - 1] +
             (drop_[i] - drop_[i - 1]) * (cost - cost_[i - 1]) / (cost_[i] - cost_[i - 1]);
  return drop_.back();
}

double CostToDrop::budget(double drop_budget) const {
  if (drop_budget < drop_.front()) return 0.0;
  for (size_t i = 1; i < cost_.size(); ++i)
    if (drop_[i] > drop_budget)
      return cost_[i - 1] +
             (cost_[i] - cost_[i - 1]) * (drop_budget - drop_[i - 1]) / (drop_[i] - drop_[i - 1]);
  return cost_.back();
}

}  // namespace hetcim::accuracy
