// Renderings of a result's provenance (util/provenance.h): what made it, when, where, and the named
// facts a reader needs to trust its numbers (host source, solver, cache hits, seeds).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "util/provenance.h"

namespace hetcim::report {

// {"tool": "hetcim", "version", "commit", "date_utc", "machine", "command_line",
//  "facts": {key: value, ...}} (facts in insertion order).
[[nodiscard]] nlohmann::json provenance_json(const Provenance& p);

// One "<prefix>key: value" line per field, facts last.
[[nodiscard]] std::string provenance_text(const Provenance& p, const std::string& prefix = "");

// A <section class="provenance"> with a definition list, escaped.
[[nodiscard]] std::string provenance_html(const Provenance& p);

// Text escaped for HTML element content and attribute values.
[[nodiscard]] std::string html_escape(const std::string& s);

}  // namespace hetcim::report
