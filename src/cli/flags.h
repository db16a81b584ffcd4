// Checks of numeric flags shared by the commands. CLI11's Range lets NaN through (every
// comparison with NaN is false): finite_range rejects NaN and infinities by name.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

#include "util/numbers.h"

namespace hetcim::cli {

// A finite number in [lo, hi].
inline CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(s, v)) return "expected a number, got '" + s + "'";
        if (!std::isfinite(v)) return "expected a finite number, got '" + s + "'";
        if (v < lo || v > hi)
          return "value " + s + " not in range [" + CLI::detail::to_string(lo) + " - " +
                 CLI::detail::to_string(hi) + "]";
        return "";
      },
      "FINITE in [" + CLI::detail::to_string(lo) + " - " + CLI::detail::to_string(hi) + "]");
}

// A whole number that fits int64 (whole string, util/numbers.h); the range is the api's to check,
// so the CLI and the Python binding give the same message for a value out of range.
inline CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (!parse_integer(s)) return "expected a whole number that fits 64 bits, got '" + s + "'";
        return "";
      },
      "");  // the type name (INT) already says it
}

// A whole number in [0, 2^64 - 1], for unsigned flags (seeds): CLI11 alone would wrap "-1" to
// 2^64 - 1 and saturate "99999999999999999999999".
inline CLI::Validator unsigned_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (!parse_unsigned(s))
          return "expected a whole number from 0 to 18446744073709551615, got '" + s + "'";
        return "";
      },
      "");  // the type name (UINT) already says it
}

// Gives every integer flag of `app` and its subcommands (type INT or UINT) the strict check above:
// decimal digits only (CLI11 also takes 0x/0o/0b prefixes and converts "1.5" to a bare "Could not
// convert"), fitting 64 bits, and no sign for an unsigned flag. The range stays the command's or
// the api's. run_app calls it once, so no flag can be declared without it.
void check_integer_flags(CLI::App& app);

}  // namespace hetcim::cli
