#include "util/yaml_fields.h"

#include <limits>

#include "util/error.h"
#include "util/numbers.h"
#include "util/utf8.h"

namespace hetcim::yaml_fields {
namespace {

// Every mapping under `n` (each node once, by its position in the text: an alias is the node it
// names, so anchors that repeat a node a billion times are walked once).
void check_unique_keys(const YAML::Node& n, const std::string& path, const std::string& origin,
                       std::set<int>& visited) {
  if (!n.IsMap() && !n.IsSequence()) return;
  if (!visited.insert(n.Mark().pos).second) return;
  if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i)
      check_unique_keys(n[i], path + "[" + std::to_string(i) + "]", origin, visited);
    return;
  }
  std::set<std::string> seen;
  for (const auto& kv : n) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "(a non-scalar key)";
    const std::string at = path.empty() ? key : path + "." + key;
    if (!seen.insert(key).second)
      throw user_error(origin, ": field '", escape_bytes(at), "' is given twice (line ",
                       kv.first.Mark().line + 1, "); a reader would silently take the first");
    check_unique_keys(kv.second, at, origin, visited);
  }
}

}  // namespace

YAML::Node load(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw user_error(origin, ": not valid YAML (line ", e.mark.line + 1, "): ", e.msg);
  }
  std::set<int> visited;
  check_unique_keys(root, "", origin, visited);
  return root;
}

void check_keys(const YAML::Node& node, const std::string& where,
                const std::set<std::string>& known, const std::string& origin) {
  if (!node.IsMap())
    throw user_error(origin, ": '", where.empty() ? "(top level)" : where, "' must be a mapping");
  std::set<std::string> seen;
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    const std::string path = escape_bytes(where.empty() ? key : where + "." + key);
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw user_error(origin, ": unknown field '", path, "' (expected one of: ", list, ")");
    }
    // yaml-cpp keeps both and a lookup finds the first: a second value would be silently ignored.
    if (!seen.insert(key).second) throw user_error(origin, ": field '", path, "' is given twice");
  }
}

std::string scalar(const YAML::Node& n, const std::string& field, const std::string& origin) {
  if (!n.IsScalar()) throw user_error(origin, ": field '", field, "' must be a single value");
  std::string v = n.as<std::string>();
  require_utf8(v, where(origin, field));  // names reach JSON and figures (util/utf8.h)
  return v;
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
  // "must be an integer >= 1", without a bound no one can reach ("-9223372036854775808").
  const std::string bound =
      min == std::numeric_limits<int64_t>::min() ? "" : " >= " + std::to_string(min);
  if (!v) {
    const bool digits = !s.empty() && s.find_first_not_of("-0123456789") == std::string::npos;
    throw user_error(where(origin, field), " must be an integer", bound, ", got '", s, "'",
                     digits ? " (beyond the 64-bit range)" : "");
  }
  if (*v < min) throw user_error(where(origin, field), " must be an integer", bound, ", got ", *v);
  return *v;
}

}  // namespace hetcim::yaml_fields
