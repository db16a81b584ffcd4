// Where a figure's numbers come from, in the figure's file rather than on its image (issue 36):
// the SVG gets a <title>, a <desc> and an RDF-free <metadata> element, the PNG iTXt chunks
// (keywords Title, Description, Comment (the provenance), Software: what `exiftool`, `identify
// -verbose` and image viewers show). The image itself is untouched. Header-only: plain text and
// byte operations.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/escape.h"

namespace hetcim::report {

struct FigureMetadata {
  std::string title;        // the figure's title
  std::string description;  // its caption: what it shows
  std::string source;       // where its numbers come from (the provenance text)
  std::string software;     // "hetcim <version> (<commit>)"
};

namespace detail {

inline uint32_t crc32(std::string_view bytes, uint32_t crc = 0) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (const char ch : bytes)
    crc = table[(crc ^ static_cast<unsigned char>(ch)) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

inline void put_u32(std::string& o, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) o += static_cast<char>((v >> s) & 0xFF);
}

// One iTXt chunk: keyword, no compression, no language tag, UTF-8 text (PNG 1.2, 4.2.3.3).
inline std::string itxt_chunk(std::string_view keyword, std::string_view text) {
  std::string body = "iTXt";
  body += keyword;
  body += '\0';
  body += '\0';  // compression flag
  body += '\0';  // compression method
  body += '\0';  // language tag (empty)
  body += '\0';  // translated keyword (empty)
  body += text;
  std::string chunk;
  put_u32(chunk, static_cast<uint32_t>(body.size() - 4));
  chunk += body;
  put_u32(chunk, crc32(body));
  return chunk;
}

}  // namespace detail

// `svg` with <title>, <desc> and <metadata> inserted after its opening <svg ...> tag; unchanged
// when it has none. Text is escaped for XML (report/escape.h).
[[nodiscard]] inline std::string svg_with_metadata(const std::string& svg,
                                                   const FigureMetadata& m) {
  const size_t open = svg.find("<svg");
  if (open == std::string::npos) return svg;
  const size_t end = svg.find('>', open);
  if (end == std::string::npos) return svg;
  std::string block = "\n<title>" + html_escape(m.title) + "</title>\n<desc>" +
                      html_escape(m.description) +
                      (m.source.empty() ? "" : "\n" + html_escape(m.source)) + "</desc>\n";
  block +=
      "<metadata id=\"hetcim-provenance\"><hetcim:figure "
      "xmlns:hetcim=\"https://hetcim.invalid/figure\" title=\"" +
      html_escape(m.title) + "\" software=\"" + html_escape(m.software) + "\"><hetcim:caption>" +
      html_escape(m.description) + "</hetcim:caption><hetcim:source>" + html_escape(m.source) +
      "</hetcim:source></hetcim:figure></metadata>\n";
  return svg.substr(0, end + 1) + block + svg.substr(end + 1);
}

// `png` with iTXt chunks before its IEND chunk; unchanged when it is not a PNG.
[[nodiscard]] inline std::string png_with_metadata(const std::string& png,
                                                   const FigureMetadata& m) {
  static constexpr std::string_view kSignature = "\x89PNG\r\n\x1a\n";
  if (png.size() < 20 || std::string_view(png).substr(0, 8) != kSignature) return png;
  const size_t iend = png.rfind("IEND");
  if (iend == std::string::npos || iend < 4 + 8) return png;
  const size_t at = iend - 4;  // the IEND chunk's length field
  std::string chunks;
  if (!m.title.empty()) chunks += detail::itxt_chunk("Title", m.title);
  if (!m.description.empty()) chunks += detail::itxt_chunk("Description", m.description);
  if (!m.source.empty()) chunks += detail::itxt_chunk("Comment", m.source);
  if (!m.software.empty()) chunks += detail::itxt_chunk("Software", m.software);
  return png.substr(0, at) + chunks + png.substr(at);
}

}  // namespace hetcim::report
