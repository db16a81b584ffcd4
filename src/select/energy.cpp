#include "select/energy.h"

#include <cmath>
#include <limits>

#include "util/error.h"

namespace hetcim::select {
namespace {

void check_coverage(double coverage) {
  if (!(coverage >= 0.0 && coverage <= 1.0))
    throw user_error("energy model: coverage must lie in [0, 1], got ", coverage);
}

}  // namespace

void validate(const EnergyModel& m) {
  auto field = [](double v, const char* name) {
    if (!std::isfinite(v) || v < 0.0)
      throw user_error("energy model: '", name, "' must be a finite energy >= 0 J, got ", v);
  };
  field(m.communication, "communication");
  field(m.controller, "controller");
  field(m.per_class, "per_class");
  field(m.fallback, "fallback");
}

double activation_energy(double e, int64_t classes, const EnergyModel& m) {
  if (!std::isfinite(e) || e < 0.0)
    throw user_error("energy model: activation energy must be >= 0 J, got ", e);
  if (classes < 1) throw user_error("energy model: classes must be >= 1, got ", classes);
  validate(m);
  return e + m.communication + m.controller + static_cast<double>(classes) * m.per_class;
}

double ensemble_energy(std::span<const double> energies, int64_t classes, const EnergyModel& m) {
  double sum = 0.0;
  for (double e : energies) sum += activation_energy(e, classes, m);
  return sum;
}

double selective_energy(double activation, double coverage, const EnergyModel& m) {
  check_coverage(coverage);
  validate(m);
  return activation + (1.0 - coverage) * m.fallback;
}

double break_even_fallback(double activation, double coverage, double ensemble) {
  check_coverage(coverage);
  if (coverage == 1.0) return std::numeric_limits<double>::infinity();
  return (ensemble - activation) / (1.0 - coverage);
}

SelectiveEnergy selective_figures(double activation, double ensemble, double coverage,
                                  const EnergyModel& m) {
  SelectiveEnergy s;
  s.coverage = coverage;
  s.selective = selective_energy(activation, coverage, m);
  s.reduction_vs_ensemble = ensemble > 0.0 ? 1.0 - s.selective / ensemble : 0.0;
  s.break_even_fallback = break_even_fallback(activation, coverage, ensemble);
  return s;
}

}  // namespace hetcim::select
