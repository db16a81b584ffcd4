// Figures drawn by gnuplot (Debian: gnuplot-nox): one self-contained script per figure (data
// inline as $name << EOD ... EOD), rendered to SVG, PDF (pdfcairo) and PNG (pngcairo at the
// style's 300 dpi) in the fonts of report/figure_style.h. gnuplot runs without a shell
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
  double width_in = 7.16, height_in = 3.0;  // inches: a two-column paper's full width
  // Where the numbers come from, written into the SVG (<desc>, <metadata>) and PNG (iTXt Comment)
  // with the title and caption (report/figure_metadata.h); plot_chart fills it from the chart's
  // footnote when empty.
  std::string provenance = "";
};

// Stages <dir>/<f.name>.svg, .pdf and .png in `out` (committed with the command's other outputs)
// from a gnuplot body (everything after the terminal and output lines; a body without `set
// multiplot` gets f.title as its title). A missing gnuplot or a failed plot is a UserError naming
// the figure.
void plot(OutputSet& out, const std::string& dir, const Figure& f, const std::string& body);

// The one way text (titles, labels, legends, footnotes, tick names, colours: anything that may
// come from a file's name or content) reaches a gnuplot script. A newline or carriage return ends
// a gnuplot command, so a name holding "\nsystem('...')" would run a program: every control
// character (bytes 0-31 and 127) is written as a visible escape instead ("\n", "\r", "\t",
// "\x1b"), which gnuplot prints as those characters. Backquotes and @macros are inert in both
// forms below (gnuplot substitutes neither inside single quotes nor in data-block lines).
[[nodiscard]] std::string gnuplot_text(std::string_view s);

// gnuplot_text(s) as a single-quoted gnuplot string literal, quotes doubled (inside single quotes
// gnuplot expands neither backquotes nor escapes).
[[nodiscard]] std::string gnuplot_string(std::string_view s);

// gnuplot_text(s) as a double-quoted field of an inline data block ($name << EOD): gnuplot's data
// reader has no escape for a double quote, so each becomes an apostrophe.
[[nodiscard]] std::string gnuplot_datum(std::string_view s);

}  // namespace hetcim::report
