#include "report/gnuplot.h"

#include <cstdio>
#include <filesystem>

#include "util/error.h"
#include "util/process.h"

namespace hetcim::report {

std::string gnuplot_footer(const std::string& text) {
  // A single-quoted gnuplot string takes everything literally except '' for a quote.
  std::string q;
  for (char c : text) {
    if (c == '\n' || c == '\r') c = ' ';
    q += c == '\'' ? std::string("''") : std::string(1, c);
  }
  return "set label 1000 '" + q + "' at screen 0.005, screen 0.012 font ',7' tc rgb '#555555'\n";
}

std::string gnuplot_number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

std::string gnuplot_string(std::string_view s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "''";
    else if (c == '\n' || c == '\r')
      q += ' ';
    else
      q += c;
  }
  return q + "'";
}

void plot(OutputSet& out, const std::string& dir, const Figure& f, const std::string& body) {
  for (const char* ext : {"svg", "png"}) {
    const std::string target = (std::filesystem::path(dir) / (f.name + "." + ext)).string();
    const std::string staged = out.stage(target);
    std::string s;
    const std::string size = std::to_string(f.width) + "," + std::to_string(f.height);
    s += std::string(ext) == "svg"
             ? "set terminal svg size " + size + " dynamic font 'sans,11' background rgb 'white'\n"
             : "set terminal pngcairo size " + size + " font 'sans,10'\n";
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
  }
}

}  // namespace hetcim::report
