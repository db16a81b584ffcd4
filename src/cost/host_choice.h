// A host as a user names it (--host, --hosts, a platform's host): seed 000's arm or x86, a host
// model preset, or a measured profile file, set into a hardware description. One parser for the
// two-device requests (api/hardware.h), the DSE's hosts and a platform's seed000-host engines.
#pragma once

#include <string>

#include "cost/hardware.h"

namespace hetcim::cost {

// arm, x86 (seed 000's hosts as analytical models), a host model preset (host_model.h) or a
// .csv / .json profile path into hw.host; UserError naming `field` otherwise ("this", a host
// measured now, is the caller's: it needs the model).
void apply_host_choice(const std::string& choice, Hardware& hw, const std::string& field = "host");

}  // namespace hetcim::cost
