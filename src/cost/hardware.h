// The hardware description of a CPU + CIM system (seed 000, Fig. 2): a host, an RRAM crossbar
// accelerator and the shared bus between them. Read from YAML with human units and validated
// once, with messages that name the file and the field; or taken from a built-in preset.
//
//   host:
//     model: arm-cortex-a72        # an analytical host model preset, or
//     profile: host.csv            # a measured per-operator profile (`hetcim profile`)
//   cim:
//     crossbar: 256x256            # rows x cols
//     crossbars: 100               # C, the budget
//     t_mvm: 50ns
//     bandwidth: 10.24GB/s         # B_cim; defaults to the bus bandwidth
//     elem_bytes: 1                # b_elem
//   bus:
//     bandwidth: 10.24GB/s         # B_shared
#pragma once

#include <string>
#include <vector>

#include "cost/cim_model.h"

namespace hetcim::cost {

struct HostSpec {
  std::string model = "arm-cortex-a72";  // analytical preset name (used when profile is empty)
  std::string profile;                   // path of a measured profile file
};

struct Hardware {
  std::string name = "custom";
  HostSpec host;
  CimConfig cim;
  double bus_bandwidth = 10.24e9;
};

// "seed000-arm" (Cortex-A72, 10.24 GB/s) and "seed000-x86" (Ryzen 9 3900X, 20.48 GB/s): 256x256
// crossbars, B_cim = bus bandwidth, int8, 100 crossbars and 50 ns per MVM unless overridden.
[[nodiscard]] std::vector<std::string> hardware_preset_names();
[[nodiscard]] Hardware hardware_preset(const std::string& name);

[[nodiscard]] Hardware load_hardware(const std::string& path);
[[nodiscard]] Hardware parse_hardware_yaml(const std::string& text, const std::string& origin);

}  // namespace hetcim::cost
