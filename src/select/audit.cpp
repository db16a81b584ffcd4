#include "select/audit.h"

#include <cmath>
#include <numbers>

#include "select/clopper_pearson.h"
#include "util/error.h"

namespace hetcim::select {

double anytime_level(double delta, int64_t n) {
  if (n < 1) throw user_error("anytime level: n must be >= 1, got ", n);
  const double nn = static_cast<double>(n);
  return delta * 6.0 / (std::numbers::pi * std::numbers::pi * nn * nn);
}

AuditMonitor::AuditMonitor(AuditOptions o) : options_(o) {
  if (!(o.risk > 0.0 && o.risk < 1.0))
    throw user_error("audit: risk target must lie in (0, 1), got ", o.risk);
  if (!(o.delta > 0.0 && o.delta < 1.0))
    throw user_error("audit: delta must lie in (0, 1), got ", o.delta);
}

void AuditMonitor::observe(bool wrong) {
  ++n_;
  errors_ += wrong;
}

double AuditMonitor::level() const {
  return n_ > 0 ? anytime_level(options_.delta, n_) : options_.delta;
}

double AuditMonitor::upper_bound() const {
  return n_ > 0 ? clopper_pearson_upper(errors_, n_, level()) : 1.0;
}

double AuditMonitor::lower_bound() const {
  return n_ > 0 ? clopper_pearson_lower(errors_, n_, level()) : 0.0;
}

}  // namespace hetcim::select
