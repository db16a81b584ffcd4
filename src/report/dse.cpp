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

#include "report/gnuplot.h"
#include "report/provenance.h"
#include "util/error.h"
#include "util/files.h"

namespace hetcim::report {
namespace {

namespace fs = std::filesystem;

std::string num(double v) {
  return gnuplot_number(v);
}

std::string ns(double t) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", t * 1e9);
  return b;
}

template <typename T>
std::vector<T> distinct(const std::vector<dse::DsePoint>& pts, T dse::DsePoint::*field) {
  std::vector<T> out;
  for (const auto& p : pts)
    if (std::find(out.begin(), out.end(), p.*field) == out.end()) out.push_back(p.*field);
  return out;
}

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
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

DseSummary summarize_dse(const std::vector<dse::DsePoint>& pts) {
  DseSummary s;
  s.points = pts.size();
  for (const auto& p : pts) {
    s.cached += p.cached;
    s.optimal += p.status == "optimal";
    s.milp_run += p.milp_run;
    s.milp_optimal += p.milp_run && p.milp_status == "optimal";
    if (!p.cached) s.solve_seconds += p.seconds;
    const std::string hs = p.host + " = " + p.host_source;
    if (std::find(s.host_sources.begin(), s.host_sources.end(), hs) == s.host_sources.end())
      s.host_sources.push_back(hs);
  }
  return s;
}

std::string dse_claim(const std::vector<dse::DsePoint>& pts) {
  const DseSummary s = summarize_dse(pts);
  std::string out = std::to_string(s.points) + " grid points; ";
  const std::string origin = "(" + std::to_string(s.points - s.cached) + " solved in this run, " +
                             std::to_string(s.cached) +
                             " read from the cache, their status recorded when they were solved)";
  if (s.optimal == s.points) {
    out += "all " + std::to_string(s.points) +
           " solved to proven optimality by hetcim's exact solver " + origin;
  } else {
    std::map<std::string, size_t> others;
    for (const auto& p : pts)
      if (p.status != "optimal") ++others[p.status.empty() ? "no status" : p.status];
    out += std::to_string(s.optimal) + " of " + std::to_string(s.points) +
           " proven optimal by hetcim's exact solver; not proven:";
    for (const auto& [status, n] : others) out += " " + std::to_string(n) + " " + status;
    out += " " + origin;
  }
  if (s.milp_run > 0)
    out += "; the paper's MILP (CBC) ran on " + std::to_string(s.milp_run) + " points, " +
           std::to_string(s.milp_optimal) + " proven optimal";
  return out;
}

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
      (prov.find("status") ? std::string() : "# status: " + dse_claim(pts) + "\n") +
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
  const DseSummary sum = summarize_dse(pts);
  const nlohmann::json doc = {{"provenance", provenance_json(prov)},
                              {"summary",
                               {{"points", sum.points},
                                {"cached", sum.cached},
                                {"solved_in_this_run", sum.points - sum.cached},
                                {"optimal", sum.optimal},
                                {"milp_run", sum.milp_run},
                                {"milp_optimal", sum.milp_optimal},
                                {"exact_solve_s_this_run", sum.solve_seconds},
                                {"host_sources", sum.host_sources},
                                {"claim", dse_claim(pts)}}},
                              {"points", a}};
  return doc.dump(1) + "\n";
}

std::vector<Figure> write_dse_report(OutputSet& outputs, const std::vector<dse::DsePoint>& pts,
                                     const std::string& out, const Provenance& prov) {
  const std::string dir = (fs::path(out) / "figures").string();
  outputs.make_directory(dir);
  // Every caption ends with where its numbers come from.
  const DseSummary sum = summarize_dse(pts);
  std::string sources = " Hosts: ";
  for (size_t i = 0; i < sum.host_sources.size(); ++i)
    sources += (i ? "; " : "") + sum.host_sources[i];
  sources += ". Exact solver (hetcim); " + std::to_string(sum.optimal) + " of " +
             std::to_string(sum.points) + " points proven optimal, " + std::to_string(sum.cached) +
             " from the cache. " + "hetcim " + prov.version + " (commit " + prov.commit + ").";
  const auto models = distinct(pts, &dse::DsePoint::model);
  const auto hosts = distinct(pts, &dse::DsePoint::host);
  const auto xbars = distinct(pts, &dse::DsePoint::crossbars);
  const auto tmvms = distinct(pts, &dse::DsePoint::t_mvm);
  auto find = [&](const std::string& m, const std::string& h, int64_t c,
                  double t) -> const dse::DsePoint* {
    for (const auto& p : pts)
      if (p.model == m && p.host == h && p.crossbars == c && p.t_mvm == t) return &p;
    return nullptr;
  };
  std::string xtics = "set xtics (";
  for (size_t i = 0; i < xbars.size(); ++i)
    xtics +=
        (i ? ", " : "") + std::string("'") + std::to_string(xbars[i]) + "' " + std::to_string(i);
  xtics += ")\n";
  std::vector<Figure> figs;

  // Speedup vs crossbars, one panel per host, one line per series; `point(host, crossbars, k)`
  // gives the point of series k (nullptr when the grid lacks it).
  // `value` picks the plotted figure of a point (the speedup unless given).
  auto speedup_panels =
      [&](
          const Figure& f, const std::vector<std::string>& series,
          const std::function<const dse::DsePoint*(const std::string&, int64_t, size_t)>& point,
          const std::function<double(const dse::DsePoint&)>& value =
              [](const dse::DsePoint& p) { return p.speedup; },
          const std::string& ylabel = "speedup (x)") {
        std::string body = "set multiplot layout 1," + std::to_string(hosts.size()) + " title " +
                           gnuplot_string(f.title) + "\n" + xtics +
                           "set xlabel 'crossbars'\nset ylabel '" + ylabel +
                           "'\nset key top left\nset grid\n"
                           "set yrange [0:*]\n";
        for (const std::string& h : hosts) {
          std::string data = "$d << EOD\n";
          for (size_t i = 0; i < xbars.size(); ++i) {
            data += std::to_string(i);
            for (size_t k = 0; k < series.size(); ++k) {
              const dse::DsePoint* p = point(h, xbars[i], k);
              data += " " + (p ? num(value(*p)) : std::string("NaN"));
            }
            data += "\n";
          }
          body += data + "EOD\nset title " + gnuplot_string(h) + "\nplot ";
          for (size_t k = 0; k < series.size(); ++k)
            body += (k ? ", " : "") + std::string("$d using 1:") + std::to_string(k + 2) +
                    " with linespoints lw 2 title " + gnuplot_string(series[k]);
          body += "\n";
        }
        plot(outputs, dir, f, body + "unset multiplot\n");
        figs.push_back(f);
        figs.back().caption += sources;
      };

  // Fig. 3: speedup vs crossbars, one line per T_mvm, one panel per host, per model.
  std::vector<std::string> tmvm_labels;
  for (double t : tmvms) tmvm_labels.push_back(ns(t) + " ns");
  for (const std::string& m : models) {
    speedup_panels(
        {"fig3_" + m, "Speedup of " + m + " over CPU-only vs crossbars, per MVM latency and host",
         "Like seed 000 Fig. 3 (there: ResNet-18). Lines: T_mvm; panels: hosts."},
        tmvm_labels,
        [&](const std::string& h, int64_t c, size_t k) { return find(m, h, c, tmvms[k]); });
  }

  // Fig. 4: speedup per model at the smallest T_mvm, vs crossbars, per host.
  const double t_min = *std::min_element(tmvms.begin(), tmvms.end());
  speedup_panels({"fig4_models", "Speedup per model at T_{mvm} = " + ns(t_min) + " ns vs crossbars",
                  "Like seed 000 Fig. 4. Lines: models; panels: hosts."},
                 models, [&](const std::string& h, int64_t c, size_t k) {
                   return find(models[k], h, c, t_min);
                 });

  // Beyond the paper: energy per inference of the latency-optimal partitions, relative to the host
  // alone (modelled energies, cost/energy_model.h).
  speedup_panels(
      {"energy_models", "Energy saving per model at T_{mvm} = " + ns(t_min) + " ns vs crossbars",
       "Beyond seed 000: energy per inference of the host alone divided by that of the "
       "latency-optimal partition (modelled energies: cost/hardware.h). Lines: models; "
       "panels: hosts."},
      models,
      [&](const std::string& h, int64_t c, size_t k) { return find(models[k], h, c, t_min); },
      [](const dse::DsePoint& p) { return p.energy > 0 ? p.cpu_only_energy / p.energy : 0.0; },
      "energy saving (x)");

  // Fig. 5: latency split host / CIM busy time and operator counts, per model.
  for (const std::string& m : models) {
    Figure f{"fig5_" + m, "Latency of " + m + ": host and CIM busy time, operators per device",
             "Like seed 000 Fig. 5 (there: YOLOv5n). Stacked bars: busy time of the host (dark) "
             "and the accelerator (light) for each crossbar count and MVM latency; labels: "
             "operators on host / CIM."};
    std::string body = "set multiplot layout 1," + std::to_string(hosts.size()) + " title " +
                       gnuplot_string(f.title) + "\n";
    body +=
        "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 "
        "border -1\n"
        "set boxwidth 0.8\nset ylabel 'busy time (ms)'\nset xtics rotate by -60 font ',8'\n"
        "set key above horizontal\nset grid ytics\nset yrange [0:*]\n";
    for (const std::string& h : hosts) {
      std::string data = "$d << EOD\n";
      for (double t : tmvms)
        for (int64_t c : xbars) {
          const dse::DsePoint* p = find(m, h, c, t);
          if (!p) continue;
          data += "\"" + ns(t) + "ns/" + std::to_string(c) + " (" + std::to_string(p->host_ops) +
                  "/" + std::to_string(p->cim_ops) + ")\" " + num(p->host_busy * 1e3) + " " +
                  num(p->cim_busy * 1e3) + "\n";
        }
      data += "EOD\n";
      body += data + "set title " + gnuplot_string(h) +
              "\nplot $d using 2:xtic(1) title 'host' lc rgb '#2f4b7c', "
              "'' using 3 title 'CIM' lc rgb '#a0c4ff'\n";
    }
    body += "unset multiplot\n";
    plot(outputs, dir, f, body);
    figs.push_back(f);
    figs.back().caption += sources;
  }

  // Table I analogue as a figure: solve time per model (exact, and MILP when run).
  {
    Figure f{"table1_solver", "Solver time per model (all grid points)",
             "Like seed 000 Table I. Points: wall-clock time of the exact solver (and of CBC on "
             "the paper's MILP when --milp was given) for every grid point."};
    std::string data = "$d << EOD\n";
    for (size_t i = 0; i < models.size(); ++i)
      for (const auto& p : pts)
        if (p.model == models[i])
          data += std::to_string(i) + " " + num(std::max(p.seconds, 1e-6)) + " " +
                  (p.milp_run ? num(std::max(p.milp_seconds, 1e-6)) : std::string("NaN")) + "\n";
    data += "EOD\n";
    std::string tics = "set xtics (";
    for (size_t i = 0; i < models.size(); ++i)
      tics += (i ? ", " : "") + gnuplot_string(models[i]) + " " + std::to_string(i);
    tics += ")\n";
    const std::string body = data + tics +
                             "set logscale y\nset ylabel 'seconds'\nset grid\n"
                             "set xrange [-0.5:" +
                             std::to_string(models.size() - 0.5) +
                             "]\n"
                             "plot $d using ($1-0.1):2 with points pt 7 title 'exact', "
                             "$d using ($1+0.1):3 with points pt 5 title 'MILP (CBC)'\n";
    plot(outputs, dir, f, body);
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
      html_escape(dse_claim(pts)) + ".</p>\n<p>Host latencies: ";
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
        ns(p.t_mvm).c_str(), html_escape(p.status).c_str(), p.cached ? "yes" : "no",
        p.latency * 1e3, p.cpu_only * 1e3, p.speedup, p.host_ops, p.cim_ops,
        static_cast<long long>(p.crossbars_used), p.seconds);
    html += row;
  }
  html += "</table>\n</body></html>\n";
  outputs.add((fs::path(out) / "report.html").string(), html);
  return figs;
}

}  // namespace hetcim::report
