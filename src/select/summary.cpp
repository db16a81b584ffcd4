#include "select/summary.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/error.h"

namespace hetcim::select {

MeanSd mean_sd(std::span<const double> v) {
  MeanSd s;
  s.n = static_cast<int64_t>(v.size());
  if (v.empty()) {
    s.mean = s.sd = s.min = s.max = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double sum = 0.0;
  for (double x : v) {
    if (!std::isfinite(x)) throw user_error("mean +- sd: a value is not finite (", x, ")");
    sum += x;
  }
  s.mean = sum / static_cast<double>(v.size());
  double ss = 0.0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

}  // namespace hetcim::select
