// The --host flag of partition and dse: "arm" / "x86" (the hosts of seed 000 as analytical
// models), a host model preset name, or a profile file (.csv / .json) measured by `hetcim profile`.
#pragma once

#include <string>

#include "cost/hardware.h"

namespace hetcim::cli {

// Resolves `choice` into the host of `hw` (a profile path or a model preset); UserError otherwise.
void apply_host_choice(const std::string& choice, cost::Hardware& hw);

// The bus bandwidth seed 000 pairs with a host ("arm": 10.24 GB/s, "x86": 20.48 GB/s); 0 if none.
[[nodiscard]] double seed000_bus_for(const std::string& choice);

}  // namespace hetcim::cli
