#include "report/race_study.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>

#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "util/shipped_data.h"

namespace hetcim::report {
namespace {

using select::MeanSd;
using select::RunFigures;
using select::Variant;

std::string fmt(const char* f, double v) {
  if (std::isnan(v)) return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string pct(double v) {
  return fmt("%.2f", 100.0 * v);
}
std::string pm(const MeanSd& m, double scale = 100.0) {
  if (m.n == 0) return "n/a";
  return fmt("%.2f", scale * m.mean) + " +- " + fmt("%.2f", scale * m.sd);
}

std::string selected_counts(const Variant& v) {
  std::string out;
  for (const auto& [name, n] : v.selected_counts)
    out += (out.empty() ? "" : ", ") + name + " " + std::to_string(n) + "/" +
           std::to_string(v.runs.size());
  return out.empty() ? "none" : out;
}

// Rows of a table: header and cells; rendered as aligned text or HTML.
struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string note;
};

std::string text_of(const Table& t) {
  std::vector<size_t> w(t.header.size(), 0);
  auto widen = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  };
  widen(t.header);
  for (const auto& r : t.rows) widen(r);
  std::string out = t.title + "\n";
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size(); ++i) {
      out += i == 0 ? r[i] + std::string(w[i] - r[i].size(), ' ')
                    : "  " + std::string(w[i] - r[i].size(), ' ') + r[i];
    }
    out += "\n";
  };
  line(t.header);
  for (const auto& r : t.rows) line(r);
  if (!t.note.empty()) out += "(" + t.note + ")\n";
  return out + "\n";
}

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else
      o += c;
  }
  return o;
}

std::string html_of(const Table& t) {
  std::string h = "<h2>" + escape(t.title) + "</h2>\n<table><tr>";
  for (const auto& c : t.header) h += "<th>" + escape(c) + "</th>";
  h += "</tr>\n";
  for (const auto& r : t.rows) {
    h += "<tr>";
    for (const auto& c : r) h += "<td>" + escape(c) + "</td>";
    h += "</tr>\n";
  }
  h += "</table>\n";
  if (!t.note.empty()) h += "<p class=\"note\">" + escape(t.note) + "</p>\n";
  return h;
}

std::vector<Table> tables_of(const select::StudyResult& s) {
  std::vector<Table> ts;
  Table t2{"Table II analogue: per run and mean +- sd (%)",
           {"run", "selected", "certified", "cert. cov.", "cert. risk", "95% upper", "test cov.",
            "test risk", "hybrid acc.", "digital acc.", "forced acc.", "ensemble acc."},
           {},
           "cert.: on the certificate split C; test: on the test split; forced: the selected "
           "chip answering every query; ensemble: all chips always on, mean corrected logits"};
  for (size_t i = 0; i < s.base.runs.size(); ++i) {
    const RunFigures& f = s.base.runs[i];
    t2.rows.push_back({std::to_string(i + 1), f.selected.empty() ? "none" : f.selected,
                       f.certified ? "yes" : "no", pct(f.certified_coverage), pct(f.certified_risk),
                       pct(f.upper_bound), pct(f.test_coverage), pct(f.test_risk),
                       pct(f.hybrid_accuracy), pct(f.digital_accuracy), pct(f.forced_accuracy),
                       pct(f.ensemble_accuracy)});
  }
  const Variant& b = s.base;
  t2.rows.push_back(
      {"mean +- sd", selected_counts(b),
       std::to_string(b.passes) + "/" + std::to_string(b.runs.size()),
       pm(b.over(&RunFigures::certified_coverage)), pm(b.over(&RunFigures::certified_risk)),
       pm(b.over(&RunFigures::upper_bound)), pm(b.over(&RunFigures::test_coverage)),
       pm(b.over(&RunFigures::test_risk)), pm(b.over(&RunFigures::hybrid_accuracy)),
       pm(b.over(&RunFigures::digital_accuracy)), pm(b.over(&RunFigures::forced_accuracy)),
       pm(b.over(&RunFigures::ensemble_accuracy))});
  ts.push_back(t2);

  Table e{"Energy per query (modelled: RACE-AIMC's component energy model), mean +- sd",
          {"figure", "at test coverage (paper's definition)", "at certificate coverage"},
          {},
          "uJ, except the reductions (% below the always-on ensemble)"};
  e.rows.push_back({"selected activation", pm(b.over(&RunFigures::selected_activation), 1e6),
                    pm(b.over(&RunFigures::selected_activation), 1e6)});
  e.rows.push_back({"always-on ensemble", pm(b.over(&RunFigures::ensemble_energy), 1e6),
                    pm(b.over(&RunFigures::ensemble_energy), 1e6)});
  e.rows.push_back({"selective system", pm(b.over(&RunFigures::selective_energy), 1e6),
                    pm(b.over(&RunFigures::selective_energy_certificate), 1e6)});
  e.rows.push_back({"reduction vs ensemble (%)", pm(b.over(&RunFigures::reduction)),
                    pm(b.over(&RunFigures::reduction_certificate))});
  e.rows.push_back({"break-even fallback", pm(b.over(&RunFigures::break_even), 1e6),
                    pm(b.over(&RunFigures::break_even_certificate), 1e6)});
  ts.push_back(e);

  auto ablation = [](const std::string& title, const std::vector<Variant>& vs,
                     const std::string& note) {
    Table t{title,
            {"setting", "passes", "selected", "cert. cov.", "95% upper", "test cov.", "test risk",
             "hybrid acc."},
            {},
            note};
    for (const Variant& v : vs)
      t.rows.push_back({v.label, std::to_string(v.passes) + "/" + std::to_string(v.runs.size()),
                        selected_counts(v), pm(v.over(&RunFigures::certified_coverage)),
                        pm(v.over(&RunFigures::upper_bound)),
                        pm(v.over(&RunFigures::test_coverage)), pm(v.over(&RunFigures::test_risk)),
                        pm(v.over(&RunFigures::hybrid_accuracy))});
    return t;
  };
  ts.push_back(ablation("Table III analogue: confidence-score replay (%, mean +- sd)", s.scores,
                        "the same logits and splits, only the score changes"));
  ts.push_back(ablation("Design-risk sweep (Fig. 2b, %, mean +- sd)", s.design_risk,
                        "threshold fitted at r_d; certificate at the deployment target r"));
  std::vector<Variant> avail = {s.base};
  avail[0].label = "full pool";
  avail.insert(avail.end(), s.availability.begin(), s.availability.end());
  ts.push_back(ablation("Availability (Fig. 2c, %, mean +- sd)", avail,
                        "the first units of the pool made unavailable"));
  ts.push_back(ablation("Bias correction, eq. (6) (%, mean +- sd)", s.bias, ""));
  Table f{"Fallback-cost sweep (Fig. 2d; modelled energy, uJ, mean +- sd)",
          {"fallback F", "selective system", "always-on ensemble"},
          {},
          "break-even F: " + pm(s.break_even, 1e6) + " uJ"};
  for (const auto& p : s.fallback)
    f.rows.push_back(
        {fmt("%.2f", p.fallback * 1e6), pm(p.selective, 1e6), fmt("%.3f", p.ensemble * 1e6)});
  ts.push_back(f);
  return ts;
}

}  // namespace

std::string race_study_text(const select::StudyResult& s, const results::RaceStudyInfo& info) {
  std::string out;
  for (const auto& [k, v] : info.provenance) out += k + ": " + v + "\n";
  out += "\n";
  for (const Table& t : tables_of(s)) out += text_of(t);
  return out;
}

double design_risk_percent(const std::string& label) {
  const auto eq = label.find('=');
  if (eq == std::string::npos) return kNoValue;
  try {
    return 100 * std::stod(label.substr(eq + 1));
  } catch (const std::exception&) {
    return kNoValue;
  }
}

namespace {

double paper_or_nan(const formats::PaperData* paper, const std::string& table,
                    const std::string& row, const std::string& col) {
  if (!paper) return kNoValue;
  const formats::PaperTable* t = paper->table(table);
  const formats::PaperValue* v = t ? t->find(row, col) : nullptr;
  return v && v->present ? v->value : kNoValue;
}

double paper_scalar(const formats::PaperData* paper, const std::string& id) {
  const formats::PaperScalar* v = paper ? paper->scalar(id) : nullptr;
  return v ? v->value : kNoValue;
}

double mean_or_nan(const MeanSd& m, double scale) {
  return m.n > 0 ? scale * m.mean : kNoValue;
}

// The full pool followed by the availability variants, labelled as in Fig. 2(c).
std::vector<Variant> availability_variants(const select::StudyResult& s) {
  std::vector<Variant> avail = {s.base};
  avail[0].label = "full pool";
  avail.insert(avail.end(), s.availability.begin(), s.availability.end());
  return avail;
}

}  // namespace

// The most runs a paper's Table II may list ("run 1" .. "run N"): `analog study --models`' bound.
constexpr int64_t kMaxRunRows = 1000;

std::vector<StudyFigure> race_study_charts(const select::StudyResult& s,
                                           const results::RaceStudyInfo& info,
                                           const formats::PaperData* paper,
                                           const std::string& data_note) {
  std::vector<StudyFigure> figs;
  const size_t n = s.base.runs.size();
  const std::string diamonds =
      paper ? " Diamonds: the paper's values (CIFAR-10, " + cited_data_path(paper->origin) + ")."
            : std::string();
  const std::string target = "target r = " + fmt("%g", 100 * info.risk_target) + " %";
  auto passing = [](const Variant& v) {
    return v.runs.empty() ? kNoValue : 100.0 * v.passes / static_cast<double>(v.runs.size());
  };
  {  // (a) per-run certificates: ours for every run, the paper's five rows beside them.
    size_t shown = n;
    if (const formats::PaperTable* t = paper ? paper->table("table2") : nullptr)
      for (const auto& [row, values] : t->rows)
        if (row.rfind("run ", 0) == 0) {
          // Strictly a run number within the study's own bound (1000 models): a tampered row
          // "run 3000000" (or one atoi would overflow) is an error, not a million-bar chart.
          const std::optional<int64_t> k = parse_integer(std::string_view(row).substr(4));
          if (!k || *k < 1 || *k > kMaxRunRows)
            throw user_error(paper->origin, ": tables.table2.rows.'", row,
                             "': expected 'run N' with N from 1 to ", kMaxRunRows);
          shown = std::max(shown, static_cast<size_t>(*k));
        }
    Bars b;
    b.label_format = "%.1f";
    BarSeries risk{"empirical risk on C (ours)", {}, {}};
    BarSeries bound{"one-sided 95% bound (ours)", {}, {}};
    for (size_t i = 0; i < shown; ++i) {
      const std::string name = "run " + std::to_string(i + 1);
      b.groups.push_back(name);
      risk.values.push_back(i < n ? 100 * s.base.runs[i].certified_risk : kNoValue);
      bound.values.push_back(i < n ? 100 * s.base.runs[i].upper_bound : kNoValue);
      if (paper) {
        risk.paper.push_back(paper_or_nan(paper, "table2", name, "cert_risk"));
        bound.paper.push_back(paper_or_nan(paper, "table2", name, "upper_95"));
      }
    }
    b.series = {risk, bound};
    Chart c;
    c.title = "Per-run certificates";
    c.footnote = data_note;
    c.panels.push_back(
        {"", "run", "selective risk on C (%)", 0, kNoValue, b, {{target, 100 * info.risk_target}}});
    figs.push_back({{"fig2a", c.title,
                     "Fig. 2(a) analogue (RACE-AIMC): per run, the empirical selective risk on the "
                     "certificate split C and its one-sided Clopper-Pearson upper bound; dashed: "
                     "the deployment target r (a run is certified when its bound is below it)." +
                         diamonds + " " + data_note,
                     5.0, 3.2},
                    c});
  }
  {  // (b) design-risk sweep
    Lines cov, risk;
    LineSeries oc{"ours (mean over runs)", {}, {}, false, true, false, 0};
    LineSeries ocl{"ours, mean +- sd", {}, {}, true, false, false, 0};
    LineSeries och = ocl;
    LineSeries pc{"paper (published)", {}, {}, false, true, true};
    LineSeries orisk = oc, orl = ocl, orh = ocl;
    Bars passes;
    passes.label_format = "%.0f";
    BarSeries pass{"certificates passing (ours, % of runs)", {}, {}};
    for (const Variant& v : s.design_risk) {
      const double rd = design_risk_percent(v.label);
      const MeanSd c = v.over(&RunFigures::test_coverage), r = v.over(&RunFigures::test_risk);
      oc.x.push_back(rd), oc.y.push_back(mean_or_nan(c, 100));
      ocl.x.push_back(rd), ocl.y.push_back(c.n > 1 ? 100 * (c.mean - c.sd) : kNoValue);
      och.x.push_back(rd), och.y.push_back(c.n > 1 ? 100 * (c.mean + c.sd) : kNoValue);
      orisk.x.push_back(rd), orisk.y.push_back(mean_or_nan(r, 100));
      orl.x.push_back(rd), orl.y.push_back(r.n > 1 ? 100 * (r.mean - r.sd) : kNoValue);
      orh.x.push_back(rd), orh.y.push_back(r.n > 1 ? 100 * (r.mean + r.sd) : kNoValue);
      passes.groups.push_back(fmt("%g", rd));
      pass.values.push_back(passing(v));
      if (paper) {
        const std::string row = fmt("%g", rd) + "%";
        const double pp = paper_or_nan(paper, "fig2b", row, "certificates_passing_of_5");
        pass.paper.push_back(std::isfinite(pp) ? 100 * pp / 5 : kNoValue);
      }
    }
    if (const formats::PaperTable* t = paper ? paper->table("fig2b") : nullptr)
      for (const auto& [row, values] : t->rows) {  // rows "5%", "8%", ...: every published r_d
        const double rd = design_risk_percent("=" + row.substr(0, row.find('%'))) / 100;
        const double pv = paper_or_nan(paper, "fig2b", row, "test_coverage_percent");
        if (std::isfinite(rd) && std::isfinite(pv)) pc.x.push_back(rd), pc.y.push_back(pv);
      }
    och.name = ocl.name;
    orh.name = orl.name;
    cov.series = {oc, ocl, och};
    if (!pc.x.empty()) cov.series.push_back(pc);
    risk.series = {orisk, orl, orh};
    passes.series = {pass};
    Chart c;
    c.title = "Design-risk sweep";
    c.footnote = data_note;
    c.panels.push_back(
        {"(b) coverage", "design risk r_d (%)", "mean test coverage (%)", kNoValue, kNoValue, cov});
    c.panels.push_back({"(b) risk",
                        "design risk r_d (%)",
                        "mean test selective risk (%)",
                        0,
                        kNoValue,
                        risk,
                        {{target, 100 * info.risk_target}}});
    c.panels.push_back(
        {"(b) certificates", "design risk r_d (%)", "passing (% of runs)", 0, 110, passes});
    figs.push_back(
        {{"fig2b", c.title,
          "Fig. 2(b) analogue (RACE-AIMC): as the design risk r_d of the threshold fit is "
          "swept, the mean test coverage and test selective risk (dashed: mean +- sd "
          "over runs) and the share of runs whose certificate passes at the deployment "
          "target r." +
              diamonds + " " + data_note,
          7.16, 3.2},
         c});
  }
  {  // (c) availability
    const std::vector<Variant> avail = availability_variants(s);
    Bars b;  // one panel: the four settings need the full width for their tick labels
    b.label_format = "%.1f";
    BarSeries cs{"mean certified coverage (ours)", {}, {}};
    BarSeries ps{"certificates passing (ours, % of runs)", {}, {}};
    for (const Variant& v : avail) {
      b.groups.push_back(v.label.rfind("without ", 0) == 0 ? v.label : std::string("full pool"));
      cs.values.push_back(mean_or_nan(v.over(&RunFigures::certified_coverage), 100));
      ps.values.push_back(passing(v));
      if (paper) {
        cs.paper.push_back(paper_or_nan(paper, "fig2c", v.label, "cert_coverage_percent"));
        const double pp = paper_or_nan(paper, "fig2c", v.label, "certificates_passing_of_5");
        ps.paper.push_back(std::isfinite(pp) ? 100 * pp / 5 : kNoValue);
      }
    }
    b.series = {cs, ps};
    Chart c;
    c.title = "Availability";
    c.footnote = data_note;
    c.panels.push_back(
        {"", "units of the pool available", "coverage, runs passing (%)", 0, kNoValue, b});
    figs.push_back(
        {{"fig2c", c.title,
          "Fig. 2(c) analogue (RACE-AIMC): mean certified coverage and the share of runs "
          "whose certificate passes when the mildest units of the pool are unavailable." +
              diamonds + " " + data_note,
          7.16, 3.2},
         c});
  }
  if (!s.fallback.empty()) {  // (d) energy against the fallback cost
    LineSeries sel{"selective (ours, mean)", {}, {}, false, false, false, 0};
    LineSeries lo{"selective, mean +- sd", {}, {}, true, false, false, 0};
    LineSeries hi = lo;
    LineSeries ens{"always-on ensemble (ours)", {}, {}, true, false, false, 1};
    for (const auto& p : s.fallback) {
      const double x = p.fallback * 1e6;
      sel.x.push_back(x), sel.y.push_back(mean_or_nan(p.selective, 1e6));
      lo.x.push_back(x),
          lo.y.push_back(p.selective.n > 1 ? (p.selective.mean - p.selective.sd) * 1e6 : kNoValue);
      hi.x.push_back(x),
          hi.y.push_back(p.selective.n > 1 ? (p.selective.mean + p.selective.sd) * 1e6 : kNoValue);
      ens.x.push_back(x), ens.y.push_back(p.ensemble * 1e6);
    }
    Lines l;
    l.series = {sel, lo, hi, ens};
    if (s.break_even.n > 0 && !s.fallback.empty())
      l.series.push_back({"break-even F (ours)",
                          {s.break_even.mean * 1e6},
                          {s.fallback.front().ensemble * 1e6},
                          false,
                          true,
                          false,
                          2});
    const double pf = paper_scalar(paper, "e_fallback"), pe = paper_scalar(paper, "e_selective");
    const double pb = paper_scalar(paper, "break_even_fallback"),
                 pa = paper_scalar(paper, "e_always_on");
    if (std::isfinite(pf) && std::isfinite(pe) && std::isfinite(pb) && std::isfinite(pa))
      l.series.push_back(
          {"paper: operating point and break-even", {pf, pb}, {pe, pa}, false, true, true});
    Chart c;
    c.title = "Energy per query vs fallback cost";
    c.footnote = data_note + " Energies modelled (RACE-AIMC's component model).";
    c.panels.push_back(
        {"", "fallback cost per deferred query F (uJ)", "energy per query (uJ)", 0, kNoValue, l});
    figs.push_back(
        {{"fig2d", c.title,
          "Fig. 2(d) analogue (RACE-AIMC), modelled energy: the selective system per query (mean "
          "and "
          "+- sd over runs, each at its own test coverage, the paper's definition) and the "
          "always-on ensemble against the fallback cost F; the point: our mean break-even F "
          "(operating point F = " +
              fmt("%g", info.fallback * 1e6) + " uJ)." + diamonds + " " + data_note,
          7.16, 3.2},
         c});
  }
  return figs;
}

std::vector<Figure> write_race_study_figures(OutputSet& out, const select::StudyResult& s,
                                             const results::RaceStudyInfo& info,
                                             const formats::PaperData* paper,
                                             const std::string& dir,
                                             const FigureOptions& fig_options) {
  out.make_directory(dir);
  std::string data;
  for (const auto& [k, v] : info.provenance)
    if (k == "data") data = v;
  const std::string note =
      "Data: this hetcim analog study (" + (data.empty() ? std::string("see study.json") : data) +
      "; " + std::to_string(s.base.runs.size()) + " run(s); provenance in report.html).";
  const std::pair<const char*, const char*> names[] = {{"fig2a", "fig2a_certificates"},
                                                       {"fig2b", "fig2b_design_risk"},
                                                       {"fig2c", "fig2c_availability"},
                                                       {"fig2d", "fig2d_fallback"}};
  std::vector<Figure> figs;
  for (StudyFigure& f : race_study_charts(s, info, paper, note)) {
    for (const auto& [from, to] : names)
      if (f.figure.name == from) f.figure.name = to;
    plot_chart(out, dir, f.figure, f.chart, fig_options);
    figs.push_back(f.figure);
  }
  return figs;
}

void write_race_study_html(OutputSet& out, const select::StudyResult& s,
                           const results::RaceStudyInfo& info, const std::vector<Figure>& figures,
                           const std::string& dir) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hetcim: RACE-AIMC study"
      "</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
      "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;"
      "text-align:right}figure{margin:24px 0}.note{font-size:12px;color:#555}</style></head>"
      "<body>\n<h1>Certified selective inference over a pool of analog chips (RACE-AIMC)</h1>\n"
      "<table>";
  for (const auto& [k, v] : info.provenance)
    h += "<tr><th>" + escape(k) + "</th><td style=\"text-align:left\">" + escape(v) + "</td></tr>";
  h += "</table>\n";
  for (const Table& t : tables_of(s)) h += html_of(t);
  for (const Figure& f : figures) {
    std::ifstream in(out.staged_file(join_path(dir, f.name + ".svg")));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string svg = ss.str();
    if (auto pos = svg.find("<svg"); pos != std::string::npos) svg = svg.substr(pos);
    h += "<figure id=\"" + f.name + "\">" + svg + "<figcaption>" + escape(f.caption) +
         "</figcaption></figure>\n";
  }
  h += "</body></html>\n";
  out.add(join_path(dir, "report.html"), h);
}

}  // namespace hetcim::report
