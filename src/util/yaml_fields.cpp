#include "util/yaml_fields.h"

#include "util/error.h"
#include "util/numbers.h"

namespace hetcim::yaml_fields {

void check_keys(const YAML::Node& node, const std::string& where,
                const std::set<std::string>& known, const std::string& origin) {
  if (!node.IsMap())
    throw user_error(origin, ": '", where.empty() ? "(top level)" : where, "' must be a mapping");
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw user_error(origin, ": unknown field '", where.empty() ? key : where + "." + key,
                       "' (expected one of: ", list, ")");
    }
  }
}

std::string scalar(const YAML::Node& n, const std::string& field, const std::string& origin) {
  if (!n.IsScalar()) throw user_error(origin, ": field '", field, "' must be a single value");
  return n.as<std::string>();
}

std::string where(const std::string& origin, const std::string& field) {
  return origin + ": field '" + field + "'";
}

double positive_quantity(const YAML::Node& n, const std::string& field, Quantity q,
                         const std::string& origin) {
  const double v = parse_quantity(scalar(n, field, origin), q, where(origin, field));
  if (!(v > 0)) throw user_error(where(origin, field), " must be positive");
  return v;
}

double nonneg_quantity(const YAML::Node& n, const std::string& field, Quantity q,
                       const std::string& origin) {
  const double v = parse_quantity(scalar(n, field, origin), q, where(origin, field));
  if (!(v >= 0)) throw user_error(where(origin, field), " must be >= 0");
  return v;
}

int64_t integer(const YAML::Node& n, const std::string& field, int64_t min,
                const std::string& origin) {
  const std::string s = scalar(n, field, origin);
  const std::optional<int64_t> v = parse_integer(s);
  if (!v || *v < min)
    throw user_error(where(origin, field), " must be an integer >= ", min, ", got '", s, "'");
  return *v;
}

}  // namespace hetcim::yaml_fields
