#include "report/multi_partition.h"

#include <algorithm>
#include <cstdio>

#include "report/figure_style.h"
#include "report/gantt.h"
#include "report/provenance.h"
#include "util/units.h"

namespace hetcim::report {
namespace {

std::string t(double seconds) {
  return format_quantity(seconds, Quantity::Time);
}

std::string en(double joules) {
  return format_quantity(joules, Quantity::Energy);
}

std::string cycles_text(int64_t c) {
  return c < 0 ? "-" : std::to_string(c);
}

bool engine_reprograms(const partition::MultiProblem& p, size_t e) {
  for (const auto& opts : p.options)
    for (const partition::MultiOption& o : opts)
      if (o.reprogram && o.engine == static_cast<int>(e)) return true;
  return false;
}

bool has_reprogramming(const partition::MultiProblem& p) {
  for (size_t e = 0; e < p.engines.size(); ++e)
    if (engine_reprograms(p, e)) return true;
  return false;
}

const partition::MultiSchedule& schedule_of(const MultiPartitionRun& r) {
  return r.milp ? r.milp->schedule : r.solve->schedule;
}

partition::SolveStatus status_of(const MultiPartitionRun& r) {
  return r.milp ? r.milp->status : r.solve->status;
}

}  // namespace

std::string multi_partition_text(const MultiPartitionRun& r) {
  const partition::MultiProblem& p = r.problem->problem;
  const partition::MultiSchedule& s = schedule_of(r);
  std::string o = provenance_text(r.provenance, "# ");
  char buf[512];
  if (r.milp) {
    const partition::MultiMilpResult& m = *r.milp;
    std::snprintf(buf, sizeof buf,
                  "%s on %s: %zu operators, %zu engines; MILP %zu binaries, %zu continuous, %zu "
                  "rows\n",
                  r.model.c_str(), r.platform.c_str(), p.size(), p.engines.size(), m.stats.binaries,
                  m.stats.continuous, m.stats.rows);
    o += buf;
    o += "status " + std::string(partition::solve_status_name(m.status));
    if (s.option.empty()) {
      o += " (CBC found no schedule), bound " + std::to_string(m.bound) + ", " +
           std::to_string(m.nodes) + " nodes, " + t(m.seconds) + "\n";
      return o;
    }
    std::snprintf(buf, sizeof buf, ", gap %.4g%%", 100.0 * m.gap);
    o += ", latency " + t(s.makespan) + ", energy " + en(s.energy) + " (modelled), objective " +
         std::to_string(s.objective) + ", bound " + std::to_string(m.bound) + buf + ", " +
         std::to_string(m.nodes) + " CBC nodes, " + t(m.seconds) + "\n";
  } else {
    const partition::MultiExactResult& x = *r.solve;
    std::snprintf(buf, sizeof buf,
                  "%s on %s: %zu operators, %zu engines, %zu segments (largest %zu)\n",
                  r.model.c_str(), r.platform.c_str(), p.size(), p.engines.size(), x.segments,
                  x.largest_segment);
    o += buf;
    o += "status " + std::string(partition::solve_status_name(x.status)) + ", latency " +
         t(s.makespan) + ", energy " + en(s.energy) + " (modelled), objective " +
         std::to_string(s.objective) + ", bound " + std::to_string(x.bound) + ", " +
         std::to_string(x.nodes) + " nodes, " + std::to_string(x.seq_nodes) +
         " sequencing nodes, " + t(x.seconds) + "\n";
    if (!x.incumbent.empty()) o += "incumbent: " + x.incumbent + "\n";
  }
  if (s.option.empty()) return o;
  std::snprintf(buf, sizeof buf, "\n%4s  %-36s %-8s %-16s %10s %12s %12s %12s\n", "#", "operator",
                "engine", "option", "cycles", "start", "finish", "energy");
  o += buf;
  for (size_t v = 0; v < p.size(); ++v) {
    const partition::MultiOption& op = p.options[v][static_cast<size_t>(s.option[v])];
    std::snprintf(buf, sizeof buf, "%4zu  %-36s %-8s %-16s %10s %12s %12s %12s\n", v,
                  p.names[v].substr(0, 36).c_str(),
                  p.engines[static_cast<size_t>(op.engine)].name.c_str(), op.label.c_str(),
                  cycles_text(r.problem->cycles[v][static_cast<size_t>(s.option[v])]).c_str(),
                  t(s.start[v]).c_str(), t(s.finish[v]).c_str(), en(op.energy).c_str());
    o += buf;
  }
  o += "\nper engine: ";
  const std::vector<int64_t> used = partition::multi_capacity_used(p, s.option);
  for (size_t e = 0; e < p.engines.size(); ++e) {
    double busy = 0;
    int ops = 0;
    const int64_t cap = used[e];
    for (size_t v = 0; v < p.size(); ++v) {
      const partition::MultiOption& op = p.options[v][static_cast<size_t>(s.option[v])];
      if (op.engine != static_cast<int>(e)) continue;
      busy += op.duration;
      ++ops;
    }
    o += (e ? "; " : "") + p.engines[e].name + " " + std::to_string(ops) + " operators, busy " +
         t(busy);
    if (p.engines[e].capacity >= 0)
      o += ", " + std::to_string(cap) + "/" + std::to_string(p.engines[e].capacity) + " crossbars";
  }
  o += "\n";
  if (has_reprogramming(p)) {
    const std::vector<partition::MultiWear> w = partition::multi_wear(p, s.option);
    o += "reprogramming (modelled; the weights of a reprogrammed operator are written before it "
         "runs, at every inference, into an area the engine's reprogrammed operators share):\n";
    for (size_t e = 0; e < p.engines.size(); ++e) {
      if (!engine_reprograms(p, e)) continue;
      const partition::MultiWear& x = w[e];
      o += "  " + p.engines[e].name + ": " + std::to_string(x.reprogrammed) +
           " operators reprogrammed, reserved area " + std::to_string(x.reserved) + " crossbars, " +
           std::to_string(x.cells_written) + " cells written per inference (" + t(x.write_seconds) +
           ", " + en(x.write_energy) + ")";
      if (x.reprogrammed > 0) {
        std::snprintf(buf, sizeof buf, "%.4g inferences", x.lifetime_inferences);
        char e_buf[64];
        std::snprintf(e_buf, sizeof e_buf, "%.4g", p.engines[e].endurance);
        o += "; endurance " + std::string(e_buf) + " writes per cell -> lifetime " + buf +
             " (the area's first cell is written by every reprogrammed operator, no wear "
             "levelling; endurance from " +
             p.engines[e].endurance_source + ")";
      }
      o += "\n";
    }
  }
  return o;
}

nlohmann::json multi_partition_json(const MultiPartitionRun& r) {
  const partition::MultiProblem& p = r.problem->problem;
  const partition::MultiSchedule& s = schedule_of(r);
  nlohmann::json j;
  j["model"] = r.model;
  j["platform"] = r.platform;
  j["solver"] = r.milp ? "milp" : "exact";
  j["status"] = partition::solve_status_name(status_of(r));
  const bool none = s.option.empty();
  j["latency_s"] = none ? nlohmann::json() : nlohmann::json(s.makespan);
  j["energy_j"] = none ? nlohmann::json() : nlohmann::json(s.energy);
  j["objective"] = none ? nlohmann::json() : nlohmann::json(s.objective);
  if (r.milp) {
    const partition::MultiMilpResult& m = *r.milp;
    j["bound"] = m.bound;
    j["gap"] = none ? nlohmann::json() : nlohmann::json(m.gap);
    j["solve_seconds"] = m.seconds;
    j["nodes"] = m.nodes;
    j["milp"] = {{"binaries", m.stats.binaries},
                 {"continuous", m.stats.continuous},
                 {"rows", m.stats.rows},
                 {"machine_pairs", m.stats.machine_pairs},
                 {"transfer_pairs", m.stats.transfer_pairs},
                 {"big_m_s", m.stats.big_m_seconds},
                 {"time_unit_s", m.stats.time_unit_seconds}};
  } else {
    j["bound"] = r.solve->bound;
    j["solve_seconds"] = r.solve->seconds;
    j["nodes"] = r.solve->nodes;
    j["leaves"] = r.solve->leaves;
    j["seq_nodes"] = r.solve->seq_nodes;
    if (!r.solve->incumbent.empty()) j["incumbent"] = r.solve->incumbent;
  }
  j["engines"] = nlohmann::json::array();
  for (const partition::MultiEngine& e : p.engines)
    j["engines"].push_back(
        {{"name", e.name}, {"one_at_a_time", e.one_at_a_time}, {"capacity", e.capacity}});
  j["operators"] = nlohmann::json::array();
  for (size_t v = 0; v < s.option.size(); ++v) {
    const partition::MultiOption& op = p.options[v][static_cast<size_t>(s.option[v])];
    j["operators"].push_back({{"name", p.names[v]},
                              {"engine", p.engines[static_cast<size_t>(op.engine)].name},
                              {"option", op.label},
                              {"cycles", r.problem->cycles[v][static_cast<size_t>(s.option[v])]},
                              {"start_s", s.start[v]},
                              {"finish_s", s.finish[v]},
                              {"energy_j", op.energy},
                              {"capacity", op.capacity}});
    if (has_reprogramming(p)) j["operators"].back()["reprogrammed"] = op.reprogram;
  }
  if (has_reprogramming(p) && !none) {
    const std::vector<partition::MultiWear> w = partition::multi_wear(p, s.option);
    nlohmann::json rj = nlohmann::json::array();
    for (size_t e = 0; e < p.engines.size(); ++e) {
      if (!engine_reprograms(p, e)) continue;
      const partition::MultiWear& x = w[e];
      rj.push_back({{"engine", p.engines[e].name},
                    {"operators_reprogrammed", x.reprogrammed},
                    {"reserved_crossbars", x.reserved},
                    {"cells_written_per_inference", x.cells_written},
                    {"write_time_s", x.write_seconds},
                    {"write_energy_j", x.write_energy},
                    {"endurance_writes_per_cell", p.engines[e].endurance},
                    {"lifetime_inferences",
                     x.reprogrammed > 0 ? nlohmann::json(x.lifetime_inferences) : nlohmann::json()},
                    {"lifetime_model",
                     "endurance / reprogrammed operators: the shared area's first cell is "
                     "written by each, no wear levelling"},
                    {"source", "modelled; endurance and write figures from " +
                                   p.engines[e].endurance_source}});
    }
    j["reprogramming"] = rj;
  }
  j["job_order"] = s.order;
  j["provenance"] = formats::provenance_json(r.provenance);
  return j;
}

std::string multi_gantt_svg(const MultiPartitionRun& r) {
  const partition::MultiProblem& p = r.problem->problem;
  const partition::MultiSchedule& s = schedule_of(r);
  const partition::MultiMachines m = partition::multi_machines(p);
  const FigureStyle& st = figure_style();
  const std::string palette[] = {st.host, st.accel, "#d9a441", "#8c6bb1", "#4daf4a", "#e41a1c"};
  GanttChart c;
  c.heading = r.model + " on " + r.platform + ": latency " + t(s.makespan) + ", energy " +
              en(s.energy) + " (modelled), " + partition::solve_status_name(status_of(r));
  c.span = s.makespan;
  // Lanes: every engine (engines that run jobs in parallel get as many lanes as overlap), then
  // every serial link.
  for (size_t e = 0; e < p.engines.size(); ++e) {
    std::vector<size_t> ops;
    std::vector<double> start, finish;
    for (size_t v = 0; v < s.option.size(); ++v)
      if (p.options[v][static_cast<size_t>(s.option[v])].engine == static_cast<int>(e)) {
        ops.push_back(v);
        start.push_back(s.start[v]);
        finish.push_back(s.finish[v]);
      }
    size_t lanes = 1;
    const std::vector<size_t> lane = pack_lanes(start, finish, lanes);
    const size_t first = c.lanes.size();
    for (size_t k = 0; k < ops.size(); ++k) {
      const size_t v = ops[k];
      const partition::MultiOption& op = p.options[v][static_cast<size_t>(s.option[v])];
      c.bars.push_back({first + lane[k], s.start[v], s.finish[v], palette[e % 6],
                        p.names[v] + " (" + op.label + ", " + t(s.finish[v] - s.start[v]) + ")", "",
                        "#000"});
    }
    for (size_t l = 0; l < lanes; ++l)
      c.lanes.push_back(p.engines[e].name + (lanes > 1 ? " " + std::to_string(l) : ""));
  }
  for (size_t l = 0; l < p.links.size(); ++l) {
    if (m.link_machine[l] < 0) continue;
    const size_t lane = c.lanes.size();
    c.lanes.push_back("link " + p.links[l].name);
    for (const partition::MultiTransfer& tr : s.transfers)
      if (tr.link == static_cast<int>(l))
        c.bars.push_back(
            {lane, tr.start, tr.finish, st.bus,
             "transfer " +
                 p.names[static_cast<size_t>(p.dag.edges[static_cast<size_t>(tr.edge)].first)],
             "", "#000"});
  }
  c.metadata = {r.model + " on " + r.platform + ": schedule",
                "Gantt chart of the schedule on the platform's engines and links",
                provenance_caption(r.provenance),
                "hetcim " + r.provenance.version + " (" + r.provenance.commit + ")"};
  return gantt_svg(c);
}

}  // namespace hetcim::report
