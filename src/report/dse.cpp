#include "report/dse.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "formats/number_text.h"
#include "report/dse_grid.h"
#include "report/figure_style.h"
#include "report/gnuplot.h"
#include "report/provenance.h"
#include "util/error.h"
#include "util/files.h"

namespace hetcim::report {
namespace {

namespace fs = std::filesystem;

std::string num(double v) {
  return formats::number_g9(v);
}

// A CSV field: quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

bool owned_figure(const std::string& file) {
  for (const char* prefix : {"fig3_", "fig4_", "fig5_", "energy_models.", "table1_solver."})
    if (file.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

void remove_dse_report(const std::string& out) {
  std::error_code ec;
  fs::remove(fs::path(out) / "report.html", ec);
  const fs::path dir = fs::path(out) / "figures";
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> doomed;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (owned_figure(e.path().filename().string())) doomed.push_back(e.path());
  for (const fs::path& f : doomed) fs::remove(f, ec);
}

std::string dse_csv(const std::vector<dse::DsePoint>& pts, const Provenance& prov) {
  std::string s =
      provenance_text(prov, "# ") +
      // The claim counted from the points, unless the caller's provenance already states it.
      (prov.find("status") ? std::string() : "# status: " + results::dse_claim(pts) + "\n") +
      "model,host,host_source,cached,solver,crossbars,t_mvm_s,operators,edges,parallel_pairs,"
      "offloadable,milp_binaries,"
      "milp_constraints,status,latency_s,cpu_only_s,speedup,bound_s,solve_s,nodes,host_ops,cim_ops,"
      "crossbars_used,host_busy_s,cim_busy_s,energy_j,cpu_only_energy_j,milp_status,milp_objective_"
      "s,milp_bound_s,milp_gap,"
      "milp_s\n";
  for (const auto& p : pts) {
    s += csv_field(p.model) + "," + csv_field(p.host) + "," + csv_field(p.host_source) + "," +
         (p.cached ? "1" : "0") + ",exact," + std::to_string(p.crossbars) + "," + num(p.t_mvm) +
         "," + std::to_string(p.operators) + "," + std::to_string(p.edges) + "," +
         std::to_string(p.parallel_pairs) + "," + std::to_string(p.offloadable) + "," +
         std::to_string(p.milp_binaries) + "," + std::to_string(p.milp_constraints) + "," +
         p.status + "," + num(p.latency) + "," + num(p.cpu_only) + "," + num(p.speedup) + "," +
         num(p.bound) + "," + num(p.seconds) + "," + std::to_string(p.nodes) + "," +
         std::to_string(p.host_ops) + "," + std::to_string(p.cim_ops) + "," +
         std::to_string(p.crossbars_used) + "," + num(p.host_busy) + "," + num(p.cim_busy) + "," +
         num(p.energy) + "," + num(p.cpu_only_energy) + "," +
         (p.milp_run ? p.milp_status + "," + num(p.milp_objective) + "," + num(p.milp_bound) + "," +
                           num(p.milp_gap) + "," + num(p.milp_seconds)
                     : std::string(",,,,")) +
         "\n";
  }
  return s;
}

std::string dse_json(const std::vector<dse::DsePoint>& pts, const Provenance& prov) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : pts) {
    nlohmann::json j = {{"model", p.model},
                        {"host", p.host},
                        {"host_source", p.host_source},
                        {"cached", p.cached},
                        {"solver", "exact"},
                        {"crossbars", p.crossbars},
                        {"t_mvm_s", p.t_mvm},
                        {"operators", p.operators},
                        {"edges", p.edges},
                        {"parallel_pairs", p.parallel_pairs},
                        {"offloadable", p.offloadable},
                        {"milp_binaries", p.milp_binaries},
                        {"milp_constraints", p.milp_constraints},
                        {"status", p.status},
                        {"latency_s", p.latency},
                        {"cpu_only_s", p.cpu_only},
                        {"speedup", p.speedup},
                        {"bound_s", p.bound},
                        {"solve_s", p.seconds},
                        {"nodes", p.nodes},
                        {"host_ops", p.host_ops},
                        {"cim_ops", p.cim_ops},
                        {"crossbars_used", p.crossbars_used},
                        {"host_busy_s", p.host_busy},
                        {"cim_busy_s", p.cim_busy},
                        {"energy_j", p.energy},
                        {"cpu_only_energy_j", p.cpu_only_energy}};
    if (p.milp_run)
      j["milp"] = {{"status", p.milp_status},
                   {"objective_s", p.milp_objective},
                   {"bound_s", p.milp_bound},
                   {"gap", p.milp_gap},
                   {"seconds", p.milp_seconds}};
    a.push_back(j);
  }
  const results::DseSummary sum = results::summarize_dse(pts);
  const nlohmann::json doc = {{"provenance", formats::provenance_json(prov)},
                              {"summary",
                               {{"points", sum.points},
                                {"cached", sum.cached},
                                {"solved_in_this_run", sum.points - sum.cached},
                                {"optimal", sum.optimal},
                                {"milp_run", sum.milp_run},
                                {"milp_optimal", sum.milp_optimal},
                                {"exact_solve_s_this_run", sum.solve_seconds},
                                {"host_sources", sum.host_sources},
                                {"claim", results::dse_claim(pts)}}},
                              {"points", a}};
  return doc.dump(1) + "\n";
}

std::vector<Figure> write_dse_report(OutputSet& outputs, const std::vector<dse::DsePoint>& pts,
                                     const std::string& out, const Provenance& prov,
                                     const FigureOptions& fig_options) {
  const std::string dir = (fs::path(out) / "figures").string();
  outputs.make_directory(dir);
  // Every caption ends with where its numbers come from.
  const results::DseSummary sum = results::summarize_dse(pts);
  std::string sources = " Hosts: ";
  for (size_t i = 0; i < sum.host_sources.size(); ++i)
    sources += (i ? "; " : "") + sum.host_sources[i];
  sources += ". Exact solver (hetcim); " + std::to_string(sum.optimal) + " of " +
             std::to_string(sum.points) + " points proven optimal, " + std::to_string(sum.cached) +
             " from the cache. " + "hetcim " + prov.version + " (commit " + prov.commit + ").";
  const DseGrid grid(pts);
  const auto& models = grid.models;
  const auto& hosts = grid.hosts;
  const auto& xbars = grid.xbars;
  const auto& tmvms = grid.tmvms;
  auto find = [&grid](const std::string& m, const std::string& h, int64_t c, double t) {
    return grid.find(m, h, c, t);
  };
  std::vector<Figure> figs;
  // Where the host latencies come from, said in every figure (hosts named arm / x86 / a model
  // preset are the analytical host models; "this" and profile files are measured).
  std::string modelled, measured;
  for (const std::string& h : hosts) {
    const bool meas = h == "this" || h.rfind("profile:", 0) == 0;
    std::string& list = meas ? measured : modelled;
    list += (list.empty() ? "" : ", ") + h;
  }
  std::string footnote = "Data: hetcim's exact partitioning solver; CIM and bus: eq. (1)-(3).";
  if (!modelled.empty()) footnote += " Host MODELLED, not measured: " + modelled + ".";
  if (!measured.empty()) footnote += " Host measured: " + measured + ".";
  // Grouped bars per host panel: groups are the crossbar budgets, one series per `series` entry.
  auto bars_figure = [&](const Figure& f, const std::vector<std::string>& series,
                         const std::function<const dse::DsePoint*(const std::string&, int64_t,
                                                                  size_t)>& point,
                         const std::function<double(const dse::DsePoint&)>& value,
                         const std::string& ylabel) {
    Chart c;
    c.title = f.title;
    c.footnote = footnote;
    for (const std::string& h : hosts) {
      Bars b;
      for (int64_t x : xbars) b.groups.push_back(std::to_string(x));
      for (size_t k = 0; k < series.size(); ++k) {
        BarSeries bs{series[k], {}, {}};
        for (int64_t x : xbars) {
          const dse::DsePoint* p = point(h, x, k);
          bs.values.push_back(p ? value(*p) : kNoValue);
        }
        b.series.push_back(std::move(bs));
      }
      c.panels.push_back({host_title(h), "crossbars", ylabel, kNoValue, kNoValue, std::move(b)});
    }
    plot_chart(outputs, dir, f, c, fig_options);
    figs.push_back(f);
    figs.back().caption += sources;
  };
  const auto speedup = [](const dse::DsePoint& p) { return p.speedup; };

  // Fig. 3: speedup per crossbar budget and MVM latency, one panel per host, per model.
  std::vector<std::string> tmvm_labels;
  for (double t : tmvms) tmvm_labels.push_back(ns_label(t) + " ns");
  for (const std::string& m : models)
    bars_figure(
        {"fig3_" + m, m + ": speedup over CPU-only per crossbar budget and MVM latency",
         "Like Klein et al. 2026 Fig. 3 (there: ResNet-18): speedup of the optimal partition per "
         "crossbar budget (groups) and MVM latency (colours). " +
             footnote},
        tmvm_labels,
        [&](const std::string& h, int64_t c, size_t k) { return find(m, h, c, tmvms[k]); }, speedup,
        "speedup over CPU-only (x)");

  // Fig. 4: speedup per model at the smallest T_mvm.
  const double t_min = *std::min_element(tmvms.begin(), tmvms.end());
  bars_figure(
      {"fig4_models", "Speedup per model at " + ns_label(t_min) + " ns MVM latency",
       "Like Klein et al. 2026 Fig. 4: speedup per model (colours) and crossbar budget (groups). " +
           footnote},
      models,
      [&](const std::string& h, int64_t c, size_t k) { return find(models[k], h, c, t_min); },
      speedup, "speedup over CPU-only (x)");

  // Beyond the paper: energy per inference of the latency-optimal partitions, relative to the host
  // alone (modelled energies, cost/energy_model.h).
  bars_figure(
      {"energy_models", "Energy saving per model at " + ns_label(t_min) + " ns MVM latency",
       "Beyond Klein et al. 2026: energy per inference of the host alone divided by that of the "
       "latency-optimal partition (modelled energies: cost/hardware.h, assumptions). " +
           footnote},
      models,
      [&](const std::string& h, int64_t c, size_t k) { return find(models[k], h, c, t_min); },
      [](const dse::DsePoint& p) { return p.energy > 0 ? p.cpu_only_energy / p.energy : 0.0; },
      "energy saving (x)");

  // Fig. 5: the end-to-end latency split into host busy and host idle time, operator counts.
  for (const std::string& m : models) {
    Chart c;
    c.title = m + ": end-to-end latency, host busy and host idle (CIM or bus busy)";
    c.footnote = footnote;
    for (const std::string& h : hosts) {
      Stacks st;
      StackSegment busy{"host busy (label: host operators)", figure_style().host, {}, {}};
      StackSegment idle{
          "host idle, CIM or bus busy (label: CIM operators)", figure_style().accel, {}, {}};
      for (size_t k = 0; k < tmvms.size(); ++k) {
        st.groups.push_back(ns_label(tmvms[k]) + " ns");
        for (int64_t x : xbars) {
          const dse::DsePoint* p = find(m, h, x, tmvms[k]);
          st.bars.push_back(std::to_string(x));
          st.group_of_bar.push_back(static_cast<int>(k));
          busy.values.push_back(p ? p->host_busy * 1e3 : kNoValue);
          idle.values.push_back(p ? (p->latency - p->host_busy) * 1e3 : kNoValue);
          busy.labels.push_back(p ? std::to_string(p->host_ops) : "");
          idle.labels.push_back(p ? std::to_string(p->cim_ops) : "");
        }
      }
      st.segments = {busy, idle};
      c.panels.push_back({host_title(h), "crossbars, per MVM latency", "latency (ms)", kNoValue,
                          kNoValue, std::move(st)});
    }
    const Figure f{
        "fig5_" + m, c.title,
        "Like Klein et al. 2026 Fig. 5 (there: YOLOv5n): each bar is the end-to-end latency of "
        "the optimal partition, split into the time the host computes (dark, label: "
        "operators on the host) and the time it waits for the CIM accelerator or the "
        "bus (light, label: operators on CIM). " +
            footnote,
        7.16, 3.4};
    plot_chart(outputs, dir, f, c, fig_options);
    figs.push_back(f);
    figs.back().caption += sources;
  }

  // Table I analogue: mean solve time per model, the exact solver and (when run) CBC.
  {
    const bool milp = std::any_of(pts.begin(), pts.end(), [](const auto& p) { return p.milp_run; });
    Chart c;
    c.title = "Mean solve time per model over the grid";
    c.footnote =
        "Measured on this machine (cached points keep the time of the run that solved "
        "them).";
    Bars b;
    b.label_format = "%.3g";
    BarSeries exact{"exact solver", {}, {}}, cbc{"paper's MILP on CBC", {}, {}};
    for (const std::string& m : models) {
      b.groups.push_back(m);
      double se = 0, sm = 0;
      size_t ne = 0, nm = 0;
      for (const auto& p : pts)
        if (p.model == m) {
          se += p.seconds, ++ne;
          if (p.milp_run) sm += p.milp_seconds, ++nm;
        }
      exact.values.push_back(ne ? se / static_cast<double>(ne) : kNoValue);
      cbc.values.push_back(nm ? sm / static_cast<double>(nm) : kNoValue);
    }
    b.series.push_back(exact);
    if (milp) b.series.push_back(cbc);
    c.panels.push_back({"", "model", "mean solve time (s)", kNoValue, kNoValue, b});
    const Figure f{
        "table1_solver", c.title,
        "Like Klein et al. 2026 Table I's solving-time column: mean wall-clock time per grid "
        "point of hetcim's exact solver" +
            std::string(milp ? " and of CBC on the paper's MILP (--milp)" : "") +
            ", measured on this machine.",
        5.0, 3.0};
    plot_chart(outputs, dir, f, c, fig_options);
    figs.push_back(f);
    figs.back().caption += sources;
  }

  // The HTML page: figures inline, then the table of points.
  std::string html =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hetcim design-space "
      "exploration</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
      "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;"
      "text-align:right}figure{margin:24px 0}dt{font-weight:bold}</style></head><body>\n"
      "<h1>Design-space exploration</h1>\n<p class=\"claim\">" +
      html_escape(results::dse_claim(pts)) + ".</p>\n<p>Host latencies: ";
  for (size_t i = 0; i < sum.host_sources.size(); ++i)
    html += (i ? "; " : "") + html_escape(sum.host_sources[i]);
  html += ".</p>\n" + provenance_html(prov);
  for (const Figure& f : figs) {
    std::ifstream in(outputs.staged_file((fs::path(dir) / (f.name + ".svg")).string()));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string svg = ss.str();
    if (auto pos = svg.find("<svg"); pos != std::string::npos) svg = svg.substr(pos);
    html += "<figure class=\"figure\" id=\"" + f.name + "\">" + svg + "<figcaption>" +
            html_escape(f.caption) + "</figcaption></figure>\n";
  }
  html +=
      "<h2>All points</h2>\n<table><tr><th>model</th><th>host</th><th>host source</th>"
      "<th>crossbars</th><th>T_mvm</th><th>status</th><th>cached</th><th>latency "
      "(ms)</th><th>CPU-only (ms)</th><th>speedup</th><th>host ops</th>"
      "<th>CIM ops</th><th>crossbars used</th><th>solve (s, when solved)</th></tr>\n";
  for (const auto& p : pts) {
    char row[1024];
    std::snprintf(
        row, sizeof row,
        "<tr><td>%s</td><td>%s</td><td>%s</td><td>%lld</td><td>%s ns</td><td>%s</td><td>%s</td>"
        "<td>%.3f</td><td>%.3f</td><td>%.2f</td><td>%d</td><td>%d</td><td>%lld</td><td>%.4f</td>"
        "</tr>\n",
        html_escape(p.model).c_str(), html_escape(p.host).c_str(),
        html_escape(p.host_source).c_str(), static_cast<long long>(p.crossbars),
        ns_label(p.t_mvm).c_str(), html_escape(p.status).c_str(), p.cached ? "yes" : "no",
        p.latency * 1e3, p.cpu_only * 1e3, p.speedup, p.host_ops, p.cim_ops,
        static_cast<long long>(p.crossbars_used), p.seconds);
    html += row;
  }
  html += "</table>\n</body></html>\n";
  outputs.add((fs::path(out) / "report.html").string(), html);
  return figs;
}

}  // namespace hetcim::report
