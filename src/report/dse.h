// Reports of a design-space exploration: CSV and JSON of every point, figures that show what
// seed 000's Fig. 3, Fig. 4, Fig. 5 and Table I show (SVG and PNG, drawn by gnuplot), and a
// self-contained HTML page that embeds them.
#pragma once

#include <string>
#include <vector>

#include "dse/dse.h"
#include "report/gnuplot.h"

namespace hetcim::report {

[[nodiscard]] std::string dse_csv(const std::vector<dse::DsePoint>& points);
[[nodiscard]] std::string dse_json(const std::vector<dse::DsePoint>& points);

// Stages <out>/figures/<name>.svg and .png for every figure it can draw from the points, and
// <out>/report.html embedding the SVGs inline, in `outputs` (creates <out>/figures). Needs gnuplot
// (Debian: gnuplot-nox); a missing gnuplot or a failed plot is a UserError naming the figure.
// Returns the figures written.
std::vector<Figure> write_dse_report(OutputSet& outputs, const std::vector<dse::DsePoint>& points,
                                     const std::string& out);

}  // namespace hetcim::report
