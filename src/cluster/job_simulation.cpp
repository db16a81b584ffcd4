#include "cluster/job_simulation.h"

#include "util/error.h"

namespace hetcim::cluster {

JobSimulation simulate_jobs(std::span<const JobPhases> jobs, ImaExecution execution) {
  const int64_t n = static_cast<int64_t>(jobs.size());
  for (const JobPhases& p : jobs)
    HETCIM_ASSERT(p.stream_in >= 1 && p.compute >= 1 && p.stream_out >= 1,
                  "phases must last >= 1 cycle");
  constexpr int64_t kNone = -1;
  enum class BusOp { Idle, In, Out };
  BusOp bus = BusOp::Idle;
  int64_t bus_job = kNone, bus_left = 0;
  int64_t engine_job = kNone, engine_left = 0;
  int64_t in_reg = kNone, adc_buf = kNone, out_reg = kNone;
  int64_t next_in = 0, written_back = 0;
  JobSimulation sim;
  while (written_back < n) {
    // Retire the phases that ended at this edge.
    if (bus != BusOp::Idle && bus_left == 0) {
      if (bus == BusOp::In) {
        in_reg = bus_job;
      } else {
        out_reg = kNone;
        ++written_back;
      }
      bus = BusOp::Idle;
      bus_job = kNone;
    }
    if (engine_job != kNone && engine_left == 0) {
      HETCIM_ASSERT(adc_buf == kNone);
      adc_buf = engine_job;
      engine_job = kNone;
    }
    if (written_back == n) break;
    // Hand-overs at this edge.
    if (adc_buf != kNone && out_reg == kNone) {
      out_reg = adc_buf;
      adc_buf = kNone;
    }
    if (engine_job == kNone && in_reg != kNone && adc_buf == kNone) {
      engine_job = in_reg;
      engine_left = jobs[static_cast<size_t>(in_reg)].compute;
      in_reg = kNone;
    }
    if (bus == BusOp::Idle) {
      const bool previous_done = execution == ImaExecution::Pipelined || written_back == next_in;
      if (next_in < n && in_reg == kNone && previous_done) {
        bus = BusOp::In;
        bus_job = next_in++;
        bus_left = jobs[static_cast<size_t>(bus_job)].stream_in;
      } else if (out_reg != kNone) {
        bus = BusOp::Out;
        bus_job = out_reg;
        bus_left = jobs[static_cast<size_t>(bus_job)].stream_out;
      }
    }
    HETCIM_ASSERT(bus != BusOp::Idle || engine_job != kNone, "job pipeline deadlock at cycle ",
                  sim.cycles);
    // One clock cycle of work.
    if (bus != BusOp::Idle) {
      --bus_left;
      ++sim.bus_busy;
    }
    if (engine_job != kNone) {
      --engine_left;
      ++sim.engine_busy;
    }
    ++sim.cycles;
  }
  return sim;
}

}  // namespace hetcim::cluster
