#include "cost/host_choice.h"

#include "cost/host_model.h"
#include "util/error.h"

namespace hetcim::cost {

void apply_host_choice(const std::string& choice, Hardware& hw, const std::string& field) {
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
    for (const HostModel& m : host_model_presets()) {
      if (m.name == choice) {
        hw.host.model = choice;
        return;
      }
    }
    throw user_error(field,
                     ": expected arm, x86, a host model (arm-cortex-a72, ryzen9-3900x) or a "
                     "profile file ending in .csv or .json, got '",
                     choice, "'");
  }
}

}  // namespace hetcim::cost
