// Mean and sample standard deviation of a figure over independent runs, the "mean +- sd" of seed
// 002's tables. The paper's +- is the sample standard deviation (divisor n - 1): its Table II
// rows give 2.00 +- 0.03 uJ, 69.02 +- 0.53 % and 19.19 +- 0.56 uJ with it, and 0.50 uJ for the
// last with divisor n (tests/select/selection_energy_test.cpp).
#pragma once

#include <cstdint>
#include <span>

namespace hetcim::select {

struct MeanSd {
  int64_t n = 0;
  double mean = 0.0;  // NaN when n = 0
  double sd = 0.0;    // sample standard deviation; 0 when n = 1, NaN when n = 0
  double min = 0.0, max = 0.0;
};

// Non-finite values are UserErrors (a figure that does not exist, e.g. an infinite break-even,
// is left out by the caller and the count says so).
[[nodiscard]] MeanSd mean_sd(std::span<const double> values);

}  // namespace hetcim::select
