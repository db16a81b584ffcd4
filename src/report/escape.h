// The one escaper of the text hetcim writes into markup: HTML pages (report.html, index.html) and
// the XML of SVG figures (their <title>, <desc>, <metadata> and the Gantt charts' labels).
#pragma once

#include <string>
#include <string_view>

namespace hetcim::report {

// `s` with < > & " as entities (safe in element text and in double-quoted attributes), and the
// control characters that XML 1.0 forbids (every one but tab, newline and carriage return; HTML
// calls them parse errors) as spaces.
[[nodiscard]] inline std::string html_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          o += ' ';
        else
          o += c;
    }
  }
  return o;
}

}  // namespace hetcim::report
