#include "util/utf8.h"

#include <cstdint>
#include <cstdio>

#include "util/error.h"

namespace hetcim {
namespace {

// Length of the well-formed UTF-8 sequence at s[i], 0 when there is none.
size_t sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b = byte(i);
  if (b < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0, min = 0;
  if ((b & 0xE0) == 0xC0) {
    n = 2, cp = b & 0x1Fu, min = 0x80;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3, cp = b & 0x0Fu, min = 0x800;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4, cp = b & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string escape_bytes(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n == 0 || (n == 1 && (static_cast<uint8_t>(s[i]) < 0x20 || s[i] == 0x7F))) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<uint8_t>(s[i])));
      out += hex;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

void require_utf8(std::string_view s, std::string_view what) {
  if (!is_valid_utf8(s)) throw user_error(what, " '", escape_bytes(s), "' is not valid UTF-8");
}

}  // namespace hetcim
