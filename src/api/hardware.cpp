#include "api/hardware.h"

#include <algorithm>
#include <cmath>

#include "api/options.h"
#include "util/error.h"
#include "util/paper_names.h"

namespace hetcim::api {

const FieldTable<HardwareRequest>& hardware_fields() {
  using R = HardwareRequest;
  static const FieldTable<R> table = [] {
    // The machines' names; the registry names they stand for (util/paper_names.h) still work.
    std::string presets;
    for (const auto& n : cost::hardware_preset_names())
      if (preset_registry_name(n, PresetKind::Hardware) != n)
        presets += (presets.empty() ? "" : ", ") + n;
    return FieldTable<R>{
        field("hw", &R::file, "Hardware description (YAML); replaces the preset"),
        field("preset", &R::preset,
              "Hardware preset when no file is given: " + presets +
                  " (Klein et al. 2026's Cortex-A72 and Ryzen 9 machines)"),
        field("crossbars", &R::crossbars, "Crossbar budget C (overrides the hardware)").at_least(1),
        field("t_mvm", &R::t_mvm, "Latency of one MVM (overrides the hardware)")
            .with_unit(Quantity::Time)
            .positive(),
        field("host", &R::host,
              "Host: arm, x86, a host model name, a profile file (.csv/.json) from `hetcim "
              "profile`, or this (measure this CPU now: int8, 1 thread, 10 warm-up + 50 runs)"),
    };
  }();
  return table;
}

void HardwareRequest::validate() const {
  check_fields(*this, hardware_fields());
  if (file.empty()) {
    const auto names = cost::hardware_preset_names();
    if (std::find(names.begin(), names.end(), preset) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      throw user_error("preset: unknown hardware preset '", preset, "' (presets: ", known, ")");
    }
  }
  if (!host.empty() && host != "this") {
    cost::Hardware probe;
    apply_host_choice(host, probe);
  }
}

cost::Hardware resolve_hardware(const HardwareRequest& r) {
  r.validate();
  cost::Hardware hw =
      r.file.empty() ? cost::hardware_preset(r.preset) : cost::load_hardware(r.file);
  if (!r.host.empty() && r.host != "this") apply_host_choice(r.host, hw);
  if (r.crossbars) hw.cim.crossbars = *r.crossbars;
  if (r.t_mvm) hw.cim.t_mvm = *r.t_mvm;
  return hw;
}

}  // namespace hetcim::api
