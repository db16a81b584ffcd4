#include "dse/platform_dse.h"

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "dist/dist.h"
#include "dse/entry_check.h"
#include "dse/grid.h"
#include "partition/solve_by_shape.h"
#include "platform/build.h"
#include "util/error.h"

namespace hetcim::dse {
namespace {

// A point's cache entry: its key and plan (replayed when read: entry_check.h) and the solver's
// fields.
nlohmann::json to_json(const PlatformDsePoint& d, const partition::MultiSchedule& plan,
                       const std::string& key) {
  nlohmann::json j = entry_header(key);
  j.update(nlohmann::json{{"status", d.status},
                          {"latency", d.latency},
                          {"energy", d.energy},
                          {"objective", d.objective},
                          {"bound", d.bound},
                          {"seconds", d.seconds},
                          {"nodes", d.nodes},
                          {"operators_on", d.operators_on},
                          {"capacity_used", d.capacity_used}});
  j.update(multi_plan_fields(plan));
  return j;
}

void read_point(const nlohmann::json& j, PlatformDsePoint& d) {
  d.status = j.at("status");
  d.latency = j.at("latency");
  d.energy = j.at("energy");
  d.objective = j.at("objective");
  d.bound = j.at("bound");
  d.seconds = j.at("seconds");
  d.nodes = j.at("nodes");
  d.operators_on = j.at("operators_on").get<std::vector<int64_t>>();
  d.capacity_used = j.at("capacity_used").get<std::vector<int64_t>>();
  d.option = j.at("option").get<std::vector<int>>();  // checked by platform_entry_mismatch
}

// Why a cache entry cannot be a solution of this point ("" when it can).
std::string implausible_entry(const PlatformDsePoint& d) {
  if (d.status != "optimal" && d.status != "time-limit" && d.status != "node-limit")
    return "status '" + d.status + "' (expected optimal, time-limit or node-limit)";
  for (const auto& [v, name] : {std::pair{d.latency, "latency"}, std::pair{d.energy, "energy"},
                                std::pair{d.objective, "objective"}, std::pair{d.bound, "bound"},
                                std::pair{d.seconds, "seconds"}})
    if (!std::isfinite(v) || v < 0) return std::string(name) + " not finite and >= 0";
  if (d.bound > d.objective * (1 + 1e-9)) return "a bound above the objective";
  if (d.operators_on.size() != d.engines.size() || d.capacity_used.size() != d.engines.size())
    return "per-engine counts for another number of engines";
  int64_t ops = 0;
  for (int64_t k : d.operators_on) ops += k < 0 ? d.operators + 1 : k;
  if (ops != d.operators) return "operator counts that do not add up to the operators";
  if (d.nodes < 0) return "a negative node count";
  return "";
}

// Solves a point into `d` and returns its plan.
partition::MultiSchedule solve_point(const partition::MultiProblem& p, const PlatformDseOptions& o,
                                     PlatformDsePoint& d) {
  partition::MultiExactOptions eo;
  eo.time_limit_seconds = o.time_limit;
  const partition::MultiExactResult r = partition::solve_by_shape(p, eo);
  d.status = partition::solve_status_name(r.status);
  if (r.status != partition::SolveStatus::Optimal &&
      r.status != partition::SolveStatus::TimeLimit &&
      r.status != partition::SolveStatus::NodeLimit)
    throw user_error("platform dse: no mapping of this grid point (", d.status,
                     "): the engines that every operator needs cannot hold or reach it");
  // A limited solve whose bound meets its plan's objective has proven it (the cache check's rule).
  if (r.status != partition::SolveStatus::Optimal)
    d.status = derived_status(r.bound, r.objective, d.status);
  d.latency = r.schedule.makespan;
  d.energy = r.schedule.energy;
  d.objective = r.objective;
  d.bound = r.bound;
  d.seconds = r.seconds;
  d.nodes = r.nodes;
  d.operators_on.assign(p.engines.size(), 0);
  for (size_t v = 0; v < p.size(); ++v)
    ++d.operators_on[static_cast<size_t>(
        p.option(static_cast<int>(v), r.schedule.option[v]).engine)];
  d.capacity_used = partition::multi_capacity_used(p, r.schedule.option);
  d.option = r.schedule.option;
  return r.schedule;
}

}  // namespace

std::string platform_dse_cache_key(const partition::MultiProblem& p, const PlatformDseOptions& o) {
  KeyHasher h;
  h.start("hetcim-platform-dse-v2", p.size(), p.dag.edges);  // v2: entries carry key and plan
  for (double b : p.edge_bytes) h.num(b);
  for (size_t v = 0; v < p.size(); ++v) {
    h.str(p.names[v]);
    for (const partition::MultiOption& k : p.options[v]) {
      h.num(static_cast<int64_t>(k.engine));
      h.num(k.duration);
      h.num(k.energy);
      h.num(k.capacity);
      h.str(k.label);
      if (k.reprogram) {  // hashed only when set: keys without reprogramming stay as they were
        h.str("reprogram");
        h.num(k.cells_written);
      }
    }
    h.num(int64_t{-1});
  }
  for (const partition::MultiEngine& e : p.engines) {
    h.str(e.name);
    h.num(static_cast<int64_t>(e.one_at_a_time));
    h.num(e.capacity);
    h.num(e.static_power);
    h.num(e.idle_power);
    if (e.endurance > 0) h.num(e.endurance);
  }
  for (const std::vector<int>& g : p.exclusive) {
    for (int e : g) h.num(static_cast<int64_t>(e));
    h.num(int64_t{-1});
  }
  for (const partition::MultiLink& l : p.links) {
    h.str(l.name);
    for (int e : l.engines) h.num(static_cast<int64_t>(e));
    h.num(l.latency);
    h.num(l.bandwidth);
    h.num(static_cast<int64_t>(l.serial));
    h.num(l.e_byte);
  }
  h.num(p.latency_weight);
  h.num(p.energy_weight);
  h.str(o.objective);
  h.num(o.time_limit);
  return h.key();
}

std::vector<PlatformDsePoint> run_platform_dse(
    const std::vector<PlatformDseModel>& models, const platform::Platform& base,
    const std::vector<platform::SweepAxis>& axes, const PlatformDseOptions& o,
    const std::function<void(size_t done, size_t total)>& progress) {
  if (o.threads < 1) throw user_error("platform dse: threads must be >= 1");
  if (models.empty()) throw user_error("platform dse: no model");
  if (!(o.time_limit > 0)) throw user_error("platform dse: time limit must be > 0");
  const std::vector<std::vector<std::string>> grid = platform::sweep_grid(axes);
  // Every grid point's platform, checked before anything is solved.
  std::vector<platform::Platform> platforms;
  for (const std::vector<std::string>& values : grid) {
    platform::Platform pf = base;
    for (size_t a = 0; a < axes.size(); ++a) platform::apply_sweep(pf, axes[a].key, values[a]);
    platform::validate(pf, pf.name);
    platforms.push_back(std::move(pf));
  }
  struct Job {
    size_t model, point;
  };
  std::vector<Job> jobs;
  for (size_t m = 0; m < models.size(); ++m)
    for (size_t g = 0; g < grid.size(); ++g) jobs.push_back({m, g});
  const auto problem_of = [&](const Job& j) {
    return platform::build_platform_problem(models[j.model].lowered, platforms[j.point],
                                            o.objective);
  };
  const bool root = !o.over_ranks || dist::is_root();
  std::vector<PlatformDsePoint> points(root ? jobs.size() : 0);
  GridPoints run;
  run.count = jobs.size();
  run.prepare = [&](size_t i) {
    auto pp = std::make_shared<const platform::PlatformProblem>(problem_of(jobs[i]));
    PlatformDsePoint& d = points[i];
    d.model = models[jobs[i].model].name;
    d.values = grid[jobs[i].point];
    d.operators = static_cast<int64_t>(pp->problem.size());
    for (const partition::MultiEngine& e : pp->problem.engines) d.engines.push_back(e.name);
    PreparedPoint p;
    p.key = platform_dse_cache_key(pp->problem, o);
    p.cost = static_cast<double>(d.operators);
    p.take_entry = [pp, key = p.key, point = &d](const nlohmann::json& j) {
      PlatformDsePoint& d = *point;
      read_point(j, d);
      std::string why = implausible_entry(d);
      // Its plan replayed on this point's problem: numbers and status must follow from it.
      if (why.empty()) why = platform_entry_mismatch(pp->problem, key, j, d);
      d.cached = why.empty();
      return why;
    };
    p.describe = d.model;
    return p;
  };
  run.solve = [&](size_t i) {
    const platform::PlatformProblem pp = problem_of(jobs[i]);
    PlatformDsePoint d;
    const partition::MultiSchedule plan = solve_point(pp.problem, o, d);
    return to_json(d, plan, platform_dse_cache_key(pp.problem, o));
  };
  run.take_solved = [&](size_t i, const nlohmann::json& entry, int rank) {
    read_point(entry, points[i]);
    points[i].rank = rank;
  };
  run_grid({"platform dse", "model and platform", o.cache_dir, o.threads, o.over_ranks,
            o.on_cache_warning, progress},
           run);
  return points;
}

}  // namespace hetcim::dse
