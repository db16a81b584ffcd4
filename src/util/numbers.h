// Strict parsing of a whole string as a number (std::from_chars: no sign '+', no surrounding
// spaces, no trailing characters, not empty); nullopt otherwise. The callers own the error message,
// which names their file and field.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hetcim {

[[nodiscard]] std::optional<int64_t> parse_integer(std::string_view s);
// A whole number in [0, 2^64 - 1] (seeds); no sign at all.
[[nodiscard]] std::optional<uint64_t> parse_unsigned(std::string_view s);
// Finite values only (no inf or nan).
[[nodiscard]] std::optional<double> parse_finite(std::string_view s);

struct Dims {
  int64_t rows = 0, cols = 0;
};
// "ROWSxCOLS" (e.g. a crossbar "256x256"), both whole integers; the caller checks their range.
[[nodiscard]] std::optional<Dims> parse_dims(std::string_view s);

}  // namespace hetcim
