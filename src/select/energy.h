// Seed 002's component-level energy model (Sec. IV-C, V-D), per query. The shared digital front
// end is identical in every system compared and is left out, as in the paper.
//
//   activation(i) = E_i + C + c_ctrl + K c_class        one accelerator on, its K outputs fused
//   ensemble      = sum_i activation(i)                 every accelerator of the pool, always on
//   selective     = activation(i*) + (1 - phi) F        deferred queries (share 1 - phi) pay F
//   break-even F  = (ensemble - activation(i*)) / (1 - phi)   the F at which selective = ensemble
//
// Which coverage phi: the paper's figures (2.00 +- 0.03 uJ, 69.02 +- 0.53 %, 19.19 +- 0.56 uJ,
// Sec. V-D) follow to every printed digit from the **test**-split coverage of its Table II rows
// (per run, then mean and sample standard deviation); the certificate-split coverage gives 1.99
// uJ, 69.15 %, 19.33 uJ. hetcim reports both (race.h: EnergyFigures::at_test, at_certificate);
// tests/select/selection_energy_test.cpp checks both against Table II.
#pragma once

#include <cstdint>
#include <span>

namespace hetcim::select {

struct EnergyModel {
  double communication = 0.12e-6;  // C, J per activated accelerator, >= 0
  double controller = 0.003e-6;    // J per activated accelerator, >= 0
  double per_class = 0.0002e-6;    // J per fused class output, >= 0
  double fallback = 4e-6;          // F, J per deferred query, >= 0
};

// UserError naming the field when a value is negative or not finite.
void validate(const EnergyModel& m);

[[nodiscard]] double activation_energy(double accelerator_energy, int64_t classes,
                                       const EnergyModel& m);
[[nodiscard]] double ensemble_energy(std::span<const double> accelerator_energies, int64_t classes,
                                     const EnergyModel& m);
// `coverage` in [0, 1] (UserError otherwise).
[[nodiscard]] double selective_energy(double activation, double coverage, const EnergyModel& m);
// +inf when coverage = 1 (no query is ever deferred).
[[nodiscard]] double break_even_fallback(double activation, double coverage, double ensemble);

// The selective system's figures at one coverage.
struct SelectiveEnergy {
  double coverage = 0.0;               // phi, [0, 1]
  double selective = 0.0;              // J per query
  double reduction_vs_ensemble = 0.0;  // 1 - selective / ensemble (0 when ensemble = 0)
  double break_even_fallback = 0.0;    // J (+inf at coverage 1)
};

// UserError as selective_energy.
[[nodiscard]] SelectiveEnergy selective_figures(double activation, double ensemble, double coverage,
                                                const EnergyModel& m);

}  // namespace hetcim::select
