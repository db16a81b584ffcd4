// `hetcim reproduce`: each paper's tables and figures regenerated and put side by side with the
// published numbers (formats/paper_data.h) and the runs of results/reproduce.h: figures in the
// style of report/figure_style.h with the paper's values as markers, a difference table per figure
// whose one-line reason is computed from the run (host modelled or measured, eq. (1) crossbar
// needs, operator counts, saturation), a provenance block, report.html and reproduce.json. The
// caller (cli/cmd_reproduce.cpp) runs the analyses; these functions only render.
#pragma once

#include <string>
#include <vector>

#include "formats/paper_data.h"
#include "report/figure_style.h"
#include "report/gnuplot.h"
#include "results/reproduce.h"
#include "util/provenance.h"

namespace hetcim::report {

// One compared value: where it sits, ours, the paper's, and why they differ.
struct Difference {
  std::string figure;  // "fig3", "table1", ...
  std::string cell;    // "arm, 50 ns, 100 crossbars"
  double ours = 0;
  std::string paper;  // as printed ("8.7", "<0.01")
  double paper_value = 0;
  std::string reason;  // one line, computed from the run where it can be
};

struct ReproduceOutput {
  std::vector<Figure> figures;
  std::vector<Difference> differences;  // every compared cell (also those that agree)
};

// Writes <out>/figures/*.{svg,pdf,png}, <out>/report.html and <out>/reproduce.json.
ReproduceOutput write_seed000_report(OutputSet& outputs, const results::Seed000Run& run,
                                     const formats::PaperData& paper, const Provenance& provenance,
                                     const std::string& out, const FigureOptions& fig_options = {});

ReproduceOutput write_seed001_report(OutputSet& outputs, const results::Seed001Run& run,
                                     const formats::PaperData& paper, const Provenance& provenance,
                                     const std::string& out, const FigureOptions& fig_options = {});

ReproduceOutput write_seed002_report(OutputSet& outputs, const results::Seed002Run& run,
                                     const formats::PaperData& paper, const Provenance& provenance,
                                     const std::string& out, const FigureOptions& fig_options = {});

}  // namespace hetcim::report
