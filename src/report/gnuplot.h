// Figures drawn by gnuplot (Debian: gnuplot-nox): one self-contained script per figure (data
// inline as $name << EOD ... EOD), rendered to SVG, PDF (pdfcairo) and PNG (pngcairo at the style's
// 300 dpi) in the fonts of report/figure_style.h.
#pragma once

#include <string>

namespace hetcim::report {

struct Figure {
  std::string name;  // file stem, e.g. "fig3_resnet18"
  std::string title;
  std::string caption;
  double width_in = 7.16, height_in = 3.0;  // inches: a two-column paper's full width
};

// Writes <dir>/<f.name>.svg, .pdf and .png from a gnuplot body (everything after the terminal and
// output lines; a body without `set multiplot` gets f.title as its title). A missing gnuplot or a
// failed plot is a UserError naming the figure.
void plot(const std::string& dir, const Figure& f, const std::string& body);

// A number as gnuplot reads it back exactly enough (%.9g).
[[nodiscard]] std::string gnuplot_number(double v);

}  // namespace hetcim::report
