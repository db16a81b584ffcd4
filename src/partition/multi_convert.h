// Seed 000's two-device problem (problem.h) as a K-engine problem, and back where a K-engine
// problem has that shape (two_device_form).
//
// to_multi_problem: engine 0 "host" (one job at a
// time, idle power p_host_idle), engine 1 "cim" (every operator on its own crossbars, capacity =
// the crossbar budget, static power p_cim_static), one link "bus" between them (parallel or
// serial as the problem's bus). Per-edge transfers only: edge e moves t_transfer[e] "bytes" over
// a link of 1 B/s, so its latency is exactly t_transfer[e]; its energy e_transfer[e] must then be
// a fixed multiple of t_transfer[e] (true of every problem build.h makes: both are the producer's
// output bytes times a per-byte figure).
#pragma once

#include <optional>
#include <vector>

#include "partition/multi_problem.h"
#include "partition/problem.h"

namespace hetcim::partition {

// The objective of the result is makespan + total_energy_weight * total energy (energy.h's
// total: dynamic + static); the problem's own energy_weight must be 0. UserError for a
// per-tensor transfer model or energies not proportional to the transfer latencies.
[[nodiscard]] MultiProblem to_multi_problem(const Problem& p, double total_energy_weight = 0.0);

// A K-engine problem of the two-device shape as the two-device problem, with the map from its
// modes back to the K-engine options.
struct TwoDeviceForm {
  Problem problem;  // latency only: no energy model (energies stay with the K-engine problem)
  int host = 0, accelerator = 1;               // engine indices in the K-engine problem
  std::vector<int> host_option;                // per operator: its option on the host
  std::vector<std::vector<int>> mode_options;  // per operator: the option of each mode
  // The K-engine option of mode `mode` of v (kHost = the host option).
  [[nodiscard]] int option_of(int v, int mode) const;
};

// The shape: two engines, a host (one job at a time, no capacity, exactly one option of every
// operator on it) and an accelerator (its operators in parallel, a capacity: the crossbar
// budget; its options the modes, those above the capacity left out); no exclusive group; one link
// joining them (its latency + bytes / bandwidth the per-edge transfer, serial = the serial bus);
// no reprogrammed option; the latency objective (energy_weight 0, latency_weight > 0). nullopt
// for any other problem. Seed 000's platforms (platform.h: seed000-arm, seed000-x86) have it.
[[nodiscard]] std::optional<TwoDeviceForm> two_device_form(const MultiProblem& m);

}  // namespace hetcim::partition
