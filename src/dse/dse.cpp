#include "dse/dse.h"

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "dist/dist.h"
#include "dse/entry_check.h"
#include "dse/grid.h"
#include "partition/energy.h"
#include "partition/exact.h"
#include "partition/milp.h"
#include "partition/summary.h"
#include "util/error.h"

namespace hetcim::dse {
namespace {

partition::MilpOptions milp_options(const DseOptions& o) {
  partition::MilpOptions mo;
  mo.time_limit_seconds = o.milp_time_limit;
  return mo;
}

}  // namespace

std::string dse_cache_key(const partition::Problem& p, const DseOptions& o) {
  KeyHasher h;
  h.start("hetcim-dse-v4", p.size(), p.dag.edges);  // v4: entries carry their key and plan
  for (size_t v = 0; v < p.size(); ++v) {
    h.str(p.names[v]);
    h.num(p.t_host[v]);
    for (const partition::AccMode& m : p.acc[v]) {
      h.num(m.crossbars);
      h.num(m.t_acc);
    }
    h.num(p.t_out[v]);
    h.num(int64_t{-1});
  }
  for (double t : p.t_transfer) h.num(t);
  h.num(static_cast<int64_t>(p.transfer_model));
  if (p.bus_model != partition::BusModel::Parallel) h.num(static_cast<int64_t>(p.bus_model) + 100);
  h.num(p.crossbar_budget);
  for (double e : p.e_host) h.num(e);
  for (const auto& modes : p.acc)
    for (const partition::AccMode& m : modes) h.num(m.energy);
  for (double e : p.e_transfer) h.num(e);
  for (double e : p.e_out) h.num(e);
  h.num(p.p_cim_static);
  h.num(p.p_host_idle);
  // Every solver option: the exact solver's limit, whether the MILP runs and with which options.
  h.num(o.exact_time_limit);
  h.num(static_cast<int64_t>(o.run_milp));
  if (o.run_milp) {
    const partition::MilpOptions mo = milp_options(o);
    h.num(mo.time_limit_seconds);
    h.num(mo.relative_gap);
    h.num(static_cast<int64_t>(mo.threads));
    h.num(static_cast<int64_t>(mo.seed));
    h.num(static_cast<int64_t>(mo.binary_z));
    h.num(mo.time_unit_seconds);
  }
  return h.key();
}

namespace {

// A point's cache entry: its key and plan (replayed when read: entry_check.h) with the solver's
// fields.
nlohmann::json to_json(const DsePoint& d, const partition::Schedule& plan, const std::string& key) {
  nlohmann::json j = entry_header(key);
  j.update(nlohmann::json{{"status", d.status},
                          {"latency", d.latency},
                          {"cpu_only", d.cpu_only},
                          {"speedup", d.speedup},
                          {"bound", d.bound},
                          {"seconds", d.seconds},
                          {"host_ops", d.host_ops},
                          {"cim_ops", d.cim_ops},
                          {"crossbars_used", d.crossbars_used},
                          {"host_busy", d.host_busy},
                          {"cim_busy", d.cim_busy},
                          {"nodes", d.nodes},
                          {"energy", d.energy},
                          {"cpu_only_energy", d.cpu_only_energy},
                          {"milp_run", d.milp_run},
                          {"milp_status", d.milp_status},
                          {"milp_objective", d.milp_objective},
                          {"milp_bound", d.milp_bound},
                          {"milp_gap", d.milp_gap},
                          {"milp_seconds", d.milp_seconds}});
  j.update(plan_fields(plan));
  return j;
}

// Why a cache entry's content cannot be a solution of this point ("" when it can). Checked:
// finite non-negative numbers, a known status, the operator split, the crossbar budget, busy
// times and the bound within the latency, the speedup equal to CPU-only / latency.
std::string implausible_entry(const DsePoint& d) {
  const auto finite_nonneg = [](double v) { return std::isfinite(v) && v >= 0; };
  if (d.status != "optimal" && d.status != "time-limit")
    return "status '" + d.status + "' (expected optimal or time-limit)";
  for (const auto& [v, name] :
       {std::pair{d.latency, "latency"}, std::pair{d.cpu_only, "cpu_only"},
        std::pair{d.speedup, "speedup"}, std::pair{d.bound, "bound"},
        std::pair{d.seconds, "seconds"}, std::pair{d.host_busy, "host_busy"},
        std::pair{d.cim_busy, "cim_busy"}, std::pair{d.energy, "energy"},
        std::pair{d.cpu_only_energy, "cpu_only_energy"}})
    if (!finite_nonneg(v)) return std::string(name) + " " + std::to_string(v) + " (expected >= 0)";
  if (!(d.latency > 0) || !(d.cpu_only > 0)) return "a latency of 0";
  const double tol = 1e-9 * d.latency;
  if (d.bound > d.latency + tol) return "a bound above the latency";
  if (d.host_busy > d.latency + tol || d.cim_busy > d.latency + tol)
    return "a busy time above the latency";
  if (d.latency > d.cpu_only * (1 + 1e-9)) return "a latency above the CPU-only latency";
  if (std::fabs(d.speedup - d.cpu_only / d.latency) > 1e-6 * d.speedup)
    return "a speedup that is not cpu_only / latency";
  if (d.host_ops < 0 || d.cim_ops < 0 || d.host_ops + d.cim_ops != d.operators)
    return "host_ops + cim_ops != " + std::to_string(d.operators) + " operators";
  if (d.crossbars_used < 0 || d.crossbars_used > d.crossbars)
    return "crossbars_used outside [0, " + std::to_string(d.crossbars) + "]";
  if (d.nodes < 0) return "a negative node count";
  if (d.milp_run && !(std::isfinite(d.milp_seconds) && d.milp_seconds >= 0))
    return "negative MILP seconds";
  return "";
}

// The solver's fields of a point from its cache entry's JSON (nlohmann::json::exception when a
// field is missing or of the wrong type). Doubles go through JSON exactly (shortest round-trip
// digits), so a point read back equals the point written.
void read_point(const nlohmann::json& j, DsePoint& d) {
  d.status = j.at("status");
  d.latency = j.at("latency");
  d.cpu_only = j.at("cpu_only");
  d.speedup = j.at("speedup");
  d.bound = j.at("bound");
  d.seconds = j.at("seconds");
  d.host_ops = j.at("host_ops");
  d.cim_ops = j.at("cim_ops");
  d.crossbars_used = j.at("crossbars_used");
  d.host_busy = j.at("host_busy");
  d.cim_busy = j.at("cim_busy");
  d.nodes = j.at("nodes");
  d.energy = j.at("energy");
  d.cpu_only_energy = j.at("cpu_only_energy");
  d.milp_run = j.at("milp_run");
  d.milp_status = j.at("milp_status");
  // A MILP without a solution has no objective, bound or gap: JSON writes NaN as null.
  const auto maybe_nan = [&](const char* key) {
    const nlohmann::json& v = j.at(key);
    return v.is_null() ? std::nan("") : v.get<double>();
  };
  d.milp_objective = maybe_nan("milp_objective");
  d.milp_bound = maybe_nan("milp_bound");
  d.milp_gap = maybe_nan("milp_gap");
  d.milp_seconds = j.at("milp_seconds");
}

// Reads cache entry `j` of point `d` (problem `p`, key `key`): "" when it answers the point.
std::string take_entry(const nlohmann::json& j, const partition::Problem& p, const std::string& key,
                       DsePoint& d) {
  read_point(j, d);
  if (std::string why = implausible_entry(d); !why.empty()) return why;
  // Its plan replayed on this point's problem: the numbers and the status must follow from it.
  if (std::string why = entry_mismatch(p, key, j, d); !why.empty()) return why;
  d.cached = true;
  return "";
}

// Solves a point into `d` and returns its plan.
partition::Schedule solve_point(const partition::Problem& p, const DseOptions& o, DsePoint& d) {
  partition::ExactOptions eo;
  eo.time_limit_seconds = o.exact_time_limit;
  const partition::ExactResult e = partition::solve_exact(p, eo);
  d.status = partition::solve_status_name(e.status);
  // A limited solve whose bound already meets its plan's objective has proven it optimal (the
  // rule the cache's check derives the status by).
  if (e.status == partition::SolveStatus::TimeLimit ||
      e.status == partition::SolveStatus::NodeLimit)
    d.status = derived_status(e.bound, e.objective, d.status);
  d.bound = e.bound;
  d.seconds = e.seconds;
  d.nodes = e.nodes;
  derive_point_fields(p, e.schedule, d);
  if (o.run_milp) {
    const partition::MilpResult m = partition::solve_milp(p, milp_options(o));
    d.milp_run = true;
    d.milp_status = m.call == partition::CallStatus::Ok ? partition::solve_status_name(m.status)
                                                        : "solver-failed";
    d.milp_objective = m.objective;
    d.milp_bound = m.bound;
    d.milp_gap = m.gap;
    d.milp_seconds = m.seconds;
  }
  return e.schedule;
}

}  // namespace

std::vector<DsePoint> run_dse(const std::vector<DseModel>& models,
                              const std::vector<DseHost>& hosts, const DseOptions& o,
                              const Progress& progress) {
  if (o.threads < 1) throw user_error("dse: threads must be >= 1");
  if (o.crossbars.empty() || o.t_mvm.empty()) throw user_error("dse: empty crossbar or T_mvm grid");
  for (const DseHost& h : hosts)
    HETCIM_ASSERT(h.costs.size() == models.size(), "host ", h.name, " has costs for ",
                  h.costs.size(), " of ", models.size(), " models");
  // The grid in output order: model, host, crossbars, t_mvm. Every rank builds the same grid.
  struct Job {
    size_t model, host;
    int64_t crossbars;
    double t_mvm;
  };
  std::vector<Job> jobs;
  for (size_t m = 0; m < models.size(); ++m)
    for (size_t h = 0; h < hosts.size(); ++h)
      for (int64_t c : o.crossbars)
        for (double t : o.t_mvm) jobs.push_back({m, h, c, t});
  const auto problem_of = [&](const Job& j) {
    cost::Hardware hw = hosts[j.host].hardware;
    hw.cim.crossbars = j.crossbars;
    hw.cim.t_mvm = j.t_mvm;
    return partition::build_problem(models[j.model].workload, hosts[j.host].costs[j.model], hw,
                                    o.build);
  };
  const bool root = !o.over_ranks || dist::is_root();
  std::vector<DsePoint> points(root ? jobs.size() : 0);
  GridPoints grid;
  grid.count = jobs.size();
  grid.prepare = [&](size_t i) {
    const Job& j = jobs[i];
    const DseModel& model = models[j.model];
    const DseHost& host = hosts[j.host];
    DsePoint& d = points[i];
    d.model = model.name;
    d.host = host.name;
    d.host_source = host.source.empty() ? host.costs[j.model].source : host.source;
    d.crossbars = j.crossbars;
    d.t_mvm = j.t_mvm;
    const workload::Totals& t = model.workload.totals;
    d.operators = t.operators;
    d.edges = t.edges;
    d.parallel_pairs = t.parallel_pairs;
    d.offloadable = t.offloadable;
    d.milp_binaries = t.milp_variables;
    d.milp_constraints = t.milp_constraints;
    auto p = std::make_shared<const partition::Problem>(problem_of(j));
    PreparedPoint pp;
    pp.key = dse_cache_key(*p, o);
    // The exact solver's work grows with the operators and the pairs that may run in parallel
    // (YOLOv5n's points cost about 100x ResNet-18's): the largest first.
    pp.cost = static_cast<double>(t.operators) * static_cast<double>(1 + t.parallel_pairs);
    pp.take_entry = [p, key = pp.key, point = &d](const nlohmann::json& e) {
      return take_entry(e, *p, key, *point);
    };
    pp.describe = d.model + ", " + d.host + ", " + std::to_string(d.crossbars) + " crossbars";
    return pp;
  };
  grid.solve = [&](size_t i) {
    const partition::Problem p = problem_of(jobs[i]);
    DsePoint d;
    const partition::Schedule plan = solve_point(p, o, d);
    return to_json(d, plan, dse_cache_key(p, o));
  };
  grid.take_solved = [&](size_t i, const nlohmann::json& entry, int rank) {
    read_point(entry, points[i]);
    points[i].rank = rank;
  };
  run_grid(
      {"dse", "model and host", o.cache_dir, o.threads, o.over_ranks, o.on_cache_warning, progress},
      grid);
  return points;
}

}  // namespace hetcim::dse
