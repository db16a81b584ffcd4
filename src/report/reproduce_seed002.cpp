// `hetcim reproduce seed002`: Table I (the chip profiles) and the energy arithmetic of Sec. V-D of
// Yousuf and Lueker-Boden beside the published values; with a finished study (`hetcim analog
// study`, its study.json) also Table II, Table III and Fig. 2 a-c, ours beside the paper's.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "report/figure_style.h"
#include "report/provenance.h"
#include "report/race_study.h"
#include "report/reproduce.h"
#include "report/reproduce_page.h"
#include "report/seed002_energy.h"
#include "util/files.h"
#include "util/shipped_data.h"

namespace hetcim::report {
namespace {

using select::MeanSd;
using select::RunFigures;
using select::Variant;

// Why a study's figure differs from the paper's: what the study is (formats::StudyRecords' label,
// computed from the records' options against the paper's protocol) and the paper's setting.
std::string study_reason(const std::string& label) {
  return "ours: " + label + ", hetcim xbar; paper: CIFAR-10, 5 models, A0-A5 (XBTorch)";
}

std::string pct_pm(const MeanSd& m) {
  if (m.n == 0) return "n/a";
  return fixed(100 * m.mean, 2) + " &plusmn; " + fixed(100 * m.sd, 2);
}

const formats::PaperValue* paper_cell(const formats::PaperTable& t, const std::string& row,
                                      const std::string& col) {
  const formats::PaperValue* v = t.find(row, col);
  return v && v->present ? v : nullptr;
}

double paper_or_nan(const formats::PaperTable& t, const std::string& row, const std::string& col) {
  const formats::PaperValue* v = paper_cell(t, row, col);
  return v ? v->value : kNoValue;
}

// Table II, Table III and Fig. 2 a-c from a study beside the paper's values.
void study_sections(OutputSet& outputs, const std::string& dir, const results::RaceStudyFile& f,
                    const std::string& label, const formats::PaperData& paper, ReproduceOutput& res,
                    std::string& body, const FigureOptions& fig_options) {
  const select::StudyResult& s = f.study;
  const std::string why = study_reason(label);
  const size_t n = s.base.runs.size();
  const std::string data_note =
      "Data: " + label + "; hetcim analog study records " + cited_data_path(f.origin) + ".";
  // Fig. 2 a-c: the same charts `hetcim analog study` draws, with the paper's values.
  const std::vector<StudyFigure> charts = race_study_charts(s, f.info, &paper, data_note);

  // Table II: per run and mean, paper | ours.
  {
    const formats::PaperTable& t = paper.need_table("table2");
    const char* cols[] = {"cert_coverage", "cert_risk", "upper_95", "test_coverage",
                          "hybrid_accuracy"};
    double RunFigures::*fields[] = {&RunFigures::certified_coverage, &RunFigures::certified_risk,
                                    &RunFigures::upper_bound, &RunFigures::test_coverage,
                                    &RunFigures::hybrid_accuracy};
    std::string rows;
    const size_t shown = std::max<size_t>(n, 5);  // the paper's five runs
    for (size_t i = 0; i < shown; ++i) {
      const std::string name = "run " + std::to_string(i + 1);
      rows += "<tr><td class=\"l\">" + name + "</td>";
      for (size_t c = 0; c < 5; ++c) {
        const formats::PaperValue* v = paper_cell(t, name, cols[c]);
        rows += "<td class=\"paper\">" + (v ? v->text() : std::string()) + "</td><td>" +
                (i < n ? fixed(100 * (s.base.runs[i].*fields[c]), 2) : std::string()) + "</td>";
      }
      rows +=
          "<td class=\"l\">" +
          (i < n ? html_escape(s.base.runs[i].selected.empty() ? "none" : s.base.runs[i].selected)
                 : std::string()) +
          "</td></tr>\n";
    }
    std::vector<Difference> diffs;
    rows += "<tr><td class=\"l\">mean &plusmn; sd</td>";
    for (size_t c = 0; c < 5; ++c) {
      const formats::PaperValue* v = paper_cell(t, "mean", cols[c]);
      const MeanSd m = s.base.over(fields[c]);
      rows += "<td class=\"paper\">" + (v ? v->text() : std::string()) + "</td><td>" + pct_pm(m) +
              "</td>";
      if (v && m.n > 0)
        diffs.push_back({"table2", std::string("mean ") + cols[c] + " (%)", 100 * m.mean, v->text(),
                         v->value, why});
    }
    rows += "<td class=\"l\">" + std::to_string(s.base.passes) + "/" + std::to_string(n) +
            " certified</td></tr>\n";
    body +=
        "<h2>Table II: certified selection, five frozen runs</h2>\n<table class=\"table2\">"
        "<caption>Table II (%): per run and mean, the paper (CIFAR-10) beside hetcim's study: " +
        html_escape(label) + " (" + html_escape(cited_data_path(f.origin)) +
        ")</caption>\n<tr><th class=\"l\" rowspan=\"2\">run</th><th colspan=\"2\">cert. "
        "coverage</th><th colspan=\"2\">cert. risk</th><th colspan=\"2\">95% upper</th><th "
        "colspan=\"2\">test coverage</th><th colspan=\"2\">hybrid accuracy</th><th class=\"l\" "
        "rowspan=\"2\">selected (ours)</th></tr>\n<tr>";
    for (int i = 0; i < 5; ++i) body += "<th class=\"paper\">paper</th><th>ours</th>";
    body += "</tr>\n" + rows + "</table>\n" +
            difference_table_html("Table II: ours vs paper (means)", diffs, 0.05, true);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());

    const StudyFigure& fig = charts.at(0);  // Fig. 2(a): per-run certificates
    plot_chart(outputs, dir, fig.figure, fig.chart, fig_options);
    res.figures.push_back(fig.figure);
    body += figure_html(fig.figure);
  }

  // Table III: the five confidence scores, mean over runs.
  {
    const formats::PaperTable& t = paper.need_table("table3");
    const char* cols[] = {"cert_coverage", "upper_95", "test_coverage", "test_risk"};
    double RunFigures::*fields[] = {&RunFigures::certified_coverage, &RunFigures::upper_bound,
                                    &RunFigures::test_coverage, &RunFigures::test_risk};
    std::vector<Difference> diffs;
    std::string rows;
    for (const Variant& v : s.scores) {
      rows += "<tr><td class=\"l\">" + html_escape(v.label) + "</td>";
      for (size_t c = 0; c < 4; ++c) {
        const formats::PaperValue* pv = paper_cell(t, v.label, cols[c]);
        const MeanSd m = v.over(fields[c]);
        rows += "<td class=\"paper\">" + (pv ? pv->text() : std::string()) + "</td><td>" +
                pct_pm(m) + "</td>";
        if (pv && m.n > 0)
          diffs.push_back({"table3", v.label + ": " + cols[c] + " (%)", 100 * m.mean, pv->text(),
                           pv->value, why});
      }
      rows += "</tr>\n";
    }
    body +=
        "<h2>Table III: confidence-score replay</h2>\n<table class=\"table3\"><caption>Table "
        "III (%, mean over runs): the same logits and splits, only the score changes; ours: " +
        html_escape(label) +
        "</caption>\n"
        "<tr><th class=\"l\" rowspan=\"2\">score</th><th colspan=\"2\">cert. coverage</th><th "
        "colspan=\"2\">95% upper</th><th colspan=\"2\">test coverage</th><th colspan=\"2\">test "
        "risk</th></tr>\n<tr>";
    for (int i = 0; i < 4; ++i) body += "<th class=\"paper\">paper</th><th>ours</th>";
    body += "</tr>\n" + rows + "</table>\n" +
            difference_table_html("Table III: ours vs paper", diffs, 0.05, true);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  // Fig. 2(b): the design-risk sweep.
  {
    const formats::PaperTable& t = paper.need_table("fig2b");
    std::vector<Difference> diffs;
    for (const Variant& v : s.design_risk) {
      const double rd = design_risk_percent(v.label);
      const MeanSd m = v.over(&RunFigures::test_coverage);
      const double passing = 100.0 * v.passes / static_cast<double>(v.runs.size());
      const std::string row = fixed(rd, 0) + "%";
      const double pc = paper_or_nan(t, row, "certificates_passing_of_5");
      if (const formats::PaperValue* pv = paper_cell(t, row, "test_coverage_percent");
          pv && m.n > 0)
        diffs.push_back({"fig2b", "r_d = " + row + ": mean test coverage (%)", 100 * m.mean,
                         pv->text(), pv->value, why});
      if (std::isfinite(pc))
        diffs.push_back({"fig2b", "r_d = " + row + ": certificates passing (% of runs)", passing,
                         fixed(100 * pc / 5, 0), 100 * pc / 5,
                         std::to_string(v.passes) + " of " + std::to_string(v.runs.size()) +
                             " runs (ours) vs " + fixed(pc, 0) + " of 5 (paper); " + why});
    }
    const StudyFigure& fig = charts.at(1);
    plot_chart(outputs, dir, fig.figure, fig.chart, fig_options);
    res.figures.push_back(fig.figure);
    body += "<h2>Fig. 2(b): design-risk sweep</h2>\n" + figure_html(fig.figure) +
            difference_table_html("Fig. 2(b): ours vs paper", diffs, 0.05, true);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  // Fig. 2(c): availability.
  {
    const formats::PaperTable& t = paper.need_table("fig2c");
    std::vector<Variant> avail = {s.base};
    avail[0].label = "full pool";
    avail.insert(avail.end(), s.availability.begin(), s.availability.end());
    std::vector<Difference> diffs;
    for (const Variant& v : avail) {
      const MeanSd m = v.over(&RunFigures::certified_coverage);
      const double passing = 100.0 * v.passes / static_cast<double>(v.runs.size());
      const double pc = paper_or_nan(t, v.label, "cert_coverage_percent");
      const double pp = paper_or_nan(t, v.label, "certificates_passing_of_5");
      if (std::isfinite(pc) && m.n > 0)
        diffs.push_back({"fig2c", v.label + ": mean certified coverage (%)", 100 * m.mean,
                         fixed(pc, 2), pc, why});
      if (std::isfinite(pp))
        diffs.push_back({"fig2c", v.label + ": certificates passing (% of runs)", passing,
                         fixed(100 * pp / 5, 0), 100 * pp / 5,
                         std::to_string(v.passes) + " of " + std::to_string(v.runs.size()) +
                             " runs (ours) vs " + fixed(pp, 0) + " of 5 (paper); " + why});
    }
    const StudyFigure& fig = charts.at(2);
    plot_chart(outputs, dir, fig.figure, fig.chart, fig_options);
    res.figures.push_back(fig.figure);
    body += "<h2>Fig. 2(c): availability</h2>\n" + figure_html(fig.figure) +
            difference_table_html("Fig. 2(c): ours vs paper", diffs, 0.05, true);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }
}

}  // namespace

ReproduceOutput write_seed002_report(OutputSet& outputs, const results::Seed002Run& run,
                                     const formats::PaperData& paper, const Provenance& provenance,
                                     const std::string& out, const FigureOptions& fig_options) {
  paper.require({"table1", "table2", "table3", "fig2b", "fig2c"},
                {"activation_reduction", "break_even_fallback", "e_always_on",
                 "e_selected_activation", "e_selective", "energy_reduction"});
  const std::string dir = out + "/figures";
  outputs.make_directory(dir);
  ReproduceOutput res;
  std::string body;

  // Table I: paper | ours (the simulator's input file) per field.
  {
    const formats::PaperTable& t = paper.need_table("table1");
    std::vector<Difference> diffs;
    std::string rows;
    const char* cols[] = {"read_noise_uS", "write_noise_uS", "stuck_percent", "energy_uJ",
                          "latency_ms"};
    for (const results::Seed002Chip& c : run.chips) {
      if (!t.find(c.name, cols[0])) continue;
      const double ours[] = {c.read_noise * 1e6, c.write_noise * 1e6, c.stuck_fraction * 100,
                             c.energy * 1e6, c.latency * 1e3};
      rows += "<tr><td class=\"l\">" + html_escape(c.name) + "</td>";
      for (size_t i = 0; i < 5; ++i) {
        const formats::PaperValue* v = t.find(c.name, cols[i]);
        rows += "<td class=\"paper\">" + (v ? v->text() : std::string()) + "</td><td>" +
                fixed(ours[i], i == 2   ? 3
                               : i == 4 ? 3
                                        : 1) +
                "</td>";
        if (v && v->present)
          diffs.push_back(
              {"table1", c.name + ": " + cols[i], ours[i], v->text(), v->value,
               std::fabs(ours[i] - v->value) <= 1e-9 * std::max(1.0, v->value)
                   ? "equal: " + cited_data_path(run.chips_origin) + " holds the paper's profile"
                   : cited_data_path(run.chips_origin) + " differs from the paper's Table I"});
      }
      rows += "</tr>\n";
    }
    body +=
        "<h2>Table I: accelerator profiles</h2>\n<table class=\"table1\"><caption>Table I: "
        "the six 8-bit AIMC profiles, paper beside the profiles hetcim simulates (" +
        html_escape(cited_data_path(run.chips_origin)) +
        ")</caption>\n<tr><th class=\"l\" rowspan=\"2\">profile</th><th colspan=\"2\">read "
        "noise (uS)</th><th colspan=\"2\">write noise (uS)</th><th colspan=\"2\">stuck "
        "(%)</th><th colspan=\"2\">E (uJ)</th><th colspan=\"2\">L (ms)</th></tr>\n<tr>";
    for (int i = 0; i < 5; ++i) body += "<th class=\"paper\">paper</th><th>ours</th>";
    body += "</tr>\n" + rows + "</table>\n" +
            difference_table_html("Table I: ours vs paper", diffs, 1e-9);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  // Energy per query (Sec. V-D): per run at the test coverage and then the mean, as the paper;
  // every reason computed from the numbers (report/seed002_energy.h).
  {
    auto uj = [](double j) { return j * 1e6; };
    Seed002EnergyInput in;
    in.activation = run.activation;
    in.ensemble = run.ensemble;
    in.fallback = run.fallback;
    const std::string& selected = paper.need_table("table1").rows.front().first;  // A0
    for (const results::Seed002Chip& c : run.chips)
      if (c.name == selected) in.accelerator = c.energy;
    in.communication = paper.need_value("e_communication") * 1e-6;
    in.controller = paper.need_value("e_controller") * 1e-6;
    in.per_class = paper.need_value("e_per_fused_class") * 1e-6;
    in.classes = static_cast<int>(paper.need_value("classes"));
    if (run.study) {  // each run of the study at its own test coverage, as the paper
      size_t picked = 0;
      for (const select::RunFigures& f : run.study->study.base.runs) {
        in.test_coverage.push_back(f.test_coverage);
        in.certified_coverage.push_back(f.certified_coverage);
        picked += f.selected == selected;
      }
      in.coverage_source = "the " + std::to_string(in.test_coverage.size()) +
                           " runs of the study (" + run.study_label + "; " + selected +
                           "'s activation as the paper's, selected in " + std::to_string(picked) +
                           " of them)";
    } else {
      coverages_from_table2(paper, in);
    }
    std::vector<Difference> diffs = seed002_energy_rows(in, paper);
    double phi = 0;
    for (double p : in.test_coverage) phi += p / static_cast<double>(in.test_coverage.size());
    Chart c;
    c.title = "Energy per query vs fallback cost";
    c.footnote = "Modelled: select/energy.h, Table I's energies, coverage " + fixed(100 * phi, 2) +
                 " % (the mean test coverage of " + in.coverage_source +
                 (run.study ? std::string(")") : std::string("; not a hetcim study)")) +
                 ". Diamonds: paper.";
    Lines l;
    LineSeries sel{"selective (A0 + fallback)", {}, {}, false, false};
    LineSeries ens{"always-on ensemble", {}, {}, true, false};
    for (size_t i = 0; i < run.sweep_fallback.size(); ++i) {
      sel.x.push_back(uj(run.sweep_fallback[i]));
      sel.y.push_back(uj(run.activation + (1 - phi) * run.sweep_fallback[i]));
      ens.x.push_back(uj(run.sweep_fallback[i]));
      ens.y.push_back(uj(run.ensemble));
    }
    l.series = {sel,
                ens,
                {"paper: operating point and break-even",
                 {uj(run.fallback), paper.need_value("break_even_fallback")},
                 {paper.need_value("e_selective"), paper.need_value("e_always_on")},
                 false,
                 true,
                 true}};
    c.panels.push_back(
        {"", "fallback cost per deferred query (uJ)", "energy per query (uJ)", 0, kNoValue, l});
    const Figure f{
        "fig2d", c.title,
        "Fig. 2(d) analogue (RACE-AIMC): modelled energy per query of the selective "
        "system and of the always-on ensemble as the fallback cost grows; diamonds: the "
        "paper's operating point (2.00 uJ at 4 uJ) and mean break-even (19.19 uJ). " +
            (run.study ? "Modelled at the test coverage of each run of the study: " +
                             run.study_label + "."
                       : std::string("Modelled with the paper's mean test coverage, typed from "
                                     "Table II; the study-based figures (Fig. 2 a-c, Table II, "
                                     "III) come with `hetcim analog study`.")),
        5.0, 3.4};
    plot_chart(outputs, dir, f, c, fig_options);
    res.figures.push_back(f);
    body += "<h2>Energy per query (Sec. V-D)</h2>\n" + figure_html(f) +
            difference_table_html("Energy: ours vs paper", diffs, 0.01, true);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  std::string intro =
      "<p>RACE-AIMC: Table I (the chip profiles hetcim simulates) and the energy arithmetic of "
      "Sec. V-D beside the published values";
  if (run.study) {
    intro += "; Table II, Table III, Fig. 2 a-c and the energy rows from " +
             std::string(run.study_shipped ? "the shipped study record " : "the study ") +
             html_escape(cited_data_path(run.study->origin)) + ": <strong>" +
             html_escape(run.study_label) +
             "</strong> (its provenance is in the block at the end of the page).</p>\n";
    study_sections(outputs, dir, *run.study, run.study_label, paper, res, body, fig_options);
  } else {
    intro +=
        ". Table II, Table III and Fig. 2 a-c need a study over trained networks and noisy chips, "
        "which this run was not given. Produce one (it trains and simulates; hours at the "
        "paper's sizes) and pass its directory:</p>\n<pre>" +
        html_escape(run.study_command) + "</pre>\n";
  }
  stage_reproduce_report(outputs, out, paper,
                         run.study
                             ? "RACE-AIMC (Yousuf, Lueker-Boden 2026) reproduced"
                             : "RACE-AIMC (Yousuf, Lueker-Boden 2026) reproduced: Table I and "
                               "energy",
                         intro, body, provenance, res);
  return res;
}

}  // namespace hetcim::report
