#include "report/partition.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>

#include "graph/dag.h"
#include "partition/energy.h"
#include "report/figure_style.h"
#include "report/gantt.h"
#include "report/provenance.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/units.h"

namespace hetcim::report {
namespace {

std::string t(double seconds) {
  return format_quantity(seconds, Quantity::Time);
}

std::string j(double joules) {
  return format_quantity(joules, Quantity::Energy);
}

std::string energy_line(const partition::EnergyBreakdown& e) {
  return j(e.total) + " (host " + j(e.host) + ", CIM " + j(e.cim) + ", bus " + j(e.bus) +
         ", static " + j(e.static_energy) + ")";
}

nlohmann::json energy_json(const partition::EnergyBreakdown& e) {
  return {{"host", e.host},
          {"cim", e.cim},
          {"bus", e.bus},
          {"static", e.static_energy},
          {"total", e.total}};
}

}  // namespace

std::string partition_text(const results::PartitionRun& r, const partition::Problem& p,
                           const partition::Schedule& s) {
  const partition::Summary f = partition::summarize(p, s);
  std::string out;
  char line[512];
  auto row = [&](const char* k, const std::string& v) {
    std::snprintf(line, sizeof line, "  %-26s %s\n", k, v.c_str());
    out += line;
  };
  out += "partition of " + r.model + " on " + r.hardware + "\n";
  row("host", r.host_source);
  row("T_mvm", t(r.t_mvm));
  row("CPU-only latency", t(f.cpu_only));
  row("partitioned latency", t(f.latency));
  std::snprintf(line, sizeof line, "%.2fx", f.speedup);
  row("speedup", line);
  std::snprintf(line, sizeof line, "%d on the host, %d on the CIM accelerator", f.host_ops,
                f.cim_ops);
  row("operators", line);
  std::snprintf(line, sizeof line, "%lld of %lld", static_cast<long long>(f.crossbars_used),
                static_cast<long long>(p.crossbar_budget));
  row("crossbars used", line);
  std::snprintf(line, sizeof line, "%zu (%s of data)", s.transfers.size(),
                [&] {
                  double busy = 0;
                  for (const auto& tr : s.transfers) busy += tr.finish - tr.start;
                  return t(busy);
                }()
                    .c_str());
  row("bus transfers", line);
  row("bus model",
      p.bus_model == partition::BusModel::Serial
          ? "serial (one transfer at a time), " + std::string(transfer_model_name(p.transfer_model))
          : "parallel (transfers overlap, the paper), " +
                std::string(transfer_model_name(p.transfer_model)));
  double objective = s.makespan;
  if (p.has_energy()) {
    const partition::EnergyBreakdown e = partition::energy_of(p, s);
    row("energy (modelled)", energy_line(e));
    if (r.energy_weight > 0) {
      objective = s.makespan + r.energy_weight * e.total;
      std::snprintf(line, sizeof line, "latency + %g s/J x energy = %s", r.energy_weight,
                    t(objective).c_str());
      row("objective", line);
    }
  }
  const double gap = objective > 0 ? std::max(0.0, (objective - r.bound) / objective) : 0.0;
  if (r.status == partition::SolveStatus::Replayed) {
    row("solver", r.solver + " (no optimality claim)");
  } else {
    std::snprintf(line, sizeof line, "%s, %s (%s), bound %s, gap %.3g %%, %.3f s, %lld nodes",
                  r.solver.c_str(), partition::solve_status_name(r.status),
                  r.status == partition::SolveStatus::Optimal ? "proven" : "not proven",
                  t(r.bound).c_str(), gap * 100, r.seconds, static_cast<long long>(r.nodes));
    row("solver", line);
    if (!r.incumbent.empty()) row("incumbent", r.incumbent);
  }
  if (r.milp) {
    std::snprintf(line, sizeof line,
                  "%zu binaries, %zu constraints (Table I counting); built: %zu "
                  "integer + %zu continuous columns, %zu rows",
                  r.milp->paper_binaries, r.milp->paper_constraints, r.milp->binaries,
                  r.milp->continuous, r.milp->rows);
    row("MILP size", line);
    if (r.milp->bus_jobs > 0) {
      std::snprintf(line, sizeof line, "%zu potential transfers, %zu disjunctive pairs",
                    r.milp->bus_jobs, r.milp->bus_pairs);
      row("MILP serial bus", line);
    }
  }
  const Provenance prov = results::partition_provenance(r);
  row("version", "hetcim " + prov.version + " (commit " + prov.commit + "), " + prov.date_utc);
  row("machine", prov.machine);
  for (const char* k : {"cache", "seeds"})
    if (const std::string* v = prov.find(k)) row(k, *v);
  return out;
}

nlohmann::json partition_json(const results::PartitionRun& r, const partition::Problem& p,
                              const partition::Schedule& s) {
  const partition::Summary f = partition::summarize(p, s);
  nlohmann::json ops = nlohmann::json::array();
  for (size_t v = 0; v < p.size(); ++v) {
    const int m = s.assignment.mode[v];
    ops.push_back(
        {{"name", p.names[v]},
         {"device", m < 0 ? "host" : "cim"},
         {"mode", m},
         {"crossbars", p.crossbars(static_cast<int>(v), m)},
         {"start_s", s.start[v]},
         {"finish_s", s.finish[v]},
         {"t_host_s", p.t_host[v]},
         {"t_acc_s", p.offloadable(static_cast<int>(v))
                         ? nlohmann::json(p.acc[v][static_cast<size_t>(std::max(m, 0))].t_acc)
                         : nlohmann::json(nullptr)}});
  }
  nlohmann::json transfers = nlohmann::json::array();
  for (const partition::Transfer& tr : s.transfers)
    transfers.push_back({{"key", tr.key},
                         {"producer", p.names[static_cast<size_t>(tr.producer)]},
                         {"consumers",
                          [&] {
                            nlohmann::json c = nlohmann::json::array();
                            for (int v : tr.consumers) c.push_back(p.names[static_cast<size_t>(v)]);
                            return c;
                          }()},
                         {"direction", tr.to_host ? "cim->host" : "host->cim"},
                         {"start_s", tr.start},
                         {"finish_s", tr.finish}});
  nlohmann::json host_order = nlohmann::json::array();
  for (int v : s.host_order) host_order.push_back(p.names[static_cast<size_t>(v)]);
  nlohmann::json j = {{"model", r.model},
                      {"hardware", r.hardware},
                      {"host", r.host_source},
                      {"t_mvm_s", r.t_mvm},
                      {"crossbar_budget", p.crossbar_budget},
                      {"transfer_model", partition::transfer_model_name(p.transfer_model)},
                      {"bus_model", partition::bus_model_name(p.bus_model)},
                      {"latency_s", f.latency},
                      {"cpu_only_s", f.cpu_only},
                      {"speedup", f.speedup},
                      {"host_ops", f.host_ops},
                      {"cim_ops", f.cim_ops},
                      {"crossbars_used", f.crossbars_used},
                      {"solver",
                       {{"name", r.solver},
                        {"status", partition::solve_status_name(r.status)},
                        {"bound_s", r.bound},
                        {"seconds", r.seconds},
                        {"nodes", r.nodes}}},
                      {"operators", ops},
                      {"host_order", host_order},
                      {"bus_order", s.bus_order},
                      {"transfers", transfers}};
  if (!r.incumbent.empty()) j["solver"]["incumbent"] = r.incumbent;
  if (p.has_energy()) j["energy_j"] = energy_json(partition::energy_of(p, s));
  if (r.energy_weight > 0) j["energy_weight_s_per_j"] = r.energy_weight;
  if (r.milp)
    j["milp"] = {{"paper_binaries", r.milp->paper_binaries},
                 {"paper_constraints", r.milp->paper_constraints},
                 {"binaries", r.milp->binaries},
                 {"continuous", r.milp->continuous},
                 {"rows", r.milp->rows},
                 {"big_m_s", r.milp->big_m_seconds},
                 {"bus_jobs", r.milp->bus_jobs},
                 {"bus_pairs", r.milp->bus_pairs},
                 {"time_unit_s", r.milp->time_unit_seconds}};
  j["provenance"] = formats::provenance_json(results::partition_provenance(r));
  return j;
}

std::string gantt_svg(const results::PartitionRun& r, const partition::Problem& p,
                      const partition::Schedule& s) {
  // Lanes: host, bus, and as many accelerator lanes as operators overlap there.
  const TwoDeviceLanes lanes = two_device_lanes(s);
  // The style's colours: host dark, accelerator light, bus green.
  const FigureStyle& st = figure_style();
  GanttChart c;
  c.heading = r.model + " on " + r.hardware + ": latency " + t(s.makespan) +
              (r.host_source.empty() ? "" : "; host " + r.host_source);
  c.legend = {{"host operator", st.host}, {"CIM operator", st.accel}, {"bus transfer", st.bus}};
  c.lanes = {"host", "bus"};
  for (size_t l = 0; l < lanes.accelerator; ++l) c.lanes.push_back("cim " + std::to_string(l));
  c.span = s.makespan;
  for (size_t v = 0; v < p.size(); ++v) {
    const bool on_cim = s.assignment.mode[v] >= 0;
    c.bars.push_back({lanes.lane[v], s.start[v], s.finish[v], on_cim ? st.accel : st.host,
                      p.names[v] + " (" + t(s.finish[v] - s.start[v]) + ")", bar_label(p.names[v]),
                      on_cim ? "#000" : "#fff"});
  }
  for (const partition::Transfer& tr : s.transfers)
    c.bars.push_back(
        {1, tr.start, tr.finish, st.bus,
         p.names[static_cast<size_t>(tr.producer)] + (tr.to_host ? " cim->host" : " host->cim"), "",
         "#000"});
  const Provenance prov = results::partition_provenance(r);
  c.metadata = {r.model + " on " + r.hardware + ": schedule",
                "Gantt chart of the partition's schedule", provenance_caption(prov),
                std::string("hetcim ") + prov.version + " (" + prov.commit + ")"};
  return gantt_svg(c);
}

std::string front_text(const partition::Problem& p, const partition::FrontResult& f,
                       const Provenance& prov) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "latency-energy front (%s): %zu points from %zu exact solves in %.3f s%s\n",
                partition::front_kind_name(f.kind), f.points.size(), f.solves, f.seconds,
                !f.complete ? " (incomplete: point cap or time limit)"
                : f.kind == partition::FrontKind::Full
                    ? " (every non-dominated point; weight '-': no weight reaches it)"
                    : " (every supported point)");
  out += line;
  std::snprintf(line, sizeof line, "  %10s %12s %9s %12s %10s %10s %10s %10s %6s %9s\n",
                "weight s/J", "latency", "speedup", "energy", "host", "CIM", "bus", "static",
                "CIM ops", "crossbars");
  out += line;
  for (const partition::FrontPoint& q : f.points) {
    const partition::Summary s = partition::summarize(p, q.schedule);
    char weight[32];
    if (q.supported)
      std::snprintf(weight, sizeof weight, "%.4g", q.weight);
    else
      std::snprintf(weight, sizeof weight, "-");
    std::snprintf(line, sizeof line, "  %10s %12s %8.2fx %12s %10s %10s %10s %10s %7d %9lld\n",
                  weight, t(q.makespan).c_str(), s.speedup, j(q.energy.total).c_str(),
                  j(q.energy.host).c_str(), j(q.energy.cim).c_str(), j(q.energy.bus).c_str(),
                  j(q.energy.static_energy).c_str(), s.cim_ops,
                  static_cast<long long>(s.crossbars_used));
    out += line;
  }
  return out + provenance_text(prov, "  ");
}

nlohmann::json front_json(const partition::Problem& p, const partition::FrontResult& f,
                          const Provenance& prov) {
  nlohmann::json pts = nlohmann::json::array();
  for (const partition::FrontPoint& q : f.points) {
    const partition::Summary s = partition::summarize(p, q.schedule);
    nlohmann::json modes = nlohmann::json::array();
    for (int m : q.schedule.assignment.mode) modes.push_back(m);
    pts.push_back({{"weight_s_per_j", q.supported ? nlohmann::json(q.weight) : nlohmann::json()},
                   {"supported", q.supported},
                   {"latency_s", q.makespan},
                   {"speedup", s.speedup},
                   {"energy_j", energy_json(q.energy)},
                   {"cim_ops", s.cim_ops},
                   {"crossbars_used", s.crossbars_used},
                   {"modes", modes}});
  }
  return {{"kind", partition::front_kind_name(f.kind)},
          {"points", pts},
          {"solves", f.solves},
          {"complete", f.complete},
          {"seconds", f.seconds},
          {"operators", p.names},
          {"provenance", formats::provenance_json(prov)}};
}

// The front in the shared figure style (report/figure_style.h): one Lines panel, latency against
// energy per inference, each point a marker joined by a line, the provenance as the footnote.
// gnuplot draws into a staging directory under the temporary directory; the SVG text is read back
// and the staging removed with the set.
std::string front_svg(const std::string& title, const partition::Problem& p,
                      const partition::FrontResult& f, const Provenance& prov,
                      const FigureOptions& fig_options) {
  (void)p;
  double l_max = 0, e_max = 0;
  for (const partition::FrontPoint& q : f.points) {
    l_max = std::max(l_max, q.makespan);
    e_max = std::max(e_max, q.energy.total);
  }
  // Axis units: the largest value between 1 and 1000 of its unit.
  const auto unit = [](double v, const char* const names[4]) {
    const double scales[4] = {1e-9, 1e-6, 1e-3, 1.0};
    int k = 0;
    while (k < 3 && v >= 1000 * scales[k]) ++k;
    return std::pair<double, std::string>{scales[k], names[k]};
  };
  const char* const time_units[4] = {"ns", "us", "ms", "s"};
  const char* const energy_units[4] = {"nJ", "uJ", "mJ", "J"};
  const auto [ls, ln] = unit(l_max, time_units);
  const auto [es, en] = unit(e_max, energy_units);
  LineSeries front{"latency-energy front (exact solver)", {}, {}, false, true};
  for (const partition::FrontPoint& q : f.points) {
    front.x.push_back(q.makespan / ls);
    front.y.push_back(q.energy.total / es);
  }
  Chart c;
  c.title = title;
  c.footnote = provenance_caption(prov);
  c.panels.push_back({"", "latency (" + ln + ")", "energy per inference (" + en + ")", kNoValue,
                      // The axis spans the front (310-325 mJ is flat on an axis from 0).
                      kNoValue, Lines{{front}, false, false, {}, false}});
  const Figure fig{"front", title, "", figure_style().double_column_in * 0.75, 3.4};
  namespace fs = std::filesystem;
  static std::atomic<int> counter{0};
  const std::string dir =
      (fs::temp_directory_path() /
       ("hetcim-front-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
          .string();
  OutputSet staging;
  staging.make_directory(dir);
  plot_chart(staging, dir, fig, c, fig_options);
  InputCheck own;
  own.is_input = false;
  return read_input_file(staging.staged_file(join_path(dir, "front.svg")), "staged figure", own);
}

}  // namespace hetcim::report
