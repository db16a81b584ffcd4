// A cycle-by-cycle model of the IMA job pipeline of seed 001 (Fig. 3), the reference the closed
// forms of ima_model.h are tested against. It models the hardware, not the formula: one data
// interface shared by stream-in and stream-out, an input register before the DACs, the ADC
// buffer and an output register after it, and the engine FSM's choice of stream-in first.
//
// Each clock edge: finished phases retire (stream-in fills the input register, compute fills the
// ADC buffer, stream-out frees the output register); the ADC buffer moves to a free output
// register; an idle engine takes the input register once the ADC buffer is free; an idle bus
// starts the next stream-in if the input register is free (sequential: only once the previous
// job has been written back), otherwise the stream-out of the output register. Then every busy
// unit works one cycle.
#pragma once

#include <cstdint>
#include <span>

#include "cluster/cluster_config.h"
#include "cluster/ima_model.h"

namespace hetcim::cluster {

struct JobSimulation {
  int64_t cycles = 0;       // until the last stream-out ends
  int64_t bus_busy = 0;     // cycles the data interface streams
  int64_t engine_busy = 0;  // cycles the crossbar computes
};

// Jobs in execution order. Throws InternalError if a phase is shorter than one cycle.
[[nodiscard]] JobSimulation simulate_jobs(std::span<const JobPhases> jobs, ImaExecution execution);

}  // namespace hetcim::cluster
