// Renderings of a result's provenance (util/provenance.h): what made it, when, where, and the
// named facts a reader needs to trust its numbers (host source, solver and status, cache, seeds).
// Every output of partition, dse, profile, cluster and analog carries one of these; its JSON, in
// every file hetcim writes, is formats/provenance_json.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "formats/provenance_json.h"
#include "report/escape.h"  // html_escape, which the renderings of provenance use
#include "util/provenance.h"

namespace hetcim::report {

// One "<prefix>key: value" line per field, facts last; e.g. prefix "# " for a CSV or profile
// header.
[[nodiscard]] std::string provenance_text(const Provenance& p, const std::string& prefix = "");

// A <section class="provenance"> with a definition list, escaped.
[[nodiscard]] std::string provenance_html(const Provenance& p);

// One line for a figure caption: "hetcim 0.1.0 (commit abc), 2026-12-01T14:44:52Z; host source:
// ...; solver: ...".
[[nodiscard]] std::string provenance_caption(const Provenance& p);

}  // namespace hetcim::report
