#include "report/race_study.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "util/files.h"

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

  Table e{"Energy per query (modelled: seed 002's component energy model), mean +- sd",
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

std::string g(double v) {
  return gnuplot_number(v);
}

}  // namespace

std::string race_study_text(const select::StudyResult& s, const RaceStudyInfo& info) {
  std::string out;
  for (const auto& [k, v] : info.provenance) out += k + ": " + v + "\n";
  out += "\n";
  for (const Table& t : tables_of(s)) out += text_of(t);
  return out;
}

std::vector<Figure> write_race_study_figures(OutputSet& out, const select::StudyResult& s,
                                             const RaceStudyInfo& info, const std::string& dir) {
  out.make_directory(dir);
  std::vector<Figure> figs;
  const std::string runs = std::to_string(s.base.runs.size());
  {  // (a) per-run certificates
    Figure f{"fig2a_certificates", "Per-run certificates",
             "Fig. 2a analogue: per run, the certified empirical risk on C and its one-sided "
             "Clopper-Pearson upper bound; the line is the deployment target r.",
             7.16, 3.6};
    std::string d = "$d << EOD\n";
    for (size_t i = 0; i < s.base.runs.size(); ++i)
      d += std::to_string(i + 1) + " " + g(100 * s.base.runs[i].certified_risk) + " " +
           g(100 * s.base.runs[i].upper_bound) + "\n";
    d += "EOD\n";
    plot(out, dir, f,
         d + "set xlabel 'run'\nset ylabel 'selective risk (%)'\nset grid\nset xrange [0.5:" +
             runs + ".5]\nset xtics 1\nset yrange [0:*]\n" +
             "plot $d using 1:3 with points pt 7 ps 1.5 title 'one-sided 95% bound', "
             "$d using 1:2 with points pt 5 title 'empirical risk on C', " +
             g(100 * info.risk_target) + " with lines dt 2 lc rgb 'red' title 'target r'\n");
    figs.push_back(f);
  }
  {  // (b) design-risk sweep
    Figure f{"fig2b_design_risk", "Design-risk sweep",
             "Fig. 2b analogue: mean test coverage (+- sd over runs) against mean test risk as "
             "the design risk r_d is swept; labels give r_d and how many certificates pass.",
             7.16, 3.6};
    std::string d = "$d << EOD\n";
    for (const Variant& v : s.design_risk) {
      const MeanSd c = v.over(&RunFigures::test_coverage), r = v.over(&RunFigures::test_risk);
      d += g(100 * r.mean) + " " + g(100 * c.mean) + " " + g(100 * c.sd) + " \"" +
           v.label.substr(6) + " (" + std::to_string(v.passes) + "/" + runs + ")\"\n";
    }
    d += "EOD\n";
    plot(out, dir, f,
         d + "set xlabel 'mean test selective risk (%)'\nset ylabel 'mean test coverage (%)'\n"
             "set grid\nset offsets 0.3,0.6,3,3\n"
             "plot $d using 1:2:3 with yerrorbars pt 7 title 'mean +- sd', "
             "$d using 1:2:4 with labels offset 0,1.2 notitle\n");
    figs.push_back(f);
  }
  {  // (c) availability
    Figure f{"fig2c_availability", "Availability",
             "Fig. 2c analogue: mean certified coverage (+- sd) as the first units of the pool "
             "become unavailable; labels give the certificates passing.",
             7.16, 3.6};
    std::vector<Variant> avail = {s.base};
    avail[0].label = "full pool";
    avail.insert(avail.end(), s.availability.begin(), s.availability.end());
    std::string d = "$d << EOD\n";
    for (size_t i = 0; i < avail.size(); ++i) {
      const MeanSd c = avail[i].over(&RunFigures::certified_coverage);
      d += std::to_string(i) + " " + g(100 * c.mean) + " " + g(100 * c.sd) + " \"" +
           avail[i].label + "\" \"" + std::to_string(avail[i].passes) + "/" + runs + "\"\n";
    }
    d += "EOD\n";
    plot(out, dir, f,
         d +
             "set ylabel 'certified coverage (%)'\nset grid ytics\nset yrange [0:*]\n"
             "set xrange [-0.5:" +
             std::to_string(avail.size() - 0.5) +
             "]\nset style fill solid 0.5\nset boxwidth 0.6\n"
             "plot $d using 1:2:xtic(4) with boxes notitle, $d using 1:2:3 with yerrorbars "
             "pt 0 lc rgb 'black' notitle, $d using 1:($2+$3):5 with labels offset 0,1 notitle\n");
    figs.push_back(f);
  }
  {  // (d) fallback sweep
    Figure f{"fig2d_fallback", "Energy vs fallback cost",
             "Fig. 2d analogue (modelled energy): selective system per query (mean +- sd over "
             "runs, at each run's test coverage) against the fallback cost F, the always-on "
             "ensemble, the operating point and the break-even band (mean +- sd).",
             7.16, 3.6};
    std::string d = "$d << EOD\n";
    for (const auto& p : s.fallback)
      d += g(p.fallback * 1e6) + " " + g(p.selective.mean * 1e6) + " " +
           g((p.selective.mean - p.selective.sd) * 1e6) + " " +
           g((p.selective.mean + p.selective.sd) * 1e6) + " " + g(p.ensemble * 1e6) + "\n";
    d += "EOD\n";
    std::string band;
    if (s.break_even.n > 0)
      band = "set object 1 rect from " + g((s.break_even.mean - s.break_even.sd) * 1e6) +
             ",graph 0 to " + g((s.break_even.mean + s.break_even.sd) * 1e6) +
             ",graph 1 fc rgb '#dddddd' fs solid 0.6 behind\n";
    plot(out, dir, f,
         d + band +
             "set xlabel 'fallback energy F (uJ)'\nset ylabel 'energy per query (uJ)'\nset grid\n"
             "set arrow 1 from " +
             g(info.fallback * 1e6) + ",graph 0 to " + g(info.fallback * 1e6) +
             ",graph 1 nohead dt 3\n"
             "plot $d using 1:3:4 with filledcurves fc rgb '#9ecae1' title 'selective +- sd', "
             "$d using 1:2 with lines lw 2 lc rgb '#08519c' title 'selective (mean)', "
             "$d using 1:5 with lines lw 2 dt 2 lc rgb 'red' title 'always-on ensemble'\n");
    figs.push_back(f);
  }
  return figs;
}

void write_race_study_html(OutputSet& out, const select::StudyResult& s, const RaceStudyInfo& info,
                           const std::vector<Figure>& figures, const std::string& dir) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hetcim: seed 002 study"
      "</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
      "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;"
      "text-align:right}figure{margin:24px 0}.note{font-size:12px;color:#555}</style></head>"
      "<body>\n<h1>Certified selective inference over a pool of analog chips (seed 002)</h1>\n"
      "<table>";
  for (const auto& [k, v] : info.provenance)
    h += "<tr><th>" + escape(k) + "</th><td style=\"text-align:left\">" + escape(v) + "</td></tr>";
  h += "</table>\n";
  for (const Table& t : tables_of(s)) h += html_of(t);
  for (const Figure& f : figures) {
    std::ifstream in(out.staged_file(dir + "/" + f.name + ".svg"));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string svg = ss.str();
    if (auto pos = svg.find("<svg"); pos != std::string::npos) svg = svg.substr(pos);
    h += "<figure id=\"" + f.name + "\">" + svg + "<figcaption>" + escape(f.caption) +
         "</figcaption></figure>\n";
  }
  h += "</body></html>\n";
  out.add(dir + "/report.html", h);
}

}  // namespace hetcim::report
