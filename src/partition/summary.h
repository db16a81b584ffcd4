// What a partitioned schedule amounts to: latency against CPU-only execution, operators and busy
// time per device, crossbars used. Shared by the reports and the design-space exploration.
#pragma once

#include <cstdint>

#include "partition/problem.h"
#include "partition/schedule.h"

namespace hetcim::partition {

struct Summary {
  double latency = 0;   // makespan of the schedule
  double cpu_only = 0;  // every operator on the host, one after another: the sum of T_host
  double speedup = 0;   // cpu_only / latency
  int host_ops = 0, cim_ops = 0;
  double host_busy = 0, cim_busy = 0;  // summed operator latencies per device
  int64_t crossbars_used = 0;
};

[[nodiscard]] Summary summarize(const Problem& p, const Schedule& s);

}  // namespace hetcim::partition
