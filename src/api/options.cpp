#include "api/options.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "util/error.h"
#include "util/numbers.h"

namespace hetcim::api {
namespace {

template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

// A bound or a value as a user reads it: whole numbers without a fraction, others as %g.
std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 0x1p62)
    return std::to_string(static_cast<int64_t>(v));
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string quantity_text(const FieldSpec& f, double v) {
  if (f.percent) return number_text(v * 100) + "%";
  // Long times in seconds (format_quantity would say "1 Ms").
  if (f.unit == Quantity::Time && std::fabs(v) >= 1000) return number_text(v) + " s";
  return f.unit ? format_quantity(v, *f.unit) : number_text(v);
}

// "a time", "an energy".
std::string a_quantity(Quantity q) {
  const std::string name(quantity_name(q));
  return (name.front() == 'e' ? "an " : "a ") + name;
}

const char* example(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return "50ns";
    case Quantity::Bytes:
      return "4MiB";
    case Quantity::Bandwidth:
      return "20.48GB/s";
    case Quantity::Energy:
      return "0.7uJ";
    case Quantity::Conductance:
      return "133uS";
    case Quantity::Frequency:
      return "1GHz";
    case Quantity::Power:
      return "1W";
  }
  return "";
}

// "[lo, hi]" (a parenthesis at an open end).
std::string interval_text(const FieldSpec& f) {
  return (f.lo_open ? "(" : "[") + quantity_text(f, *f.lo) + ", " + quantity_text(f, *f.hi) +
         (f.hi_open ? ")" : "]");
}

// "in [lo, hi]", ">= lo", "> lo", "<= hi", "< hi" ("" without bounds).
std::string bounds_text(const FieldSpec& f) {
  if (f.lo && f.hi) return "in " + interval_text(f);
  if (f.lo) return (f.lo_open ? "> " : ">= ") + quantity_text(f, *f.lo);
  if (f.hi) return (f.hi_open ? "< " : "<= ") + quantity_text(f, *f.hi);
  return "";
}

std::string choices_text(const std::vector<std::string>& c) {
  std::string s;
  for (size_t i = 0; i < c.size(); ++i)
    s += (i == 0 ? "" : i + 1 == c.size() ? " or " : ", ") + (c[i].empty() ? "''" : c[i]);
  return s;
}

bool within(const FieldSpec& f, double v) {
  if (f.lo && !(f.lo_open ? v > *f.lo : v >= *f.lo)) return false;
  if (f.hi && !(f.hi_open ? v < *f.hi : v <= *f.hi)) return false;
  return true;
}

// A bound as a whole number (bounds of whole fields are whole and within +-2^63).
int64_t whole_bound(double b) {
  if (b >= 0x1p63) return std::numeric_limits<int64_t>::max();
  if (b <= -0x1p63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(b);
}

// Whole numbers compared as integers (as doubles, 2^62 + 1 would pass a bound of 2^62).
void check_whole(const FieldSpec& f, int64_t v) {
  const bool ok = (!f.lo || (f.lo_open ? v > whole_bound(*f.lo) : v >= whole_bound(*f.lo))) &&
                  (!f.hi || (f.hi_open ? v < whole_bound(*f.hi) : v <= whole_bound(*f.hi)));
  if (!ok)
    throw user_error(f.name, ": expected a whole number ", bounds_text(f), ", got ",
                     std::to_string(v));
}

void check_unsigned(const FieldSpec& f, uint64_t v) {
  if (f.lo || f.hi)  // a seed beyond 2^63 - 1 is beyond any bound given
    check_whole(f, v > uint64_t{std::numeric_limits<int64_t>::max()}
                       ? std::numeric_limits<int64_t>::max()
                       : static_cast<int64_t>(v));
}

void check_number(const FieldSpec& f, double v) {
  if (f.unset && v == *f.unset) return;
  if (!std::isfinite(v))
    throw user_error(f.name, ": expected a finite number, got ", number_text(v));
  if (within(f, v)) return;
  if (f.unit && f.lo && *f.lo == 0 && f.lo_open && !f.hi)
    throw user_error(f.name, ": expected a positive ", quantity_name(*f.unit), " such as ",
                     example(*f.unit), ", got ", quantity_text(f, v));
  const std::string what = f.unit ? a_quantity(*f.unit) : f.percent ? "a percentage" : "a number";
  throw user_error(f.name, ": expected ", what, " ", bounds_text(f), ", got ", quantity_text(f, v));
}

void check_choice(const FieldSpec& f, const std::string& v) {
  if (f.choices.empty()) return;
  for (const std::string& c : f.choices)
    if (c == v) return;
  for (const std::string& c : f.hidden_choices)
    if (c == v) return;
  throw user_error(f.name, ": expected ", choices_text(f.choices), ", got '", v, "'");
}

}  // namespace

std::string FieldSpec::flag() const {
  if (!flag_text.empty()) return flag_text;
  std::string s = "--" + name;
  for (char& c : s)
    if (c == '_') c = '-';
  return s;
}

void check_field(const FieldSpec& f, FieldRef value) {
  std::visit(overloaded{
                 [](bool*) {},
                 [&](int* v) { check_whole(f, *v); },
                 [&](int64_t* v) { check_whole(f, *v); },
                 [&](uint64_t* v) { check_unsigned(f, *v); },
                 [&](std::optional<uint64_t>* v) {
                   if (*v) check_unsigned(f, **v);
                 },
                 [&](double* v) { check_number(f, *v); },
                 [&](std::optional<int64_t>* v) {
                   if (*v) check_whole(f, **v);
                 },
                 [&](std::optional<double>* v) {
                   if (*v) check_number(f, **v);
                 },
                 [&](std::string* v) { check_choice(f, *v); },
                 [&](std::optional<std::string>* v) {
                   if (*v) check_choice(f, **v);
                 },
             },
             value);
}

void set_from_text(const FieldSpec& f, FieldRef value, const std::string& text) {
  const auto whole = [&] {
    const std::optional<int64_t> v = parse_integer(text);
    if (!v) throw user_error(f.name, ": expected a whole number, got '", text, "'");
    return *v;
  };
  const auto seed = [&] {
    const std::optional<uint64_t> x = parse_unsigned(text);
    if (!x)
      throw user_error(f.name, ": expected a whole number from 0 to 18446744073709551615, got '",
                       text, "'");
    return *x;
  };
  const auto number = [&] {
    if (f.unit) return parse_quantity(text, *f.unit, f.name);
    if (f.percent) {  // "2%"; a bare "2" could mean 2 points or 2 x 100 %
      const std::optional<double> v = text.empty() || text.back() != '%'
                                          ? std::nullopt
                                          : parse_finite(text.substr(0, text.size() - 1));
      if (!v)
        throw user_error(f.name, ": expected a percentage such as 1% or 0.5%, got '", text, "'");
      return *v / 100.0;
    }
    const std::optional<double> v = parse_finite(text);
    if (!v) throw user_error(f.name, ": expected a finite number, got '", text, "'");
    return *v;
  };
  std::visit(overloaded{
                 [&](bool* v) {
                   if (text != "true" && text != "false")
                     throw user_error(f.name, ": expected true or false, got '", text, "'");
                   *v = text == "true";
                 },
                 [&](int* v) {
                   const int64_t x = whole();
                   if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) {
                     check_whole(f, x);  // the field's own range
                     throw user_error(f.name, ": ", text, " does not fit a 32-bit integer");
                   }
                   *v = static_cast<int>(x);
                 },
                 [&](int64_t* v) { *v = whole(); },
                 [&](uint64_t* v) { *v = seed(); },
                 [&](double* v) { *v = number(); },
                 [&](std::optional<int64_t>* v) { *v = whole(); },
                 [&](std::optional<uint64_t>* v) { *v = seed(); },
                 [&](std::optional<double>* v) { *v = number(); },
                 [&](std::string* v) { *v = text; },
                 [&](std::optional<std::string>* v) { *v = text; },
             },
             value);
  check_field(f, value);
}

std::string value_text(const FieldSpec& f, FieldRef value) {
  return std::visit(
      overloaded{
          [](bool* v) -> std::string { return *v ? "true" : "false"; },
          [](int* v) { return std::to_string(*v); },
          [](int64_t* v) { return std::to_string(*v); },
          [](uint64_t* v) { return std::to_string(*v); },
          [&](double* v) {
            return f.unset && *v == *f.unset ? std::string() : quantity_text(f, *v);
          },
          [](std::optional<int64_t>* v) { return *v ? std::to_string(**v) : std::string(); },
          [](std::optional<uint64_t>* v) { return *v ? std::to_string(**v) : std::string(); },
          [&](std::optional<double>* v) { return *v ? quantity_text(f, **v) : std::string(); },
          [](std::string* v) { return *v; },
          [](std::optional<std::string>* v) { return v->value_or(""); },
      },
      value);
}

std::string full_help(const FieldSpec& f, bool with_choices, const std::string& default_text) {
  std::string s = f.help;
  const auto sentence = [&](const std::string& t) { s += (s.empty() ? "" : ". ") + t; };
  if (f.unit) {
    std::string what = a_quantity(*f.unit);
    what[0] = 'A';
    sentence(what + " such as " + example(*f.unit));
  }
  if (f.percent) sentence("A percentage such as 1% or 0.5%");
  if (with_choices && !f.choices.empty()) sentence("One of " + choices_text(f.choices));
  if (f.lo && f.hi)
    sentence("Range " + interval_text(f));
  else if (f.lo || f.hi)
    sentence("Range " + bounds_text(f));
  if (!default_text.empty()) sentence("Default " + default_text);
  return s;
}

}  // namespace hetcim::api
