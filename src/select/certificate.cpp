#include "select/certificate.h"

#include "select/clopper_pearson.h"
#include "util/error.h"

namespace hetcim::select {

Certificate certify(std::span<const double> scores, std::span<const uint8_t> correct,
                    double threshold, double risk, double delta) {
  if (!(risk > 0.0 && risk < 1.0))
    throw user_error("certificate: risk target must lie in (0, 1), got ", risk);
  if (!(delta > 0.0 && delta < 1.0))
    throw user_error("certificate: delta must lie in (0, 1), got ", delta);
  Certificate c;
  c.risk_target = risk;
  c.delta = delta;
  c.threshold = threshold;
  c.stats = selective_stats(scores, correct, threshold);
  c.upper_bound = clopper_pearson_upper(c.stats.errors, c.stats.accepted, delta);
  c.certified = c.upper_bound <= risk;
  return c;
}

}  // namespace hetcim::select
