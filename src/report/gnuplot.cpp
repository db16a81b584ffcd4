#include "report/gnuplot.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "report/figure_metadata.h"
#include "report/figure_style.h"
#include "util/build_version.h"
#include "util/error.h"
#include "util/files.h"
#include "util/process.h"

namespace hetcim::report {

std::string gnuplot_text(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string t;
  t.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      t += ch;
    } else if (c == '\n') {
      t += "\\n";
    } else if (c == '\r') {
      t += "\\r";
    } else if (c == '\t') {
      t += "\\t";
    } else {
      t += "\\x";
      t += kHex[c >> 4];
      t += kHex[c & 15];
    }
  }
  return t;
}

std::string gnuplot_string(std::string_view s) {
  std::string q = "'";
  for (const char c : gnuplot_text(s)) {
    if (c == '\'') q += '\'';
    q += c;
  }
  return q + "'";
}

std::string gnuplot_datum(std::string_view s) {
  std::string q = "\"";
  for (const char c : gnuplot_text(s)) q += c == '"' ? '\'' : c;
  return q + "\"";
}

void plot(OutputSet& out, const std::string& dir, const Figure& f, const std::string& body) {
  const FigureStyle& st = figure_style();
  const double px = 96, dpi = st.png_dpi;  // SVG user units per inch; PNG pixels per inch
  auto fmt = [](const char* format, double a, double b, double c) {
    char buf[160];
    std::snprintf(buf, sizeof buf, format, a, b, c);
    return std::string(buf);
  };
  const std::string font = "font " + gnuplot_string(st.font + ",");
  const std::string font_open = font.substr(0, font.size() - 1);  // without the closing quote
  for (const char* ext : {"svg", "pdf", "png"}) {
    const std::string e = ext;
    const std::string target = join_path(dir, f.name + "." + e);
    const std::string staged = out.stage(target);
    std::string s;
    if (e == "svg")
      // Sizes in points like the PDF and PNG: the SVG terminal takes a font size as user units
      // (px), so every font (the chart's ',6.5' labels and ',9' titles too) is scaled by 96/72.
      s += fmt("set terminal svg size %.0f,%.0f dynamic ", f.width_in * px, f.height_in * px, 0) +
           font_open + fmt("%g' fontscale %.4f background rgb 'white'\n", st.font_pt, px / 72, 0);
    else if (e == "pdf")
      s += fmt("set terminal pdfcairo size %.3fin,%.3fin ", f.width_in, f.height_in, 0) +
           font_open + fmt("%g' linewidth 1\n", st.font_pt, 0, 0);
    else  // cairo draws text at 72 dpi: scale fonts, lines and points to the pixel density
      s += fmt("set terminal pngcairo size %.0f,%.0f ", f.width_in * dpi, f.height_in * dpi, 0) +
           font_open + fmt("%g' fontscale %.4f linewidth %.4f ", st.font_pt, dpi / 72, dpi / 72) +
           fmt("pointscale %.4f background rgb 'white'\n", dpi / 72, 0, 0);
    // The output path is gnuplot's ARG1, data and never part of the script's text.
    s += "set output ARG1\n";
    // Multi-panel figures carry the title on the multiplot; panels title themselves.
    if (body.find("set multiplot") == std::string::npos)
      s += "set title " + gnuplot_string(f.title) + "\n";
    s += body;
    s += "\nunset output\n";
    const ProcessResult r = run_process({"gnuplot", "-c", "/dev/stdin", staged}, s);
    if (!r.started)
      throw user_error("figure ", f.name, ": gnuplot is not installed (Debian: gnuplot-nox)");
    if (r.exit_code != 0)
      throw user_error("figure ", f.name, ": gnuplot failed (exit ", r.exit_code, "): ", r.output);
    // The title, caption and provenance into the file (not onto the image): SVG and PNG. The PDF
    // keeps cairo's own information dictionary (gnuplot gives no way to set it).
    if (e == "svg" || e == "png") {
      std::string bytes;
      {
        std::ifstream in(staged, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
      }
      const FigureMetadata m{
          f.title, f.caption, f.provenance,
          std::string("hetcim ") + build_version() + " (" + build_commit() + "), gnuplot"};
      const std::string with =
          e == "svg" ? svg_with_metadata(bytes, m) : png_with_metadata(bytes, m);
      std::ofstream o(staged, std::ios::binary | std::ios::trunc);
      o.write(with.data(), static_cast<std::streamsize>(with.size()));
      if (!o) throw user_error("figure ", f.name, ": cannot write ", staged);
    }
  }
}

}  // namespace hetcim::report
