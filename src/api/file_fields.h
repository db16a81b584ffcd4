// Fields read from a file (a frozen policy, a partition plan) checked as the flag of the same
// meaning is: the value is looked up in the request's field table (api/options.h) by the field's
// name, read at full width (a whole number that does not fit the member, or a fraction where a
// whole number is expected, is refused, never truncated or wrapped), a quantity is bounded by
// max_magnitude as a flag's text is (util/units.h), and check_field applies the table's range and
// choices. One table of bounds for the flag, the Python keyword and the file.
//   const int threads = file_field<int>(analog_select_fields(), "threads", j["eval"]["threads"],
//                                       "policy.json", "eval.threads");
//   // policy.json: field 'eval.threads': threads: expected a whole number in [0, 1024], got 100000
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

#include "api/options.h"
#include "util/error.h"

namespace hetcim::api {

// Sets the member behind `value` from the JSON value `v` and checks it against `f` (UserError
// "<name>: ..." as set_from_text's). `scale` converts the file's unit of a quantity to SI (a policy
// gives energies in uJ: 1e-6).
void set_from_json(const FieldSpec& f, FieldRef value, const nlohmann::json& v, double scale = 1.0);

// The field of `table` called `name`; InternalError when the table has none (a reader's bug).
template <typename R>
const Field<R>& find_field(const FieldTable<R>& table, std::string_view name) {
  for (const Field<R>& f : table)
    if (f.name == name) return f;
  throw internal_error("find_field: no field '", name, "' in the table");
}

// The value read from `v`, the JSON found at `path` in `file`, checked against `f`; T is the
// member's type (int, int64_t, uint64_t, double, bool, std::string). UserError
// "<file>: field '<path>': <the field's message>".
template <typename T>
T file_value(const FieldSpec& f, const nlohmann::json& v, const std::string& file,
             const std::string& path, double scale = 1.0) {
  T x{};
  try {
    set_from_json(f, FieldRef(&x), v, scale);
  } catch (const UserError& e) {
    throw user_error(file, ": field '", path, "': ", e.what());
  }
  return x;
}

// The same with the bounds of the field `name` of `table` (the flag of the same meaning).
template <typename T, typename R>
T file_field(const FieldTable<R>& table, std::string_view name, const nlohmann::json& v,
             const std::string& file, const std::string& path, double scale = 1.0) {
  return file_value<T>(find_field(table, name), v, file, path, scale);
}

}  // namespace hetcim::api
