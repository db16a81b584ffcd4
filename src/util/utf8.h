// Text read from a file (a node name in an ONNX model, an engine name in a platform YAML) that
// ends up in JSON, figures or messages must be UTF-8: nlohmann::json refuses to write anything else
// (json.exception.type_error.316, an internal error). Such text is checked once where it enters
// hetcim, with a message naming the file's field and showing the bad bytes as \xHH.
#pragma once

#include <string>
#include <string_view>

namespace hetcim {

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
[[nodiscard]] bool is_valid_utf8(std::string_view s);

// `s` for a message: bytes outside well-formed UTF-8 and control characters as \xHH.
[[nodiscard]] std::string escape_bytes(std::string_view s);

// UserError "<what> '<escaped>' is not valid UTF-8" unless is_valid_utf8(s).
void require_utf8(std::string_view s, std::string_view what);

}  // namespace hetcim
