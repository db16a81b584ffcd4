// Figures drawn by gnuplot (Debian: gnuplot-nox): one self-contained script per figure (data
// inline as $name << EOD ... EOD), rendered to SVG and PNG.
#pragma once

#include <string>

namespace hetcim::report {

struct Figure {
  std::string name;  // file stem, e.g. "fig3_resnet18"
  std::string title;
  std::string caption;
  int width = 760, height = 420;  // pixels
};

// Writes <dir>/<f.name>.svg and .png from a gnuplot body (everything after the terminal and output
// lines; a body without `set multiplot` gets f.title as its title). A missing gnuplot or a failed
// plot is a UserError naming the figure.
void plot(const std::string& dir, const Figure& f, const std::string& body);

// A number as gnuplot reads it back exactly enough (%.9g).
[[nodiscard]] std::string gnuplot_number(double v);

// A gnuplot command that prints `text` small at the foot of the image (where its numbers come
// from: source, version); put it before `plot` or `set multiplot`. Quotes in `text` are escaped.
[[nodiscard]] std::string gnuplot_footer(const std::string& text);

}  // namespace hetcim::report
