// Seed 002's component-level energy model (Sec. IV-C, V-D), per query. The shared digital front
// end is identical in every system compared and is left out, as in the paper.
//
//   activation(i)  = E_i + C + c_ctrl + K c_class     one accelerator switched on, its K outputs
//   fused ensemble       = sum_i activation(i)              every accelerator of the pool, always
//   on selective      = activation(i*) + (1 - phi) F     deferred queries (share 1 - phi) pay the
//   fallback F break-even F   = (ensemble - activation(i*)) / (1 - phi)   the F at which selective
//   = ensemble
//
// Paper figures (A0 selected, K = 10, phi = 70.88 %): 0.825 uJ, 6.45 uJ, 1.99 uJ.
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

}  // namespace hetcim::select
