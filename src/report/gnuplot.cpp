#include "report/gnuplot.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

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

void plot(const std::string& dir, const Figure& f, const std::string& body) {
  for (const char* ext : {"svg", "png"}) {
    const std::string script = dir + "/" + f.name + "." + ext + ".gp";
    std::string s;
    const std::string size = std::to_string(f.width) + "," + std::to_string(f.height);
    s += std::string(ext) == "svg"
             ? "set terminal svg size " + size + " dynamic font 'sans,11' background rgb 'white'\n"
             : "set terminal pngcairo size " + size + " font 'sans,10'\n";
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
