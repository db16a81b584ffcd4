#include "api/file_fields.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "util/units.h"

namespace hetcim::api {
namespace {

template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

// A whole number at full width: an integer JSON value within int64 (nlohmann keeps an unsigned
// value above 2^63 - 1 as unsigned; get<int64_t> would wrap it to a negative number).
int64_t whole(const FieldSpec& f, const nlohmann::json& v) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()})
    throw user_error(f.name, ": expected a whole number that fits 64 bits, got ", v.dump());
  if (!v.is_number_integer()) throw user_error(f.name, ": expected a whole number, got ", v.dump());
  return v.get<int64_t>();
}

uint64_t unsigned_whole(const FieldSpec& f, const nlohmann::json& v) {
  if (!v.is_number_unsigned())  // negative, a fraction or not a number
    throw user_error(f.name, ": expected a whole number from 0 to 18446744073709551615, got ",
                     v.dump());
  return v.get<uint64_t>();
}

double number(const FieldSpec& f, const nlohmann::json& v, double scale) {
  if (!v.is_number()) throw user_error(f.name, ": expected a number, got ", v.dump());
  const double x = v.get<double>() * scale;
  if (!std::isfinite(x)) throw user_error(f.name, ": expected a finite number, got ", v.dump());
  if (f.unit && std::fabs(x) > max_magnitude(*f.unit))
    throw user_error(f.name, ": ", format_quantity(x, *f.unit),
                     " is outside the range hetcim "
                     "accepts for a ",
                     quantity_name(*f.unit), " (at most ",
                     format_quantity(max_magnitude(*f.unit), *f.unit), " in magnitude)");
  return x;
}

std::string text(const FieldSpec& f, const nlohmann::json& v) {
  if (!v.is_string()) throw user_error(f.name, ": expected a string, got ", v.dump());
  return v.get<std::string>();
}

}  // namespace

void set_from_json(const FieldSpec& f, FieldRef value, const nlohmann::json& v, double scale) {
  std::visit(overloaded{
                 [&](bool* x) {
                   if (!v.is_boolean())
                     throw user_error(f.name, ": expected true or false, got ", v.dump());
                   *x = v.get<bool>();
                 },
                 [&](int* x) {
                   const int64_t w = whole(f, v);
                   if (w < std::numeric_limits<int>::min() || w > std::numeric_limits<int>::max()) {
                     int64_t probe = w;  // the field's own range first, as set_from_text
                     check_field(f, &probe);
                     throw user_error(f.name, ": ", w, " does not fit a 32-bit integer");
                   }
                   *x = static_cast<int>(w);
                 },
                 [&](int64_t* x) { *x = whole(f, v); },
                 [&](uint64_t* x) { *x = unsigned_whole(f, v); },
                 [&](double* x) { *x = number(f, v, scale); },
                 [&](std::optional<int64_t>* x) { *x = whole(f, v); },
                 [&](std::optional<uint64_t>* x) { *x = unsigned_whole(f, v); },
                 [&](std::optional<double>* x) { *x = number(f, v, scale); },
                 [&](std::string* x) { *x = text(f, v); },
                 [&](std::optional<std::string>* x) { *x = text(f, v); },
             },
             value);
  check_field(f, value);
}

}  // namespace hetcim::api
