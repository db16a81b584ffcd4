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

CoverageMonitor::CoverageMonitor(CoverageMonitorOptions o) : options_(o) {
  if (o.certified_size < 1 || o.certified_accepted < 0 || o.certified_accepted > o.certified_size)
    throw user_error("coverage monitor: certified coverage needs 0 <= accepted (",
                     o.certified_accepted, ") <= size (", o.certified_size, "), size >= 1");
  if (!(o.reference_delta > 0.0 && o.reference_delta < 1.0) || !(o.delta > 0.0 && o.delta < 1.0))
    throw user_error("coverage monitor: deltas must lie in (0, 1)");
  ref_lo_ = clopper_pearson_lower(o.certified_accepted, o.certified_size, o.reference_delta / 2);
  ref_hi_ = clopper_pearson_upper(o.certified_accepted, o.certified_size, o.reference_delta / 2);
}

void CoverageMonitor::observe(bool accepted) {
  ++n_;
  accepted_ += accepted;
}

double CoverageMonitor::coverage() const {
  return n_ > 0 ? static_cast<double>(accepted_) / static_cast<double>(n_) : 0.0;
}

double CoverageMonitor::lower_bound() const {
  return n_ > 0 ? clopper_pearson_lower(accepted_, n_, anytime_level(options_.delta, n_) / 2) : 0.0;
}

double CoverageMonitor::upper_bound() const {
  return n_ > 0 ? clopper_pearson_upper(accepted_, n_, anytime_level(options_.delta, n_) / 2) : 1.0;
}

bool CoverageMonitor::shifted() const {
  return n_ > 0 && (upper_bound() < ref_lo_ || lower_bound() > ref_hi_);
}

}  // namespace hetcim::select
