#include "cost/host_model.h"

#include <algorithm>

#include "util/error.h"

namespace hetcim::cost {

const std::vector<HostModel>& host_model_presets() {
  // Peaks follow from the ISA and the clock; the efficiency and the sustained single-core
  // bandwidth are stated assumptions, not measurements.
  //
  // Power (ASSUMPTIONS, not measurements; seed 000 reports none):
  //  - Cortex-A72 / Raspberry Pi 4B, whole board at 5 V: idle 540 mA = 2.7 W, `stress --cpu 4`
  //    1280 mA = 6.4 W (raspi.tv's published Pi 4B measurements), so one busy core adds
  //    (6.4 - 2.7) / 4 = 0.93 W: active 3.6 W, idle 2.7 W (board scope).
  //  - Ryzen 9 3900X, CPU package: one Zen 2 core at single-thread boost draws about 18 W (per-core
  //    power in AnandTech's Ryzen 3700X/3900X review, anandtech.com/show/14605, "Power
  //    Consumption") on top of a package idle of about 20 W, mostly the 12 nm I/O die: active 38 W,
  //    idle 20 W (package scope, DRAM and board excluded).
  static const std::vector<HostModel> presets = {
      {"arm-cortex-a72",
       "ARM Cortex-A72 @ 1.5 GHz (Raspberry Pi 4 class, LPDDR4): 2x128-bit NEON pipes; int8 "
       "without "
       "SDOT (ARMv8.0) via SMLAL/SADALP = 16 MAC/cycle -> 24 GMAC/s; fp32 FMA 8 MAC/cycle -> "
       "12 GMAC/s; assumed 50 % efficiency, 4 GB/s sustained single-core bandwidth, 10 us per op, "
       "3.6 W busy / 2.7 W idle (board)",
       24e9, 12e9, 0.5, 4e9, 10e-6, 3.6, 2.7},
      {"ryzen9-3900x",
       "AMD Ryzen 9 3900X, one core @ 3.8 GHz (Zen 2, DDR4-3200): AVX2 int8 via VPMADDUBSW on 2 "
       "ports = 64 MAC/cycle -> 243 GMAC/s; fp32 2x256-bit FMA = 16 MAC/cycle -> 60.8 GMAC/s; "
       "assumed 50 % efficiency, 20 GB/s sustained single-core bandwidth, 2 us per op, 38 W busy / "
       "20 W idle (package)",
       243.2e9, 60.8e9, 0.5, 20e9, 2e-6, 38.0, 20.0},
  };
  return presets;
}

const HostModel& host_model_preset(const std::string& name) {
  std::string known;
  for (const HostModel& m : host_model_presets()) {
    if (m.name == name) return m;
    known += (known.empty() ? "" : ", ") + m.name;
  }
  throw user_error("unknown host model '", name, "' (known: ", known, ")");
}

double host_latency(const workload::OpWorkload& op, const HostModel& h, bool int8) {
  const double peak = (int8 ? h.peak_int8_macs : h.peak_fp32_macs) * h.efficiency;
  const double compute = op.macs > 0 ? static_cast<double>(op.macs) / peak : 0.0;
  const double weight_bytes = static_cast<double>(op.params) * (int8 ? 1.0 : 4.0);
  const double bytes = static_cast<double>(op.in_bytes + op.out_bytes) + weight_bytes;
  const double memory = bytes / h.memory_bandwidth;
  return h.op_overhead + std::max(compute, memory);
}

}  // namespace hetcim::cost
