// Exact (Clopper-Pearson) one-sided confidence bounds on a binomial proportion: `errors` failures
// in `n` independent trials with unknown failure probability p.
//
//   upper(e, n; delta) = F^-1_Beta(e+1, n-e)(1 - delta)     seed 002 eq. (8); 1 when n = 0 or e = n
//   lower(e, n; delta) = F^-1_Beta(e, n-e+1)(delta)         0 when n = 0 or e = 0
//
// Guarantee: for every p, P_p[p <= upper(E, n; delta)] >= 1 - delta (and likewise for the lower
// bound), E ~ Binomial(n, p). Equivalently upper is the p at which P[Binomial(n, p) <= e] = delta.
// The beta quantile is Boost.Math's ibeta_inv; nothing is approximated.
#pragma once

#include <cstdint>

namespace hetcim::select {

// UserError when n < 0, errors outside [0, n], or delta outside (0, 1).
[[nodiscard]] double clopper_pearson_upper(int64_t errors, int64_t n, double delta);
[[nodiscard]] double clopper_pearson_lower(int64_t errors, int64_t n, double delta);

}  // namespace hetcim::select
