#include "select/selection.h"

#include <cmath>

#include "util/error.h"

namespace hetcim::select {

double utility(const Candidate& c) {
  if (!std::isfinite(c.coverage) || c.coverage < 0.0 || c.coverage > 1.0)
    throw user_error("selection rule: coverage must lie in [0, 1], got ", c.coverage);
  if (!std::isfinite(c.energy) || !std::isfinite(c.communication) || c.communication < 0.0 ||
      c.energy + c.communication <= 0.0)
    throw user_error(
        "selection rule: need a finite activation energy and communication cost >= 0 with a "
        "positive sum, got E = ",
        c.energy, " J, C = ", c.communication, " J");
  return c.coverage / (c.energy + c.communication);
}

std::optional<size_t> select_accelerator(std::span<const Candidate> pool) {
  std::optional<size_t> best;
  double best_u = 0.0;
  for (size_t i = 0; i < pool.size(); ++i) {
    const double u = utility(pool[i]);
    if (u > best_u) {
      best_u = u;
      best = i;
    }
  }
  return best;
}

}  // namespace hetcim::select
