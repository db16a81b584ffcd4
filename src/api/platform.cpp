#include "api/platform.h"

#include <exception>
#include <filesystem>

#include "api/common.h"
#include "dist/dist.h"
#include "dse/sweep_notes.h"
#include "partition/solve_by_shape.h"
#include "passes/pipeline.h"
#include "platform/problem_json.h"
#include "util/error.h"
#include "util/paper_names.h"
#include "util/units.h"

namespace hetcim::api {
namespace {

// "pulp-pcm-cluster", or "examples/my_soc.yaml (my-soc)": the platform as given and, when it
// says more, the name of its description (a preset by the machine's name, util/paper_names.h).
std::string platform_label(const std::string& given, const std::string& name) {
  const std::string shown = preset_shown(name);
  return shown == preset_shown(given) ? shown : given + " (" + shown + ")";
}

}  // namespace

namespace {

// partition_on_platform's calls take a request with a platform.
void validate_platform(const PartitionRequest& request) {
  request.validate();
  if (request.platform.empty()) throw user_error("platform: expected a preset name or a YAML file");
}

}  // namespace

PlatformPartitionProblem build_platform_partition_problem(const Model& model,
                                                          const PartitionRequest& request) {
  validate_platform(request);
  PlatformPartitionProblem p;
  p.model = model.spec;
  p.platform = request.platform;
  p.description = platform::resolve_platform(request.platform, request.imas, request.reprogram);
  // Seed 000's overrides: the platform's sweep keys of the same meaning on its one point.
  platform::Platform& d = p.description;
  const HardwareRequest& h = request.hardware;
  if (h.crossbars) platform::apply_sweep(d, "crossbars", std::to_string(*h.crossbars));
  if (h.t_mvm) platform::apply_t_mvm(d, *h.t_mvm);
  if (request.replicas != 1) platform::apply_sweep(d, "replicas", std::to_string(request.replicas));
  if (!h.host.empty()) platform::apply_sweep(d, "host", h.host);
  if (request.bus_model)
    platform::apply_sweep(d, "serial", *request.bus_model == "serial" ? "true" : "false");
  const graph::Graph lowered = passes::lower(model.graph, {});
  p.problem = platform::build_platform_problem(lowered, p.description, request.objective);
  return p;
}

std::string platform_milp_text(const PlatformPartitionProblem& p,
                               partition::MilpFileFormat format) {
  return partition::multi_milp_file_text(p.problem.problem, format);
}

std::string platform_problem_json(const PlatformPartitionProblem& p) {
  return platform::problem_json(p.problem, p.model, p.platform).dump(1) + "\n";
}

PlatformPartitionResult partition_on_platform(const Model& model, const PartitionRequest& request) {
  return partition_on_platform(build_platform_partition_problem(model, request), request);
}

PlatformPartitionResult partition_on_platform(const PlatformPartitionProblem& problem,
                                              const PartitionRequest& request) {
  validate_platform(request);
  PlatformPartitionResult r;
  r.model = problem.model;
  r.platform = problem.platform;
  r.description = problem.description;
  r.problem = problem.problem;
  r.status.origin = Origin::Solved;
  r.provenance = library_provenance();
  r.provenance.set("platform", platform_label(r.platform, r.description.name));
  r.provenance.set("costs", r.problem.costs);
  if (request.solver == "milp") {
    partition::MultiMilpOptions o;
    o.time_limit_seconds = request.time_limit;
    o.relative_gap = request.gap;
    o.threads = request.threads;
    r.milp = partition::solve_multi_milp(r.problem.problem, o);
    r.status.call = r.milp->call;
    r.status.message = r.milp->message;
    r.status.conclusion = r.milp->status;
    r.provenance.set("solver", "K-engine MILP on COIN-OR CBC (partition/multi_milp.h), seed " +
                                   std::to_string(o.seed) + ", " + std::to_string(o.threads) +
                                   " thread(s)");
    r.provenance.set("status", partition::solve_status_name(r.milp->status));
  } else {
    partition::MultiExactOptions o;
    o.time_limit_seconds = request.time_limit;
    o.node_limit = request.node_limit;
    // The two-device solver where the platform has seed 000's shape, the K-engine one otherwise.
    r.solve = partition::solve_by_shape(r.problem.problem, o);
    r.status.conclusion = r.solve.status;
    r.provenance.set("solver", r.solve.solver);
    r.provenance.set("status", partition::solve_status_name(r.solve.status));
    if (!r.solve.incumbent.empty()) r.provenance.set("incumbent", r.solve.incumbent);
  }
  r.provenance.set("objective", request.objective);
  r.provenance.set("cache", "none (solved in this run)");
  r.provenance.set("seeds", "none (deterministic)");
  return r;
}

void PlatformDseRequest::validate() const {
  if (platform.empty()) throw user_error("platform: expected a preset name or a YAML file");
  if (imas) check_range("imas", *imas, int64_t{1}, int64_t{4096});
  if (models.empty()) throw user_error("models: expected at least one model");
  if (objective != "latency" && objective != "energy")
    throw user_error("objective: expected latency or energy, got '", objective, "'");
  check_range("time_limit", time_limit, 1e-9, 1e6);
  check_range("threads", threads, 1, 1024);
  std::vector<platform::SweepAxis> axes;
  for (const std::string& s : sweeps) axes.push_back(platform::parse_sweep(s));
  (void)platform::sweep_grid(axes);
}

PlatformDseResult run_platform_dse(const PlatformDseRequest& a,
                                   const std::function<void(size_t, size_t)>& progress,
                                   const std::function<void(const std::string&)>& cache_warning) {
  a.validate();
  PlatformDseResult r;
  std::vector<dse::PlatformDseModel> models;
  // Every rank of an MPI run reads the platform and the models itself (dist::agree).
  std::exception_ptr setup_failure;
  try {
    r.description = platform::resolve_platform(a.platform, a.imas);
    for (const std::string& s : a.sweeps) r.axes.push_back(platform::parse_sweep(s));
    for (const std::string& m : a.models) {
      const Model loaded = load_model(m, 1);
      models.push_back({std::filesystem::path(m).stem().string(), passes::lower(loaded.graph, {})});
    }
  } catch (...) {
    setup_failure = std::current_exception();
  }
  dist::agree(setup_failure);
  dse::PlatformDseOptions o;
  o.objective = a.objective;
  o.time_limit = a.time_limit;
  o.threads = a.threads;
  o.cache_dir = a.cache_dir;
  o.over_ranks = true;
  o.on_cache_warning = cache_warning;
  r.points = dse::run_platform_dse(models, r.description, r.axes, o, progress);
  r.status.origin = Origin::Solved;
  r.provenance = library_provenance();
  if (!dist::is_root()) return r;
  for (const dse::PlatformDsePoint& p : r.points) {
    r.cached += p.cached ? 1 : 0;
    r.optimal += p.status == "optimal" ? 1 : 0;
    if (!p.cached) r.solve_seconds += p.seconds;
  }
  r.status.conclusion = r.optimal == r.points.size() ? partition::SolveStatus::Optimal
                                                     : partition::SolveStatus::TimeLimit;
  r.provenance.set("platform", platform_label(a.platform, r.description.name));
  r.provenance.set("costs",
                   "modelled (platform/build.h: the cost model of every engine, per "
                   "grid point)");
  r.provenance.set("solver",
                   "exact solver chosen by the platform's shape (partition/solve_by_shape.h: "
                   "the two-device solver for Klein et al.'s host + crossbar accelerator + one "
                   "bus, "
                   "the K-engine solver otherwise), time limit " +
                       format_quantity(a.time_limit, Quantity::Time) + " per point");
  r.provenance.set("status", std::to_string(r.optimal) + " of " + std::to_string(r.points.size()) +
                                 " points proven optimal");
  r.provenance.set("objective", a.objective);
  r.provenance.set("cache", a.cache_dir.empty()
                                ? "off: every point solved in this run"
                                : a.cache_dir + ": " + std::to_string(r.cached) + " of " +
                                      std::to_string(r.points.size()) +
                                      " points read from it (key: problem content, commit " +
                                      r.provenance.commit + ", solver options)");
  r.provenance.set("seeds", "none (deterministic)");
  r.notes = dse::unchanged_axis_notes(models, r.description, r.axes, r.points, a.objective);
  return r;
}

}  // namespace hetcim::api
