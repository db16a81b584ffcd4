// Seed 000's two-device problem (problem.h) as a K-engine problem: engine 0 "host" (one job at a
// time, idle power p_host_idle), engine 1 "cim" (every operator on its own crossbars, capacity =
// the crossbar budget, static power p_cim_static), one link "bus" between them (parallel or
// serial as the problem's bus). Per-edge transfers only: edge e moves t_transfer[e] "bytes" over
// a link of 1 B/s, so its latency is exactly t_transfer[e]; its energy e_transfer[e] must then be
// a fixed multiple of t_transfer[e] (true of every problem build.h makes: both are the producer's
// output bytes times a per-byte figure).
#pragma once

#include "partition/multi_problem.h"
#include "partition/problem.h"

namespace hetcim::partition {

// The objective of the result is makespan + total_energy_weight * total energy (energy.h's
// total: dynamic + static); the problem's own energy_weight must be 0. UserError for a
// per-tensor transfer model or energies not proportional to the transfer latencies.
[[nodiscard]] MultiProblem to_multi_problem(const Problem& p, double total_energy_weight = 0.0);

}  // namespace hetcim::partition
