#include "util/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "util/error.h"

namespace hetcim {
namespace {

struct Prefix {
  std::string_view symbol;
  double scale;
};

// SI prefixes (case sensitive: m = milli, M = mega).
constexpr std::array<Prefix, 9> kPrefixes = {{{"p", 1e-12},
                                              {"n", 1e-9},
                                              {"u", 1e-6},
                                              {"m", 1e-3},
                                              {"", 1.0},
                                              {"k", 1e3},
                                              {"M", 1e6},
                                              {"G", 1e9},
                                              {"T", 1e12}}};

struct Unit {
  std::string_view symbol;
  double scale;  // to SI
};

// Units accepted per quantity (after an optional SI prefix).
std::vector<Unit> units_for(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return {{"s", 1.0}};
    case Quantity::Bytes:
      return {{"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
    case Quantity::Bandwidth:
      return {{"B/s", 1.0}, {"bit/s", 0.125}};
    case Quantity::Energy:
      return {{"J", 1.0}};
    case Quantity::Conductance:
      return {{"S", 1.0}};
    case Quantity::Frequency:
      return {{"Hz", 1.0}};
    case Quantity::Power:
      return {{"W", 1.0}};
  }
  return {};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string examples(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return "e.g. \"50ns\", \"1.5ms\", \"2s\"";
    case Quantity::Bytes:
      return "e.g. \"512kB\", \"4MiB\", \"1B\"";
    case Quantity::Bandwidth:
      return "e.g. \"20.48GB/s\", \"10Gbit/s\"";
    case Quantity::Energy:
      return "e.g. \"0.7uJ\", \"12pJ\"";
    case Quantity::Conductance:
      return "e.g. \"133uS\", \"2uS\"";
    case Quantity::Frequency:
      return "e.g. \"250MHz\", \"1.5GHz\"";
    case Quantity::Power:
      return "e.g. \"35mW\", \"1.2W\"";
  }
  return "";
}

}  // namespace

std::string_view quantity_name(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return "time";
    case Quantity::Bytes:
      return "size";
    case Quantity::Bandwidth:
      return "bandwidth";
    case Quantity::Energy:
      return "energy";
    case Quantity::Conductance:
      return "conductance";
    case Quantity::Frequency:
      return "frequency";
    case Quantity::Power:
      return "power";
  }
  return "quantity";
}

static double parse_any_quantity(std::string_view text, Quantity q, std::string_view field);

static const char* base_unit(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return "s";
    case Quantity::Bytes:
      return "B";
    case Quantity::Bandwidth:
      return "B/s";
    case Quantity::Energy:
      return "J";
    case Quantity::Conductance:
      return "S";
    case Quantity::Frequency:
      return "Hz";
    case Quantity::Power:
      return "W";
  }
  return "";
}

double max_magnitude(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return 1e6;  // 11.6 days
    case Quantity::Bytes:
      return 0x1p60;  // 1 EiB
    case Quantity::Bandwidth:
      return 1e15;  // 1 PB/s
    case Quantity::Energy:
      return 1e6;  // 1 MJ
    case Quantity::Conductance:
      return 1.0;  // 1 S
    case Quantity::Frequency:
      return 1e12;  // 1 THz
    case Quantity::Power:
      return 1e6;  // 1 MW
  }
  return 0;
}

double parse_quantity(std::string_view text, Quantity q, std::string_view field) {
  const double v = parse_any_quantity(text, q, field);
  if (std::fabs(v) > max_magnitude(q))
    throw user_error(field, ": '", text, "' is outside the range hetcim accepts for a ",
                     quantity_name(q), " (at most ", max_magnitude(q), " ", base_unit(q),
                     " in magnitude)");
  return v;
}

double parse_positive_quantity(std::string_view text, Quantity q, std::string_view field) {
  const double v = parse_quantity(text, q, field);
  if (!(v > 0))
    throw user_error(field, ": expected a positive ", quantity_name(q), ", got '", text, "'");
  return v;
}

static double parse_any_quantity(std::string_view text, Quantity q, std::string_view field) {
  const std::string_view s = trim(text);
  auto fail = [&](std::string_view why) {
    return user_error(field, ": cannot read '", text, "' as ", q == Quantity::Energy ? "an " : "a ",
                      quantity_name(q), " (", why, "; ", examples(q), ")");
  };
  double value = 0.0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range && ptr != first)  // 1e400: a number, but no double
    throw fail("its number is beyond the range of a double");
  if (ec != std::errc() || ptr == first) throw fail("no number");
  if (!std::isfinite(value)) throw fail("not finite");
  std::string_view unit = trim(std::string_view(ptr, static_cast<size_t>(last - ptr)));
  if (unit.empty()) throw fail("a unit is required");
  for (const Unit& u : units_for(q)) {
    if (unit.size() < u.symbol.size()) continue;
    if (unit.substr(unit.size() - u.symbol.size()) != u.symbol) continue;
    const std::string_view prefix = unit.substr(0, unit.size() - u.symbol.size());
    // Binary units (KiB...) take no further prefix.
    if (u.scale != 1.0 && u.scale != 0.125 && !prefix.empty()) continue;
    for (const Prefix& p : kPrefixes) {
      if (p.symbol == prefix) return value * p.scale * u.scale;
    }
    // Common spelling "kB" vs "KB": accept upper-case K as kilo for bytes only.
    if (prefix == "K" && (q == Quantity::Bytes || q == Quantity::Bandwidth)) {
      return value * 1e3 * u.scale;
    }
  }
  throw fail("unknown unit '" + std::string(unit) + "'");
}

std::string format_quantity(double si_value, Quantity q, int significant) {
  std::string unit;
  switch (q) {
    case Quantity::Time:
      unit = "s";
      break;
    case Quantity::Bytes:
      unit = "B";
      break;
    case Quantity::Bandwidth:
      unit = "B/s";
      break;
    case Quantity::Energy:
      unit = "J";
      break;
    case Quantity::Conductance:
      unit = "S";
      break;
    case Quantity::Frequency:
      unit = "Hz";
      break;
    case Quantity::Power:
      unit = "W";
      break;
  }
  const double mag = std::fabs(si_value);
  const Prefix* chosen = &kPrefixes[4];
  if (mag > 0) {
    for (const Prefix& p : kPrefixes) {
      if (mag >= p.scale * 0.9999999) chosen = &p;
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g %.*s%s", significant, si_value / chosen->scale,
                static_cast<int>(chosen->symbol.size()), chosen->symbol.data(), unit.c_str());
  return buf;
}

}  // namespace hetcim
