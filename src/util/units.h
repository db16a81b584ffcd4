// Human units at the boundary: "50ns", "20.48GB/s", "0.7uJ", "133uS", "4MiB". Internally every
// quantity is SI (seconds, bytes, bytes/s, joules, siemens). A number without a unit is rejected
// wherever the quantity has a dimension, so "50" never silently means 50 seconds.
#pragma once

#include <string>
#include <string_view>

namespace hetcim {

enum class Quantity { Time, Bytes, Bandwidth, Energy, Conductance, Frequency, Power };

[[nodiscard]] std::string_view quantity_name(Quantity q);

// Parses `text` as a quantity; throws UserError naming `field` and the expected units. Values
// beyond max_magnitude(q) are rejected too (overflow-safe bounds for everything computed from
// them, far outside any real device).
[[nodiscard]] double parse_quantity(std::string_view text, Quantity q, std::string_view field);
// The same, and > 0 (every latency, bandwidth and frequency flag).
[[nodiscard]] double parse_positive_quantity(std::string_view text, Quantity q,
                                             std::string_view field);

// The largest magnitude parse_quantity accepts: 1e6 s, 2^60 B, 1e15 B/s, 1e6 J, 1 S, 1e12 Hz,
// 1e6 W.
[[nodiscard]] double max_magnitude(Quantity q);

// Formats an SI value with an engineering prefix and the base unit, e.g. 5e-8 s -> "50 ns".
[[nodiscard]] std::string format_quantity(double si_value, Quantity q, int significant = 4);

}  // namespace hetcim
