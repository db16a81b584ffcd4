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
      "INT");
}

}  // namespace hetcim::cli
