// Renderings of seed 002's study (select/study.h): Table II (per run and mean +- sd), Table III
// (confidence scores), the ablation tables, Fig. 2 a-d analogues (report/figure_style.h: SVG, PDF
// and 300-dpi PNG, the paper's values as markers) and a self-contained report.html. Every table
// states where its numbers come from (the `provenance` lines: data, models, chips, seeds, logit
// cache, energy model). study.json, written and read: formats/race_study_file.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "formats/paper_data.h"
#include "report/figure_style.h"
#include "report/gnuplot.h"
#include "results/race_study.h"
#include "select/study.h"

namespace hetcim::report {

// Plain-text tables (the same content as report.html's tables).
[[nodiscard]] std::string race_study_text(const select::StudyResult& s,
                                          const results::RaceStudyInfo& info);

// The design risk of a sweep variant's label ("r_d = 0.05") in percent; NaN when there is none.
[[nodiscard]] double design_risk_percent(const std::string& label);

// One figure of a study: its file name, title and caption, and the chart drawn.
struct StudyFigure {
  Figure figure;
  Chart chart;
};

// Fig. 2 a-d analogues as charts in the shared style, named fig2a .. fig2d:
//   (a) per run, the empirical selective risk on C and its one-sided bound, the target r as a line;
//   (b) the design-risk sweep: mean test coverage, mean test risk (with r), certificates passing;
//   (c) availability: mean certified coverage and certificates passing as units drop out;
//   (d) energy per query against the fallback cost (only with `s.fallback`, which study.json does
//       not store): selective mean and +- sd, the always-on ensemble, our mean break-even.
// With `paper` (data/paper/seed002.yaml), the published values are black diamonds: Table II's
// rows, Fig. 2(b)/(c)'s values, Sec. V-D's operating point and break-even. `data_note` (where our
// numbers come from) is every figure's footnote and ends every caption.
[[nodiscard]] std::vector<StudyFigure> race_study_charts(const select::StudyResult& s,
                                                         const results::RaceStudyInfo& info,
                                                         const formats::PaperData* paper,
                                                         const std::string& data_note);

// Fig. 2 a-d analogues of `hetcim analog study` staged in `out` under `dir` (SVG, PDF and PNG
// each, as fig2a_certificates, fig2b_design_risk, fig2c_availability, fig2d_fallback; `paper` as
// in race_study_charts, or null); returns them in order.
std::vector<Figure> write_race_study_figures(OutputSet& out, const select::StudyResult& s,
                                             const results::RaceStudyInfo& info,
                                             const formats::PaperData* paper,
                                             const std::string& dir,
                                             const FigureOptions& fig_options = {});

// `dir`/report.html staged in `out`: provenance, the tables and the figures (SVG inline, read
// from their staged files).
void write_race_study_html(OutputSet& out, const select::StudyResult& s,
                           const results::RaceStudyInfo& info, const std::vector<Figure>& figures,
                           const std::string& dir);

}  // namespace hetcim::report
