#include "cli/host_choice.h"

#include "cost/host_model.h"
#include "util/error.h"

namespace hetcim::cli {

void apply_host_choice(const std::string& choice, cost::Hardware& hw) {
  if (choice.ends_with(".csv") || choice.ends_with(".json")) {
    hw.host.profile = choice;
    return;
  }
  hw.host.profile.clear();
  if (choice == "arm") {
    hw.host.model = "arm-cortex-a72";
  } else if (choice == "x86") {
    hw.host.model = "ryzen9-3900x";
  } else {
    for (const cost::HostModel& m : cost::host_model_presets()) {
      if (m.name == choice) {
        hw.host.model = choice;
        return;
      }
    }
    throw user_error(
        "--host: expected arm, x86, a host model (arm-cortex-a72, ryzen9-3900x) or a "
        "profile file ending in .csv or .json, got '",
        choice, "'");
  }
}

double seed000_bus_for(const std::string& choice) {
  if (choice == "arm" || choice == "arm-cortex-a72") return 10.24e9;
  if (choice == "x86" || choice == "ryzen9-3900x") return 20.48e9;
  return 0.0;
}

}  // namespace hetcim::cli
