// Reports of a design-space exploration: CSV and JSON of every point, figures that show what
// seed 000's Fig. 3, Fig. 4, Fig. 5 and Table I show (SVG and PNG, drawn by gnuplot), and a
// self-contained HTML page that embeds them.
#pragma once

#include <string>
#include <vector>

#include "dse/dse.h"
#include "report/figure_style.h"
#include "report/gnuplot.h"
#include "results/dse_summary.h"
#include "util/provenance.h"

namespace hetcim::report {

// CSV: "# key: value" provenance lines, then a header and one row per point (with its host
// source, solver, status and whether it came from the cache). Readers skip lines starting "#".
[[nodiscard]] std::string dse_csv(const std::vector<dse::DsePoint>& points,
                                  const Provenance& provenance);
// JSON: {"provenance": {...}, "summary": {...}, "points": [...]}.
[[nodiscard]] std::string dse_json(const std::vector<dse::DsePoint>& points,
                                   const Provenance& provenance);

// The figure files a DSE report owns in <out>/figures (fig3_*, fig4_*, fig5_*, energy_models,
// table1_solver as .svg, .png and leftover .gp) and <out>/report.html: removed when a run writes
// a new report (just before its outputs are committed) or none, so a directory never mixes runs.
void remove_dse_report(const std::string& out);

// Stages <out>/figures/<name>.svg and .png for every figure it can draw from the points, and
// <out>/report.html embedding the SVGs inline with the provenance and every point's host source
// and cache flag, in `outputs` (creates <out>/figures). Needs gnuplot (Debian: gnuplot-nox); a
// missing gnuplot or a failed plot is a UserError naming the figure. Returns the figures staged.
std::vector<Figure> write_dse_report(OutputSet& outputs, const std::vector<dse::DsePoint>& points,
                                     const std::string& out, const Provenance& provenance,
                                     const FigureOptions& fig_options = {});

}  // namespace hetcim::report
