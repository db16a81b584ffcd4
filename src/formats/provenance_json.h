// A result's provenance (util/provenance.h) as the JSON object every file hetcim writes carries
// (partition files, sensitivity files, DSE results, study.json, ...).
#pragma once

#include <nlohmann/json.hpp>

#include "util/provenance.h"

namespace hetcim::formats {

// {"tool": "hetcim", "version", "commit", "date_utc", "machine", "command_line",
//  "facts": {key: value, ...}} (facts in insertion order).
[[nodiscard]] nlohmann::json provenance_json(const Provenance& p);

}  // namespace hetcim::formats
