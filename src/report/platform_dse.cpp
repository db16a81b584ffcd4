#include "report/platform_dse.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "report/figure_style.h"
#include "report/provenance.h"
#include "util/units.h"

namespace hetcim::report {
namespace {

std::string point_label(const PlatformDseRun& r, const dse::PlatformDsePoint& p) {
  std::string s;
  for (size_t a = 0; a < r.axes->size(); ++a)
    s += (a ? " " : "") + (*r.axes)[a].key + "=" + p.values[a];
  return s.empty() ? "(platform as given)" : s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// The compact tick label of a point: its values joined by "/" (the axis label names the keys).
std::string tick_label(const dse::PlatformDsePoint& p) {
  std::string s;
  for (size_t a = 0; a < p.values.size(); ++a) s += (a ? "/" : "") + p.values[a];
  return s.empty() ? "as given" : s;
}

}  // namespace

std::string platform_dse_csv(const PlatformDseRun& r) {
  std::string s = provenance_text(r.provenance, "# ");
  s += "# latency, energy: modelled (the platform's cost models, platform/build.h); seconds: "
       "measured wall time of the exact solver (of an earlier run when cached)\n";
  s += "model";
  for (const platform::SweepAxis& a : *r.axes) s += "," + csv_field(a.key);
  s += ",operators,status,latency_s,energy_j,objective,bound,solve_seconds,nodes,cached";
  const std::vector<dse::PlatformDsePoint>& pts = *r.points;
  if (!pts.empty())
    for (const std::string& e : pts[0].engines)
      s += "," + csv_field("ops_" + e) + "," + csv_field("crossbars_" + e);
  s += "\n";
  for (const dse::PlatformDsePoint& p : pts) {
    s += csv_field(p.model);
    for (const std::string& v : p.values) s += "," + csv_field(v);
    s += "," + std::to_string(p.operators) + "," + p.status + "," + num(p.latency) + "," +
         num(p.energy) + "," + num(p.objective) + "," + num(p.bound) + "," + num(p.seconds) + "," +
         std::to_string(p.nodes) + "," + (p.cached ? "yes" : "no");
    for (size_t e = 0; e < p.engines.size(); ++e)
      s += "," + std::to_string(p.operators_on[e]) + "," + std::to_string(p.capacity_used[e]);
    s += "\n";
  }
  return s;
}

std::string platform_dse_json(const PlatformDseRun& r) {
  nlohmann::json axes = nlohmann::json::array();
  for (const platform::SweepAxis& a : *r.axes)
    axes.push_back({{"key", a.key}, {"values", a.values}});
  nlohmann::json pts = nlohmann::json::array();
  for (const dse::PlatformDsePoint& p : *r.points) {
    nlohmann::json engines = nlohmann::json::array();
    for (size_t e = 0; e < p.engines.size(); ++e)
      engines.push_back({{"name", p.engines[e]},
                         {"operators", p.operators_on[e]},
                         {"crossbars_used", p.capacity_used[e]}});
    pts.push_back({{"model", p.model},
                   {"values", p.values},
                   {"operators", p.operators},
                   {"status", p.status},
                   {"latency_s", p.latency},
                   {"energy_j", p.energy},
                   {"objective", p.objective},
                   {"bound", p.bound},
                   {"solve_seconds", p.seconds},
                   {"nodes", p.nodes},
                   {"cached", p.cached},
                   {"engines", engines}});
  }
  const nlohmann::json doc = {{"provenance", formats::provenance_json(r.provenance)},
                              {"platform", r.platform},
                              {"axes", axes},
                              {"points", pts}};
  return doc.dump(1) + "\n";
}

std::string platform_dse_text(const PlatformDseRun& r) {
  std::string o;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-12s %-40s %-10s %12s %12s %10s %s\n", "model", "point",
                "status", "latency", "energy", "solve", "cached");
  o += buf;
  for (const dse::PlatformDsePoint& p : *r.points) {
    std::snprintf(buf, sizeof buf, "%-12s %-40s %-10s %12s %12s %10s %s\n", p.model.c_str(),
                  point_label(r, p).substr(0, 40).c_str(), p.status.c_str(),
                  format_quantity(p.latency, Quantity::Time).c_str(),
                  format_quantity(p.energy, Quantity::Energy).c_str(),
                  format_quantity(p.seconds, Quantity::Time).c_str(), p.cached ? "yes" : "no");
    o += buf;
  }
  return o;
}

Figure write_platform_dse_figure(OutputSet& out, const std::string& dir, const PlatformDseRun& r,
                                 const FigureOptions& fig_options) {
  Figure f;
  f.name = "platform_dse_latency";
  f.title = "Latency on " + r.platform + " per platform parameter";
  f.caption =
      "Latency of the proven-optimal mapping (exact solver by the platform's shape) of each "
      "model at each grid point; modelled by the platform's cost models (platform/build.h). " +
      provenance_caption(r.provenance);
  Chart c;
  c.title = f.title;
  c.footnote = "Data: hetcim's exact solvers; latencies MODELLED (platform cost models).";
  Bars b;
  b.label_format = "%.2f";
  std::vector<std::string> models;
  for (const dse::PlatformDsePoint& p : *r.points) {
    if (std::find(models.begin(), models.end(), p.model) == models.end()) models.push_back(p.model);
    const std::string g = tick_label(p);
    if (std::find(b.groups.begin(), b.groups.end(), g) == b.groups.end()) b.groups.push_back(g);
  }
  for (const std::string& m : models) {
    BarSeries s{m, std::vector<double>(b.groups.size(), kNoValue), {}};
    for (const dse::PlatformDsePoint& p : *r.points)
      if (p.model == m) {
        const auto at = std::find(b.groups.begin(), b.groups.end(), tick_label(p));
        s.values[static_cast<size_t>(at - b.groups.begin())] = p.latency * 1e3;
      }
    b.series.push_back(std::move(s));
  }
  std::string keys;
  for (const platform::SweepAxis& a : *r.axes) keys += (keys.empty() ? "" : " / ") + a.key;
  c.panels.push_back(
      {"", keys.empty() ? "grid point" : keys, "latency (ms)", 0.0, kNoValue, std::move(b)});
  out.make_directory(dir);
  plot_chart(out, dir, f, c, fig_options);
  return f;
}

}  // namespace hetcim::report
