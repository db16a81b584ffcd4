#include "util/numbers.h"

#include <charconv>
#include <cmath>

namespace hetcim {

std::optional<int64_t> parse_integer(std::string_view s) {
  int64_t v = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

std::optional<uint64_t> parse_unsigned(std::string_view s) {
  uint64_t v = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

std::optional<double> parse_finite(std::string_view s) {
  double v = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<Dims> parse_dims(std::string_view s) {
  const auto x = s.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  const std::optional<int64_t> rows = parse_integer(s.substr(0, x)),
                               cols = parse_integer(s.substr(x + 1));
  if (!rows || !cols) return std::nullopt;
  return Dims{*rows, *cols};
}

}  // namespace hetcim
