// The end-to-end execution of a partition plan (api::execute, `hetcim execute`): the plan's host
// operators on the oneDNN engine and its CIM operators on a simulated chip over a labelled data
// set; top-1 accuracy beside the all-digital run, the plan's modelled latency and energy, the
// simulator's wall time, and with --certify seed 002's certified fallback around the analog part.
// Text / JSON renderings of results/execution.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "results/execution.h"

namespace hetcim::report {

[[nodiscard]] nlohmann::json execution_json(const results::Execution& e);
[[nodiscard]] std::string execution_text(const results::Execution& e);

}  // namespace hetcim::report
