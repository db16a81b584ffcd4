// An analytical host CPU model for hosts one cannot run on, clearly labelled as modelled: a
// roofline per operator (compute at an assumed fraction of the peak MAC rate, or streaming its
// bytes at the sustained memory bandwidth, whichever is slower) plus a fixed per-operator
// dispatch overhead. Measured profiles (`hetcim profile`) are preferred wherever available.
#pragma once

#include <string>
#include <vector>

#include "workload/workload.h"

namespace hetcim::cost {

struct HostModel {
  std::string name;
  std::string description;      // where the numbers come from
  double peak_int8_macs = 0;    // MAC/s, one core, from the ISA and clock
  double peak_fp32_macs = 0;    // MAC/s, one core
  double efficiency = 0.5;      // fraction of peak an optimised runtime reaches on convolutions
  double memory_bandwidth = 0;  // bytes/s a single core sustains
  double op_overhead = 0;       // seconds per operator dispatch
  // Energy model (cost/energy_model.h); assumptions from the literature, see host_model.cpp.
  double active_power = 0;  // W while the host runs an operator
  double idle_power = 0;    // W while the host waits for the accelerator
};

// Built-in presets: "arm-cortex-a72" and "ryzen9-3900x" (the hosts of seed 000).
[[nodiscard]] const std::vector<HostModel>& host_model_presets();
[[nodiscard]] const HostModel& host_model_preset(const std::string& name);  // UserError if unknown

// Modelled latency of one operator on the host; `int8` selects the int8 peak.
[[nodiscard]] double host_latency(const workload::OpWorkload& op, const HostModel& host, bool int8);

}  // namespace hetcim::cost
