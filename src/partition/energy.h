// The energy of a partition (beyond seed 000; issue #4's energy objective), from the energy
// fields of a Problem (cost/energy_model.h gives the formulas, build.h fills them).
//
// Definitions:
//   host           sum of e_host[v] over the operators on the host (P_host * T_host,v each)
//   cim            sum of acc[v][mode].energy over the operators on the accelerator
//   bus            sum over the bus transfers of the schedule: e_transfer[e] per crossing edge
//                  (PerEdge) or e_out[u] once per producer and direction (PerTensorDirection)
//   static_energy  p_cim_static * makespan + p_host_idle * (makespan - host busy time), where the
//                  host busy time is the sum of T_host,v over the host operators: the accelerator
//                  leaks for the whole inference, the host draws its idle power whenever it runs
//                  no operator (waiting for inputs from the accelerator or the bus)
//   total          host + cim + bus + static_energy
// host + cim + bus is additive over operators and transfers and does not depend on the host
// order (dynamic_energy computes it from the assignment alone); the static part couples energy
// to latency through the makespan.
#pragma once

#include "partition/problem.h"
#include "partition/schedule.h"

namespace hetcim::partition {

struct EnergyBreakdown {
  double host = 0.0;           // J, dynamic, host operators
  double cim = 0.0;            // J, dynamic, accelerator operators
  double bus = 0.0;            // J, transfers on the shared bus
  double static_energy = 0.0;  // J, accelerator static power and host idle power over the makespan
  double total = 0.0;          // J
};

// Energy of a schedule (from any solver or a user file; run check() first to trust its times).
// UserError when the problem has no energy model or the schedule does not fit the problem
// (wrong sizes, an unknown mode, a transfer over a pair that is not an edge).
[[nodiscard]] EnergyBreakdown energy_of(const Problem& p, const Schedule& s);

// The solvers' objective: makespan + energy_weight * dynamic_energy (the makespan alone when the
// weight is 0).
[[nodiscard]] double objective_value(const Problem& p, const Schedule& s);

// host + cim + bus of an assignment: the additive part a solver can optimise without a schedule.
// Equals energy_of(p, s).host + .cim + .bus for every schedule s of `a`.
[[nodiscard]] double dynamic_energy(const Problem& p, const Assignment& a);

}  // namespace hetcim::partition
