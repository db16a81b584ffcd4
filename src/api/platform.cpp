#include "api/platform.h"

#include "api/common.h"
#include "passes/pipeline.h"
#include "util/error.h"

namespace hetcim::api {

void PlatformPartitionRequest::validate() const {
  if (platform.empty()) throw user_error("platform: expected a preset name or a YAML file");
  if (imas) check_range("imas", *imas, int64_t{1}, int64_t{4096});
  if (objective != "latency" && objective != "energy")
    throw user_error("objective: expected latency or energy, got '", objective, "'");
  check_range("time_limit", time_limit, 1e-9, 1e9);
  check_range("node_limit", node_limit, int64_t{0}, int64_t{1} << 62);
  if (solver != "exact" && solver != "milp")
    throw user_error("solver: expected exact or milp, got '", solver, "'");
  check_range("gap", gap, 0.0, 1.0);
  check_range("threads", threads, 1, 256);
  if (solver == "exact" && (gap != 0.0 || threads != 1))
    throw user_error("gap and threads apply to the MILP solver only (solver = milp)");
  if (solver == "milp" && node_limit != 0)
    throw user_error("node_limit applies to the exact solver only (solver = exact)");
}

PlatformPartitionResult partition_on_platform(const Model& model,
                                              const PlatformPartitionRequest& request) {
  request.validate();
  PlatformPartitionResult r;
  r.model = model.spec;
  r.platform = request.platform;
  r.description = platform::resolve_platform(request.platform, request.imas);
  const graph::Graph lowered = passes::lower(model.graph, {});
  r.problem = platform::build_platform_problem(lowered, r.description, request.objective);
  r.status.origin = Origin::Solved;
  r.provenance = library_provenance();
  r.provenance.set("platform", r.platform + " (" + r.description.name + ")");
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
    r.solve = partition::solve_multi_exact(r.problem.problem, o);
    r.status.conclusion = r.solve.status;
    r.provenance.set("solver", "exact K-engine solver (hetcim, partition/multi_exact.h)");
    r.provenance.set("status", partition::solve_status_name(r.solve.status));
  }
  r.provenance.set("objective", request.objective);
  r.provenance.set("cache", "none (solved in this run)");
  r.provenance.set("seeds", "none (deterministic)");
  return r;
}

}  // namespace hetcim::api
