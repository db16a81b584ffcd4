// Figures drawn by gnuplot (Debian: gnuplot-nox): one self-contained script per figure (data
// inline as $name << EOD ... EOD), rendered to SVG and PNG. gnuplot runs without a shell
// (util/process.h): the script goes to its stdin and the output path is its ARG1 (`gnuplot -c
// /dev/stdin PATH`), so a path is data and never part of the script's text; no script file is
// written.
#pragma once

#include <string>
#include <string_view>

#include "util/output_set.h"

namespace hetcim::report {

struct Figure {
  std::string name;  // file stem, e.g. "fig3_resnet18"
  std::string title;
  std::string caption;
  int width = 760, height = 420;  // pixels
};

// Stages <dir>/<f.name>.svg and .png in `out` (committed with the command's other outputs) from a
// gnuplot body (everything after the terminal and output lines; a body without `set multiplot`
// gets f.title as its title). A missing gnuplot or a failed plot is a UserError naming the figure.
void plot(OutputSet& out, const std::string& dir, const Figure& f, const std::string& body);

// `s` as a gnuplot single-quoted string literal: quotes doubled, line breaks made spaces (inside
// single quotes gnuplot expands neither backquotes nor escapes).
[[nodiscard]] std::string gnuplot_string(std::string_view s);

// A number as gnuplot reads it back exactly enough (%.9g).
[[nodiscard]] std::string gnuplot_number(double v);

// A gnuplot command that prints `text` small at the foot of the image (where its numbers come
// from: source, version); put it before `plot` or `set multiplot`. Quotes in `text` are escaped.
[[nodiscard]] std::string gnuplot_footer(const std::string& text);

}  // namespace hetcim::report
