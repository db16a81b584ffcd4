// The hardware description of a CPU + CIM system (seed 000, Fig. 2): a host, an RRAM crossbar
// accelerator and the shared bus between them. Read from YAML with human units and validated
// once, with messages that name the file and the field; or taken from a built-in preset.
//
//   host:
//     model: arm-cortex-a72        # an analytical host model preset, or
//     profile: host.csv            # a measured per-operator profile (`hetcim profile`)
//     power: 3.6W                  # while the host runs an operator; default: the model preset's
//     idle_power: 2.7W             # while the host waits; default: the model preset's
//   cim:
//     crossbar: 256x256            # rows x cols
//     crossbars: 100               # C, the budget
//     t_mvm: 50ns
//     bandwidth: 10.24GB/s         # B_cim; defaults to the bus bandwidth
//     elem_bytes: 1                # b_elem
//     e_mvm: 5.3nJ                 # one MVM on one crossbar incl. DAC/ADC/periphery
//     e_byte: 1pJ/B                # internal load/store at B_cim ("1pJ" is read the same)
//     static_power: 100mW          # the whole accelerator, whenever the system is on
//   bus:
//     bandwidth: 10.24GB/s         # B_shared
//     e_byte: 40pJ/B               # per byte crossing the shared bus
//
// Energy and power fields are optional and must be >= 0; their defaults are documented
// assumptions from the literature (cim_model.h, host_model.cpp, hardware.cpp), not measurements.
// A profiled host (`host.profile`) has no power of its own: it takes `host.power` /
// `host.idle_power` when given, otherwise the figures of `host.model` (the preset's host).
//
// Energy model (formulas in cost/energy_model.h, schedule totals in partition/energy.h):
//   host op   host.power * T_host           CIM op  N_mvm * crossbars * cim.e_mvm
//   transfer  b_elem * N_out * bus.e_byte             + b_elem * (N_in + N_out) * cim.e_byte
//   static    cim.static_power * makespan + host.idle_power * (makespan - host busy time)
// Defaults (assumptions): e_mvm 5.3 nJ (ISAAC components scaled to 256x256, 8-bit inputs),
// cim.e_byte 1 pJ/B (ISAAC eDRAM + bus), static_power 0.1 W; host 3.6 W / 2.7 W (Pi 4 board)
// or 38 W / 20 W (Ryzen 9 3900X package); bus 40 pJ/B (LPDDR4) or 120 pJ/B (DDR4).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/cim_model.h"

namespace hetcim::cost {

struct HostSpec {
  std::string model = "arm-cortex-a72";  // analytical preset name (used when profile is empty)
  std::string profile;                   // path of a measured profile file
  // Watts; when unset, the figures of the host model preset `model` (host_model.h). Kept as
  // overrides rather than copies so that changing `model` (e.g. `--host x86`) changes the power.
  std::optional<double> power;       // while the host runs an operator
  std::optional<double> idle_power;  // while the host waits for the accelerator
};

// The power of the host as the energy model uses it (W).
struct HostPower {
  double active = 0.0;
  double idle = 0.0;
};

// `host.power` / `host.idle_power` when set, otherwise those of the model preset `host.model`
// (UserError if that preset is unknown).
[[nodiscard]] HostPower host_power(const HostSpec& host);

struct Hardware {
  std::string name = "custom";
  HostSpec host;
  CimConfig cim;
  double bus_bandwidth = 10.24e9;
  // Joules per byte on the shared CPU-CIM bus. Default: the LPDDR4 figure of seed000-arm
  // (hardware.cpp explains both presets' values; an assumption, not a measurement).
  double bus_e_byte = 40e-12;
};

// "seed000-arm" (Cortex-A72, 10.24 GB/s) and "seed000-x86" (Ryzen 9 3900X, 20.48 GB/s): 256x256
// crossbars, B_cim = bus bandwidth, int8, 100 crossbars and 50 ns per MVM unless overridden.
// Energy (not in seed 000; assumptions): the CimConfig defaults, the host model's power, and a
// bus energy per byte of 40 pJ/B (arm, LPDDR4) or 120 pJ/B (x86, DDR4).
[[nodiscard]] std::vector<std::string> hardware_preset_names();
[[nodiscard]] Hardware hardware_preset(const std::string& name);

[[nodiscard]] Hardware load_hardware(const std::string& path);
[[nodiscard]] Hardware parse_hardware_yaml(const std::string& text, const std::string& origin);

}  // namespace hetcim::cost
