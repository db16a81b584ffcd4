#include "select/clopper_pearson.h"

#include <boost/math/special_functions/beta.hpp>
#include <cmath>

#include "util/error.h"

namespace hetcim::select {
namespace {

void check(int64_t errors, int64_t n, double delta) {
  if (n < 0) throw user_error("Clopper-Pearson bound: trials n must be >= 0, got ", n);
  if (errors < 0 || errors > n)
    throw user_error("Clopper-Pearson bound: errors must lie in [0, n = ", n, "], got ", errors);
  if (!(delta > 0.0 && delta < 1.0))
    throw user_error("Clopper-Pearson bound: delta must lie in (0, 1), got ", delta);
}

}  // namespace

double clopper_pearson_upper(int64_t errors, int64_t n, double delta) {
  check(errors, n, delta);
  if (n == 0 || errors == n) return 1.0;
  // The x with 1 - I_x(e+1, n-e) = delta, i.e. I_x = 1 - delta, without forming 1 - delta.
  return boost::math::ibetac_inv(static_cast<double>(errors + 1), static_cast<double>(n - errors),
                                 delta);
}

double clopper_pearson_lower(int64_t errors, int64_t n, double delta) {
  check(errors, n, delta);
  if (n == 0 || errors == 0) return 0.0;
  return boost::math::ibeta_inv(static_cast<double>(errors), static_cast<double>(n - errors + 1),
                                delta);
}

}  // namespace hetcim::select
