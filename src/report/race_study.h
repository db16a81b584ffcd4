// Renderings of seed 002's study (select/study.h): Table II (per run and mean +- sd), Table III
// (confidence scores), the ablation tables, Fig. 2 a-d analogues (report/figure_style.h: SVG, PDF
// and 300-dpi PNG, the paper's values as markers) and a self-contained report.html. Every table
// states where its numbers come from (the `provenance` lines: data, models, chips, seeds, logit
// cache, energy model).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "report/figure_style.h"
#include "report/gnuplot.h"
#include "report/paper_data.h"
#include "select/study.h"

namespace hetcim::report {

struct RaceStudyInfo {
  double risk_target = 0.10;                                    // r (the line in Fig. 2a)
  double fallback = 4e-6;                                       // J, the operating point in Fig. 2d
  std::vector<std::pair<std::string, std::string>> provenance;  // (what, value), in order
};

// Plain-text tables (the same content as report.html's tables).
[[nodiscard]] std::string race_study_text(const select::StudyResult& s, const RaceStudyInfo& info);

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
                                                         const RaceStudyInfo& info,
                                                         const PaperData* paper,
                                                         const std::string& data_note);

// Fig. 2 a-d analogues of `hetcim analog study` staged in `out` under `dir` (SVG, PDF and PNG
// each, as fig2a_certificates, fig2b_design_risk, fig2c_availability, fig2d_fallback; `paper` as
// in race_study_charts, or null); returns them in order.
std::vector<Figure> write_race_study_figures(OutputSet& out, const select::StudyResult& s,
                                             const RaceStudyInfo& info, const PaperData* paper,
                                             const std::string& dir);

// `dir`/report.html staged in `out`: provenance, the tables and the figures (SVG inline, read
// from their staged files).
void write_race_study_html(OutputSet& out, const select::StudyResult& s, const RaceStudyInfo& info,
                           const std::vector<Figure>& figures, const std::string& dir);

// study.json: format version, the options the study ran with (`options`, written by the caller:
// risk, design_risk, dataset, pool, ...), the provenance lines, the base protocol, the ablations
// (per run and mean +- sd) and the break-even. Written by `hetcim analog study`, read back by
// `hetcim reproduce seed002 --study DIR`.
inline constexpr int kRaceStudyFormat = 1;
[[nodiscard]] nlohmann::json race_study_json(const select::StudyResult& s,
                                             const RaceStudyInfo& info,
                                             const nlohmann::json& options);

struct RaceStudyFile {
  std::string origin;         // the file read
  select::StudyResult study;  // every variant's runs (the fallback sweep is not stored)
  RaceStudyInfo info;         // provenance lines as written
  nlohmann::json options;
};

// Reads a study.json; UserError naming the file and the field that is missing, of the wrong type
// or from another format version.
[[nodiscard]] RaceStudyFile read_race_study(const std::string& path);

}  // namespace hetcim::report
