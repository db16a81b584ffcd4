// Renderings of seed 002's study (select/study.h): Table II (per run and mean +- sd), Table III
// (confidence scores), the ablation tables, Fig. 2 a-d analogues (gnuplot, SVG + PNG) and a
// self-contained report.html. Every table states where its numbers come from (the `provenance`
// lines: data, models, chips, seeds, logit cache, energy model).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/gnuplot.h"
#include "select/study.h"

namespace hetcim::report {

struct RaceStudyInfo {
  double risk_target = 0.10;                                    // r (the line in Fig. 2a)
  double fallback = 4e-6;                                       // J, the operating point in Fig. 2d
  std::vector<std::pair<std::string, std::string>> provenance;  // (what, value), in order
};

// Plain-text tables (the same content as report.html's tables).
[[nodiscard]] std::string race_study_text(const select::StudyResult& s, const RaceStudyInfo& info);

// Fig. 2a-d analogues staged in `out` under `dir` (SVG, PDF and PNG each); returns them in order.
std::vector<Figure> write_race_study_figures(OutputSet& out, const select::StudyResult& s,
                                             const RaceStudyInfo& info, const std::string& dir);

// `dir`/report.html staged in `out`: provenance, the tables and the figures (SVG inline, read
// from their staged files).
void write_race_study_html(OutputSet& out, const select::StudyResult& s, const RaceStudyInfo& info,
                           const std::vector<Figure>& figures, const std::string& dir);

}  // namespace hetcim::report
