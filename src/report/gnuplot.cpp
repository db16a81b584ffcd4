#include "report/gnuplot.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "report/figure_style.h"
#include "util/error.h"
#include "util/files.h"

namespace hetcim::report {
namespace {

void run_gnuplot(const std::string& script_path, const std::string& figure) {
  const std::string cmd = "gnuplot '" + script_path + "' 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw user_error("figure ", figure, ": cannot start gnuplot");
  std::string log;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe)) log += buf;
  const int status = ::pclose(pipe);
  if (status != 0) {
    if (log.find("not found") != std::string::npos || WEXITSTATUS(status) == 127)
      throw user_error("figure ", figure, ": gnuplot is not installed (Debian: gnuplot-nox)");
    throw user_error("figure ", figure, ": gnuplot failed: ", log);
  }
}

}  // namespace

std::string gnuplot_number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

void plot(const std::string& dir, const Figure& f, const std::string& body) {
  const FigureStyle& st = figure_style();
  const double px = 96, dpi = st.png_dpi;  // SVG user units per inch; PNG pixels per inch
  auto fmt = [](const char* format, double a, double b, double c) {
    char buf[160];
    std::snprintf(buf, sizeof buf, format, a, b, c);
    return std::string(buf);
  };
  const std::string font = "font '" + st.font + ",";
  for (const char* ext : {"svg", "pdf", "png"}) {
    const std::string e = ext;
    const std::string script = dir + "/" + f.name + "." + ext + ".gp";
    std::string s;
    if (e == "svg")
      s += fmt("set terminal svg size %.0f,%.0f dynamic ", f.width_in * px, f.height_in * px, 0) +
           font + fmt("%g' background rgb 'white'\n", st.font_pt * px / 72, 0, 0);
    else if (e == "pdf")
      s += fmt("set terminal pdfcairo size %.3fin,%.3fin ", f.width_in, f.height_in, 0) + font +
           fmt("%g' linewidth 1\n", st.font_pt, 0, 0);
    else  // cairo draws text at 72 dpi: scale fonts, lines and points to the pixel density
      s += fmt("set terminal pngcairo size %.0f,%.0f ", f.width_in * dpi, f.height_in * dpi, 0) +
           font + fmt("%g' fontscale %.4f linewidth %.4f ", st.font_pt, dpi / 72, dpi / 72) +
           fmt("pointscale %.4f background rgb 'white'\n", dpi / 72, 0, 0);
    s += "set output '" + dir + "/" + f.name + "." + ext + "'\n";
    // Multi-panel figures carry the title on the multiplot; panels title themselves.
    if (body.find("set multiplot") == std::string::npos) s += "set title '" + f.title + "'\n";
    s += body;
    write_file_atomically(script, s);
    run_gnuplot(script, f.name);
    std::filesystem::remove(script);
  }
}

}  // namespace hetcim::report
