// Fields of a YAML description (hardware, cluster) read with units and validated, with errors
// that name the file and the field: "hw.yaml: field 'cim.t_mvm' must be positive".
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>
#include <string>

#include "util/units.h"

namespace hetcim::yaml_fields {

// The YAML document of `text`: UserError "<origin>: not valid YAML (line N): ..." when it is not,
// and when a mapping anywhere in it gives a key twice (yaml-cpp keeps both and a lookup takes the
// first, so the second would be silently ignored). Every YAML reader of hetcim parses with it.
[[nodiscard]] YAML::Node load(const std::string& text, const std::string& origin);

// `node` must be a mapping whose keys are all in `known`, each once (`where` is its dotted path,
// "" at the top level).
void check_keys(const YAML::Node& node, const std::string& where,
                const std::set<std::string>& known, const std::string& origin);

// The text of a single value; UserError when it is a list or a mapping, or not valid UTF-8.
[[nodiscard]] std::string scalar(const YAML::Node& n, const std::string& field,
                                 const std::string& origin);

// "origin: field 'field'", the prefix of every message about that field.
[[nodiscard]] std::string where(const std::string& origin, const std::string& field);

// A quantity with units (units.h): > 0, or >= 0 for the nonneg variant.
[[nodiscard]] double positive_quantity(const YAML::Node& n, const std::string& field, Quantity q,
                                       const std::string& origin);
[[nodiscard]] double nonneg_quantity(const YAML::Node& n, const std::string& field, Quantity q,
                                     const std::string& origin);

// A whole number >= min, strictly parsed.
[[nodiscard]] int64_t integer(const YAML::Node& n, const std::string& field, int64_t min,
                              const std::string& origin);

}  // namespace hetcim::yaml_fields
