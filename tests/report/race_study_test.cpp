// study.json (report/race_study.h): what `hetcim analog study` writes, `hetcim reproduce seed002
// --study` reads back exactly (every per-run figure, the pass counts and selected units recounted,
// the means recomputed), and a broken file is refused naming the file and the field. Fig. 2 a-d in
// the shared style: every bar, line and marker is the study's value or the paper's, typed in
// data/paper/seed002.yaml; the files come out at the style's sizes.
#include "report/race_study.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "formats/race_study_file.h"
#include "util/error.h"
#include "util/output_set.h"

namespace hetcim::report {
namespace {

namespace fs = std::filesystem;
using formats::load_paper_data;
using formats::PaperData;
using formats::race_study_json;
using formats::read_race_study;
using results::RaceStudyFile;
using results::RaceStudyInfo;

select::RunFigures run(double cov, double risk, bool certified, const std::string& unit) {
  select::RunFigures f;
  f.selected = unit;
  f.certified = certified;
  f.certified_coverage = cov;
  f.certified_risk = risk;
  f.upper_bound = risk + 0.01;
  f.test_coverage = cov - 0.01;
  f.test_risk = risk - 0.005;
  f.hybrid_accuracy = 0.8;
  f.digital_accuracy = 0.81;
  f.forced_accuracy = 0.79;
  f.ensemble_accuracy = 0.75;
  f.selected_activation = 0.825e-6;
  f.ensemble_energy = 6.45e-6;
  f.selective_energy = 2e-6;
  f.reduction = 0.69;
  f.break_even = std::numeric_limits<double>::quiet_NaN();  // no break-even: written as null
  f.selective_energy_certificate = 1.99e-6;
  f.reduction_certificate = 0.6915;
  f.break_even_certificate = 19.3e-6;
  return f;
}

select::Variant variant(const std::string& label, std::vector<select::RunFigures> runs) {
  select::Variant v;
  v.label = label;
  for (const auto& f : runs) v.passes += f.certified;
  v.runs = std::move(runs);
  return v;
}

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p =
      fs::temp_directory_path() / ("hetcim_race_study_" + std::to_string(::getpid()) + name);
  std::ofstream(p) << text;
  return p;
}

TEST(RaceStudyJson, ReadsBackWhatItWrites) {
  select::StudyResult s;
  s.base = variant("base", {run(0.709, 0.0573, true, "A0"), run(0.6944, 0.0714, false, "A1")});
  s.design_risk = {variant("r_d = 0.05", {run(0.5, 0.04, true, "A0"), run(0.6, 0.05, true, "A0")})};
  s.availability = {
      variant("without A0", {run(0.59, 0.07, true, "A1"), run(0.6, 0.08, true, "A1")})};
  s.scores = {variant("max_softmax", {run(0.717, 0.07, true, "A0"), run(0.7, 0.07, true, "A0")})};
  s.bias = {
      variant("bias correction on", {run(0.7, 0.07, true, "A0"), run(0.7, 0.07, true, "A0")})};
  RaceStudyInfo info;
  info.provenance = {{"data", "fashion-mnist"}, {"version", "hetcim test"}};
  const nlohmann::json options = {{"risk", 0.10}, {"design_risk", 0.08}, {"fallback_uJ", 4.0}};
  const fs::path p = write("ok.json", race_study_json(s, info, options).dump(1));
  const RaceStudyFile f = read_race_study(p.string());
  fs::remove(p);
  ASSERT_EQ(f.study.base.runs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const select::RunFigures &a = s.base.runs[i], &b = f.study.base.runs[i];
    EXPECT_EQ(b.selected, a.selected);
    EXPECT_EQ(b.certified, a.certified);
    EXPECT_EQ(b.certified_coverage, a.certified_coverage);
    EXPECT_EQ(b.upper_bound, a.upper_bound);
    EXPECT_EQ(b.test_risk, a.test_risk);
    EXPECT_EQ(b.hybrid_accuracy, a.hybrid_accuracy);
    EXPECT_NEAR(b.selective_energy, a.selective_energy, 1e-18);
    EXPECT_NEAR(b.break_even_certificate, a.break_even_certificate, 1e-18);
    EXPECT_TRUE(std::isnan(b.break_even));
  }
  EXPECT_EQ(f.study.base.passes, 1);
  ASSERT_EQ(f.study.base.selected_counts.size(), 2u);  // A0 once, A1 once
  EXPECT_EQ(f.study.base.over(&select::RunFigures::certified_coverage).mean, (0.709 + 0.6944) / 2);
  EXPECT_EQ(f.study.availability[0].label, "without A0");
  EXPECT_EQ(f.study.scores[0].label, "max_softmax");
  EXPECT_EQ(f.info.risk_target, 0.10);
  EXPECT_NEAR(f.info.fallback, 4e-6, 1e-18);
  ASSERT_EQ(f.info.provenance.size(), 2u);
  EXPECT_EQ(f.info.provenance[0].second, "fashion-mnist");
  EXPECT_EQ(f.options["design_risk"], 0.08);
}

std::string error_of(const std::string& text) {
  const fs::path p = write("bad.json", text);
  std::string what = "no error";
  try {
    (void)read_race_study(p.string());
  } catch (const UserError& e) {
    what = e.what();
  }
  fs::remove(p);
  return what;
}

TEST(RaceStudyJson, BrokenFilesNameTheField) {
  EXPECT_NE(error_of("not json").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{\"format\": 2}").find("field 'format': expected 1"), std::string::npos);
  EXPECT_NE(error_of("{\"format\": 1}").find("field 'options': missing"), std::string::npos);
  const std::string head = "{\"format\": 1, \"options\": {}, \"provenance\": {}, ";
  EXPECT_NE(error_of(head + "\"base\": {\"label\": \"base\", \"passes\": 0, \"runs\": []}}")
                .find("field 'base.runs': expected a non-empty array"),
            std::string::npos);
  EXPECT_NE(
      error_of(head + "\"base\": {\"label\": \"base\", \"passes\": 0, \"runs\": [{\"selected\": "
                      "\"A0\", \"certified\": true, \"certified_coverage\": 1.5}]}}")
          .find("field 'base.runs[0].certified_coverage': expected a fraction"),
      std::string::npos);
}

select::StudyResult two_run_study() {
  select::StudyResult s;
  s.base = variant("base", {run(0.709, 0.0573, true, "A0"), run(0.6944, 0.0714, false, "A1")});
  s.design_risk = {
      variant("r_d = 0.05", {run(0.5, 0.04, true, "A0"), run(0.6, 0.05, true, "A0")}),
      variant("r_d = 0.08", {run(0.7, 0.07, true, "A0"), run(0.74, 0.09, false, "A0")})};
  s.availability = {
      variant("without A0", {run(0.59, 0.07, true, "A1"), run(0.6, 0.08, true, "A1")})};
  for (double f : {1e-6, 4e-6, 30e-6}) {
    select::FallbackPoint p;
    p.fallback = f;
    p.selective = {2, 1e-6 + 0.3 * f, 0.1e-6, 1e-6 + 0.29 * f, 1e-6 + 0.31 * f};
    p.ensemble = 6.45e-6;
    s.fallback.push_back(p);
  }
  s.break_even = {2, 18e-6, 1e-6, 17e-6, 19e-6};
  return s;
}

const PaperData& seed002_paper() {
  static const PaperData p = load_paper_data(HETCIM_SOURCE_DIR "/data/paper/seed002.yaml");
  return p;
}

TEST(RaceStudyCharts, BarsLinesAndMarkersAreTheStudysAndThePapersValues) {
  const select::StudyResult s = two_run_study();
  RaceStudyInfo info;
  info.risk_target = 0.10;
  const std::vector<StudyFigure> figs = race_study_charts(s, info, &seed002_paper(), "NOTE.");
  ASSERT_EQ(figs.size(), 4u);
  EXPECT_EQ(figs[0].figure.name, "fig2a");
  EXPECT_EQ(figs[3].figure.name, "fig2d");
  for (const StudyFigure& f : figs) {
    EXPECT_EQ(f.chart.footnote.rfind("NOTE.", 0), 0u) << f.figure.name;
    EXPECT_NE(f.figure.caption.find("NOTE."), std::string::npos) << f.figure.name;
    EXPECT_NE(f.figure.caption.find("Diamonds: the paper's values (CIFAR-10"), std::string::npos);
  }
  // (a) two runs of ours, the paper's five runs beside them (Table II: run 1 5.73 / 6.41 %), the
  // target r = 10 % as a line.
  const Panel& a = figs[0].chart.panels.at(0);
  const Bars& ab = std::get<Bars>(a.chart);
  ASSERT_EQ(ab.groups.size(), 5u);
  EXPECT_DOUBLE_EQ(ab.series[0].values[0], 5.73);
  EXPECT_DOUBLE_EQ(ab.series[0].values[1], 7.14);
  EXPECT_TRUE(std::isnan(ab.series[0].values[2]));
  EXPECT_DOUBLE_EQ(ab.series[1].values[1], 100 * (0.0714 + 0.01));
  EXPECT_DOUBLE_EQ(ab.series[0].paper[0], 5.73);
  EXPECT_DOUBLE_EQ(ab.series[1].paper[4], 8.00);
  ASSERT_EQ(a.hlines.size(), 1u);
  EXPECT_DOUBLE_EQ(a.hlines[0].y, 10.0);
  // (b) coverage at r_d = 5 and 8 %, mean +- sd over the two runs; the paper's four r_d; passes.
  const Chart& b = figs[1].chart;
  ASSERT_EQ(b.panels.size(), 3u);
  const Lines& cov = std::get<Lines>(b.panels[0].chart);
  EXPECT_EQ(cov.series[0].x, (std::vector<double>{5, 8}));
  EXPECT_NEAR(cov.series[0].y[1], 100 * (0.69 + 0.73) / 2, 1e-9);
  const double sd = 100 * std::sqrt(2 * 0.02 * 0.02);  // sample sd of 0.69, 0.73
  EXPECT_NEAR(cov.series[1].y[1], 100 * 0.71 - sd, 1e-9);
  EXPECT_NEAR(cov.series[2].y[1], 100 * 0.71 + sd, 1e-9);
  ASSERT_TRUE(cov.series.back().paper);
  EXPECT_EQ(cov.series.back().x, (std::vector<double>{5, 8, 9, 10}));
  EXPECT_DOUBLE_EQ(cov.series.back().y[3], 77.02);
  EXPECT_NEAR(std::get<Lines>(b.panels[1].chart).series[0].y[0], 100 * (0.035 + 0.045) / 2, 1e-9);
  const Bars& pass = std::get<Bars>(b.panels[2].chart);
  EXPECT_EQ(pass.series[0].values, (std::vector<double>{100, 50}));
  EXPECT_TRUE(std::isnan(pass.series[0].paper[0]));  // 5 %: not printed
  EXPECT_DOUBLE_EQ(pass.series[0].paper[1], 100);    // 8 %: 5 of 5
  // (c) the full pool then without A0, beside Fig. 2(c)'s 70.88 and 59.27 %.
  const Bars& c = std::get<Bars>(figs[2].chart.panels[0].chart);
  EXPECT_EQ(c.groups, (std::vector<std::string>{"full pool", "without A0"}));
  EXPECT_NEAR(c.series[0].values[1], 59.5, 1e-9);
  EXPECT_EQ(c.series[0].paper, (std::vector<double>{70.88, 59.27}));
  EXPECT_EQ(c.series[1].values, (std::vector<double>{50, 100}));  // 1 of 2, 2 of 2 certified
  EXPECT_EQ(c.series[1].paper, (std::vector<double>{100, 100}));  // 5 of 5 in both
  // (d) the sweep in uJ, the break-even point at the ensemble's energy, the paper's operating
  // point (4 uJ, 2.00 uJ) and break-even (19.19 uJ, 6.45 uJ).
  const Lines& d = std::get<Lines>(figs[3].chart.panels[0].chart);
  EXPECT_NEAR(d.series[0].y[1], 1 + 0.3 * 4, 1e-9);
  EXPECT_NEAR(d.series[1].y[1], 1 + 0.3 * 4 - 0.1, 1e-9);
  const LineSeries& be = d.series[4];
  EXPECT_EQ(be.x, (std::vector<double>{18}));
  EXPECT_NEAR(be.y[0], 6.45, 1e-12);
  ASSERT_TRUE(d.series.back().paper);
  EXPECT_EQ(d.series.back().x, (std::vector<double>{4, 19.19}));
  EXPECT_EQ(d.series.back().y, (std::vector<double>{2.00, 6.45}));

  // Without the paper: no markers, no diamonds in the captions; without a sweep: no (d).
  select::StudyResult no_sweep = s;
  no_sweep.fallback.clear();
  const std::vector<StudyFigure> plain = race_study_charts(no_sweep, info, nullptr, "NOTE.");
  ASSERT_EQ(plain.size(), 3u);
  EXPECT_EQ(std::get<Bars>(plain[0].chart.panels[0].chart).groups.size(), 2u);
  EXPECT_TRUE(std::get<Bars>(plain[0].chart.panels[0].chart).series[0].paper.empty());
  EXPECT_EQ(plain[1].figure.caption.find("Diamonds"), std::string::npos);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(RaceStudyCharts, StudyFiguresAreDrawnInTheSharedStyle) {
  const fs::path dir =
      fs::temp_directory_path() / ("hetcim_study_figs_" + std::to_string(::getpid()));
  RaceStudyInfo info;
  info.provenance = {{"data", "fashion-mnist, held-out images"}};
  std::vector<Figure> figs;
  {
    OutputSet out;
    figs = write_race_study_figures(out, two_run_study(), info, &seed002_paper(), dir.string());
    out.commit();
  }
  ASSERT_EQ(figs.size(), 4u);
  EXPECT_EQ(figs[0].name, "fig2a_certificates");
  EXPECT_EQ(figs[3].name, "fig2d_fallback");
  for (const Figure& f : figs)
    for (const char* ext : {".svg", ".pdf", ".png"})
      EXPECT_TRUE(fs::exists(dir / (f.name + ext))) << f.name << ext;
  const std::string png = slurp(dir / "fig2a_certificates.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_EQ(static_cast<unsigned char>(png[18]) * 256 + static_cast<unsigned char>(png[19]),
            1500);  // 5.0 in x 300 dpi
  const std::string svg = slurp(dir / "fig2a_certificates.svg");
  for (const char* text :
       {"target r = 10 %", "paper (published)", "empirical risk on C (ours)",
        "selective risk on C (%)", ">5.7<", ">7.1<", "Data: this hetcim analog study"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  const std::string d = slurp(dir / "fig2d_fallback.svg");
  for (const char* text : {"fallback cost per deferred query F (uJ)", "energy per query (uJ)",
                           "paper: operating point and break-even", "Energies"})
    EXPECT_NE(d.find(text), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(FigureStyleRefLines, AreDrawnAcrossThePanelAndWidenTheYRange) {
  Chart c;
  Bars b;
  b.groups = {"x"};
  b.series = {{"ours", {2.0}, {}}};
  c.panels.push_back({"", "", "risk (%)", kNoValue, kNoValue, b, {{"target", 10.0}}});
  const std::string body = chart_body(c, 3.5, 2.5);
  EXPECT_NE(body.find("from graph 0, first 10 to graph 1, first 10 nohead"), std::string::npos)
      << body;
  EXPECT_NE(body.find("'target' at screen"), std::string::npos);
  // The bars' range would end at 2 x 1.3; the line at 10 widens it to 10 x 1.3.
  EXPECT_NE(body.find("set yrange [0:13]"), std::string::npos);
  Chart g;
  Gantt gantt;
  gantt.lanes = {"host"};
  g.panels.push_back({"", "", "", kNoValue, kNoValue, gantt, {{"target", 1.0}}});
  EXPECT_THROW((void)chart_body(g, 3.5, 2.5), InternalError);
}

}  // namespace
}  // namespace hetcim::report
