// The hardware a partition or a DSE point runs on: a preset or a YAML file, with the overrides a
// user gives (crossbar budget, MVM latency, host), resolved into one cost::Hardware.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cost/hardware.h"
#include "cost/host_choice.h"  // cost::apply_host_choice: arm, x86, a host model, a profile

namespace hetcim::api {

struct HardwareRequest {
  std::string file;  // YAML hardware description (cost/hardware.h); "" = preset
  std::string preset = "cortex-a72-rram";  // cost::hardware_preset_names() when file is empty
  std::optional<int64_t> crossbars;        // C, overrides the description (>= 1)
  std::optional<double> t_mvm;             // seconds per MVM, overrides the description (> 0)
  // "" (the description's host), arm, x86 (Klein et al.'s hosts as analytical models), a host model
  // preset name, a profile file (.csv / .json) from `hetcim profile`, or "this" (measure now).
  std::string host;

  // UserError naming the field: unknown preset, crossbars < 1, t_mvm <= 0, unknown host.
  void validate() const;
  [[nodiscard]] std::string label() const { return file.empty() ? preset : file; }
};

// The description with the overrides applied (a "this" host is left to the caller: it needs the
// model). Validates the request first.
[[nodiscard]] cost::Hardware resolve_hardware(const HardwareRequest& request);

}  // namespace hetcim::api
