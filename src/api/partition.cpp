#include "api/partition.h"

#include <numeric>
#include <set>

#include "accuracy/chip_eval.h"
#include "api/common.h"
#include "api/options.h"
#include "api/profile.h"
#include "cost/host_costs.h"
#include "formats/partition_file.h"
#include "partition/build.h"
#include "partition/exact.h"
#include "passes/pipeline.h"
#include "util/error.h"
#include "util/provenance.h"
#include "workload/workload.h"

namespace hetcim::api {
namespace {

// The fields a request with a platform takes, and those only a platform has.
const std::set<std::string> kWithPlatform = {
    "platform", "imas",      "reprogram", "objective",  "crossbars",  "t_mvm", "host",
    "replicas", "bus_model", "solver",    "time_limit", "node_limit", "gap",   "threads"};
const std::set<std::string> kPlatformOnly = {"imas", "reprogram", "objective"};

// The fields of partition_fields() whose name `keep` keeps.
FieldTable<PartitionRequest> fields_where(bool (*keep)(const std::string&)) {
  FieldTable<PartitionRequest> t;
  for (const Field<PartitionRequest>& f : partition_fields())
    if (keep(f.name)) t.push_back(f);
  return t;
}

// The calls of this file solve seed 000's two-device problem; a platform is api/platform.h's.
void validate_two_device(const PartitionRequest& request) {
  request.validate();
  if (!request.platform.empty())
    throw user_error("platform: ", request.platform,
                     " is mapped by partition_on_platform (api/platform.h; Python: "
                     "partition_platform); this call takes a two-device hardware (preset or hw)");
}

}  // namespace

const FieldTable<PartitionRequest>& partition_fields() {
  using R = PartitionRequest;
  static const FieldTable<R> table = concat<R>({
      nested(&R::hardware, hardware_fields()),
      FieldTable<R>{
          field("platform", &R::platform,
                "Map the network across the engines of a platform with the exact solver (the "
                "two-device one on a host + crossbar + one bus platform, the K-engine one "
                "otherwise; or --solver milp: the K-engine MILP on CBC): cortex-a72-rram, "
                "ryzen9-rram (Klein et al. 2026's machines), pulp-pcm-cluster (Garofalo et al. "
                "2022's cluster), or a platform YAML file (docs/platforms.md); --crossbars, "
                "--t-mvm, --replicas, --bus-model and --host "
                "set its sweep keys crossbars, t_mvm, replicas, serial and host"),
          field("imas", &R::imas,
                "With --platform: crossbars of the crossbar engine (pulp-pcm-cluster: IMA "
                "crossbars)")
              .range(1, 4096),
          field("reprogram", &R::reprogram,
                "With --platform: enable the platform's crossbar reprogramming "
                "(pulp-pcm-cluster: the IMA's PCM write figures; a YAML engine's `reprogramming` "
                "block): each crossbar operator resident or rewritten at every inference, as the "
                "solver decides; writes and endurance-limited lifetime reported"),
          field("objective", &R::objective,
                "With --platform: latency or energy (total energy, static power included)")
              .one_of({"latency", "energy"}),
      },
      problem_build_fields<R>(),
      FieldTable<R>{
          field("solver", &R::solver,
                "exact (our solver, proves optimality) or milp (the paper's MILP on CBC; with "
                "--platform, the K-engine MILP)")
              .one_of({"exact", "milp"}),
          field("time_limit", &R::time_limit, "Wall-clock limit of each solve")
              .with_unit(Quantity::Time)
              .range(1e-9, 1e6),
          field("node_limit", &R::node_limit,
                "Exact solver: stop after this many search nodes, branch-and-bound and sequencing "
                "(deterministic, unlike the time limit: the same limit gives the same result on "
                "any machine; 0 = none)")
              .range(0, 0x1p62),
          field("gap", &R::gap, "MILP: stop at this relative gap").range(0, 1),
          field("threads", &R::threads, "MILP: CBC threads (1 is deterministic)").range(1, 256),
          field("energy_weight", &R::energy_weight,
                "Beyond the paper: minimise latency + W x energy per inference (W in s/J; 0 = "
                "the paper's latency objective); energies from the hardware's energy model")
              .range(0, 1e12),
          field("replay", &R::replay,
                "Replay a partition file (as --json writes it: operator names and modes, "
                "optionally host_order/bus_order) instead of solving; checked against every "
                "constraint"),
          field("max_tightening", &R::max_tightening, "Verification: at most this many solves")
              .range(1, 1000),
          field("front", &R::front,
                "With --pareto/--pareto-svg: 'supported' (the weighted-sum points) or 'full' "
                "(every non-dominated point, those no weight reaches too)")
              .one_of({"supported", "full"}),
          field("eval_samples", &R::eval_samples,
                "Held-out evaluation: measure the returned plan once more on this many synthetic "
                "inputs the sensitivity file did not use (synthetic files only; a data set's "
                "held-out check is `hetcim execute --split test`)")
              .range(0, 0x1p24),
          field("eval_seed", &R::eval_seed,
                "Held-out evaluation: the seed of its synthetic inputs (must draw none of the "
                "file's inputs)"),
          // Accuracy as a second budget (issue 13).
          field("sensitivity", &R::sensitivity,
                "Accuracy: a sensitivity file from `hetcim sensitivity` (checked against the "
                "model, the chip and the seeds); the returned plan is re-evaluated on the chip"),
          field("max_accuracy_drop", &R::max_accuracy_drop,
                "Accuracy budget: points of top-1 accuracy, the sum of the operators' measured "
                "drops (unset: none)")
              .as_percent()
              .range(0, 1)
              .unset_when(-1.0),
      },
      nested(&R::accuracy, accuracy_check_fields()),
      FieldTable<R>{
          field("verify", &R::verify,
                "With max_accuracy_drop: tighten the solver's plan until its measured drop's "
                "upper interval end is within the budget (on by default)"),
          field("evaluate_plans", &R::evaluate_plans,
                "Re-evaluate the returned plans on the chip (on by default; off: predicted drops "
                "only)")
              .flag("--evaluate"),
      },
  });
  return table;
}

const FieldTable<PartitionRequest>& platform_fields() {
  static const FieldTable<PartitionRequest> t =
      fields_where([](const std::string& n) { return kWithPlatform.count(n) > 0; });
  return t;
}

const FieldTable<PartitionRequest>& two_device_fields() {
  static const FieldTable<PartitionRequest> t = fields_where(
      [](const std::string& n) { return n != "platform" && kPlatformOnly.count(n) == 0; });
  return t;
}

void PartitionRequest::validate() const {
  hardware.validate();
  check_fields(*this, partition_fields());
  // With a platform, the fields it takes (platform_fields); every other field keeps its default.
  // Without one, so do the platform's own.
  PartitionRequest& self = const_cast<PartitionRequest&>(*this);  // ref() needs R&; only read
  PartitionRequest defaults;
  for (const Field<PartitionRequest>& f : partition_fields()) {
    if (value_text(f, f.ref(self)) == value_text(f, f.ref(defaults))) continue;
    if (!platform.empty() && kWithPlatform.count(f.name) == 0)
      throw user_error(f.name, ": does not apply with a platform (platform ", platform,
                       " describes the engines, links and costs; see docs/platforms.md)");
    if (platform.empty() && kPlatformOnly.count(f.name) > 0)
      throw user_error(f.name, ": applies with a platform only (a preset or a YAML file)");
  }
  if (!platform.empty()) {
    if (hardware.crossbars)
      check_range("crossbars", *hardware.crossbars, int64_t{1}, int64_t{4096});
    if (hardware.crossbars && imas) throw user_error("crossbars: give crossbars or imas, not both");
    if (hardware.host == "this")
      throw user_error(
          "host: 'this' (measure this CPU now) is not taken with a platform; write "
          "a profile with `hetcim profile MODEL --csv FILE` and give that file");
    if (solver == "exact" && (gap != 0.0 || threads != 1))
      throw user_error("gap and threads apply to the MILP solver only (solver = milp)");
    if (solver == "milp" && node_limit != 0)
      throw user_error("node_limit applies to the exact solver only (solver = exact)");
    return;
  }
  if (max_accuracy_drop >= 0 || !sensitivity.empty()) {
    if (sensitivity.empty())
      throw user_error(
          "max_accuracy_drop: an accuracy budget needs a sensitivity file "
          "(hetcim sensitivity)");
    if (accuracy.chip.empty())
      throw user_error("chip: a sensitivity file needs the chip it was measured on (FILE:PROFILE)");
    if (!replay.empty() && max_accuracy_drop >= 0)
      throw user_error("max_accuracy_drop: a replayed partition is not solved; drop the budget");
  }
  if (eval_samples > 0 && sensitivity.empty())
    throw user_error(
        "eval_samples: a held-out evaluation needs a sensitivity file (hetcim sensitivity)");
  if (eval_samples > 0 && !evaluate_plans)
    throw user_error("eval_samples: a held-out evaluation evaluates the plan; drop no-evaluate");
}

PartitionProblem build_partition_problem(const Model& model, const PartitionRequest& request) {
  validate_two_device(request);
  PartitionProblem pp;
  pp.provenance = library_provenance();
  pp.model = model.spec;
  pp.hardware = request.hardware.label();
  pp.resolved = resolve_hardware(request.hardware);
  const cost::Hardware& hw = pp.resolved;

  const graph::Graph lowered = passes::lower(model.graph, {});
  const workload::Workload w = workload::analyze(lowered, cost::workload_options(hw.cim));
  cost::HostCosts host;
  if (request.hardware.host == "this") {
    host = cost::host_costs_from_profile(w, profile(model, request.host_measurement).profile,
                                         "this run", true);
    host.source = "measured on " + machine_description() + " in this run (" +
                  describe(request.host_measurement) + ")";
    // The hardware as a reader should name it: the host is this machine and only the accelerator
    // and the bus come from the preset or file.
    pp.hardware = "this machine as host + the CIM accelerator and bus of " + pp.hardware;
    pp.provenance.set("seeds", describe(request.host_measurement));
  } else {
    host = cost::host_costs(w, hw.host, /*int8=*/true);
  }
  pp.host_source = host.source;
  partition::BuildOptions bo;
  bo.max_replicas = request.replicas;
  bo.transfer_model = request.transfers == "per-edge"
                          ? partition::TransferModel::PerEdge
                          : partition::TransferModel::PerTensorDirection;
  bo.bus_model =
      request.bus_model == "serial" ? partition::BusModel::Serial : partition::BusModel::Parallel;
  pp.problem = partition::build_problem(w, host, hw, bo);
  if (!request.sensitivity.empty()) {
    AccuracySetup want = request.accuracy;
    pp.accuracy = load_accuracy_model(model, request.sensitivity, want);
    apply_accuracy(pp.problem, *pp.accuracy, request.max_accuracy_drop);
    if (request.eval_samples > 0 && pp.accuracy->file.id.dataset != "synthetic")
      throw user_error("eval_samples: sensitivity file ", request.sensitivity,
                       " was measured on data set '", pp.accuracy->file.id.dataset,
                       "' (field 'dataset.name'); a held-out evaluation draws synthetic inputs "
                       "(a data set's: hetcim execute on its test split)");
    pp.provenance.set("accuracy", "sensitivities of " + request.sensitivity + " (" +
                                      pp.accuracy->file.id.profile + ", " +
                                      std::to_string(pp.accuracy->file.id.samples) + " images of " +
                                      pp.accuracy->file.id.dataset + ")");
  }
  // What the solvers minimise: latency, or latency + weight * total energy folded into their
  // weighted dynamic objective (partition/energy_front.h); reports use `problem` as built.
  pp.energy_weight = request.energy_weight;
  pp.objective = request.energy_weight > 0
                     ? partition::with_total_energy_weight(pp.problem, request.energy_weight)
                     : pp.problem;
  pp.scale = 1 + request.energy_weight * (pp.problem.p_cim_static + pp.problem.p_host_idle);
  return pp;
}

namespace {

// One solve of `objective` as the request says, into r (run, schedule, status); false when CBC
// failed (r.status says why, r.provenance is set).
bool solve(const PartitionProblem& pp, const partition::Problem& objective,
           const PartitionRequest& request, PartitionResult& r) {
  if (request.solver == "exact") {
    partition::ExactOptions eo;
    eo.time_limit_seconds = request.time_limit;
    eo.node_limit = request.node_limit;
    const partition::ExactResult e = partition::solve_exact(objective, eo);
    r.run.status = e.status;
    r.run.bound = e.bound * pp.scale;
    r.run.seconds = e.seconds;
    r.run.nodes = e.nodes;
    r.run.incumbent = e.incumbent;
    r.schedule = e.schedule;
    r.status.origin = Origin::Solved;
    r.status.conclusion = e.status;
    return true;
  }
  partition::MilpOptions mo;
  mo.time_limit_seconds = request.time_limit;
  mo.relative_gap = request.gap;
  mo.threads = request.threads;
  const partition::MilpResult m = partition::solve_milp(objective, mo);
  r.status.origin = Origin::Solved;
  r.status.call = m.call;
  if (m.call != partition::CallStatus::Ok) {
    r.status.message = m.message;
    r.provenance = pp.provenance;
    return false;
  }
  r.run.status = m.status;
  r.run.bound = m.bound * pp.scale;
  r.run.seconds = m.seconds;
  r.run.nodes = m.nodes;
  r.schedule = m.schedule;
  if (m.status == partition::SolveStatus::NoSolution) {
    // CBC stopped at its limit before any plan (README's YOLOv5n MILP at 20 s): the all-host
    // plan, always feasible, as the exact solver returns then; the status says no MILP solution.
    r.schedule = partition::simulate_best(objective, partition::all_host(objective));
    r.run.incumbent = "the all-host plan (CBC found no plan within the time limit)";
  }
  r.status.conclusion = m.status;
  return true;
}

// The held-out evaluation of PartitionRequest::eval_samples on r's returned plan: the file's
// generator with another seed, refused when any input equals one of the calibration set's.
void evaluate_heldout(const PartitionProblem& pp, const PartitionRequest& request,
                      const PlanEvaluator& calibration, PartitionResult& r) {
  const AccuracyModel& m = *pp.accuracy;
  AccuracySetup held = m.setup;
  held.samples = request.eval_samples;
  held.input_seed = request.eval_seed;
  PlanEvaluator ev(m, held);
  const int64_t shared = accuracy::shared_inputs(calibration.set(), ev.set());
  if (shared > 0)
    throw user_error("eval_seed: ", request.eval_seed, " draws ", shared, " of its ",
                     request.eval_samples, " inputs equal to inputs of sensitivity file ",
                     m.file.path, " (field 'dataset.seed' ", m.setup.input_seed,
                     "); choose another seed");
  r.heldout = ev.evaluate(pp.problem, r.schedule.assignment);
  r.heldout_set = ev.set_description();
}

// The verification loop of PartitionRequest::verify on r's solved and evaluated plan.
bool tighten(const PartitionProblem& pp, const PartitionRequest& request, PlanEvaluator& ev,
             PartitionResult& r) {
  accuracy::Tightening t;
  t.budget = request.max_accuracy_drop;
  partition::Problem objective = pp.objective;
  std::string forbidden;
  // Within the budget up to rounding of the interval's bound (1e-12 of accuracy).
  const auto fits = [&](const accuracy::PlanAccuracy& a) {
    return a.measured.hi <= t.budget + 1e-12;
  };
  for (int step = 0;; ++step) {
    const int64_t used = partition::drop_used(pp.problem, r.schedule.assignment);
    t.steps.push_back(
        {objective.drop_budget_ppm, used, forbidden, r.schedule.makespan, *r.accuracy});
    forbidden.clear();
    t.verified = fits(*r.accuracy);
    if (t.verified || step + 1 >= request.max_tightening) break;
    if (used > 0) {
      const double hi = r.accuracy->measured.hi;
      objective.drop_budget_ppm = std::min(
          used - 1, static_cast<int64_t>(std::floor(static_cast<double>(used) * t.budget / hi)));
    } else {
      // Every operator on the chip costs 0: keep off the one with the largest logit error.
      double worst = -1.0;
      size_t pick = 0;
      for (size_t v = 0; v < pp.problem.size(); ++v) {
        if (r.schedule.assignment.mode[v] == partition::kHost) continue;
        const auto it = pp.accuracy->file.operators.find(pp.problem.names[v]);
        const double e = it == pp.accuracy->file.operators.end() ? 0.0 : it->second.output_error;
        if (e > worst) {
          worst = e;
          pick = v;
        }
      }
      objective.acc[pick].clear();
      forbidden = pp.problem.names[pick];
    }
    if (!solve(pp, objective, request, r)) return false;
    r.latency_s = r.schedule.makespan;
    r.accuracy = ev.evaluate(pp.problem, r.schedule.assignment);
  }
  r.tightening = std::move(t);
  return true;
}

}  // namespace

PartitionResult partition(const PartitionProblem& pp, const PartitionRequest& request) {
  validate_two_device(request);
  PartitionResult r;
  r.run = results::PartitionRun{pp.model,
                                pp.hardware,
                                pp.host_source,
                                pp.resolved.cim.t_mvm,
                                request.solver,
                                {},
                                0,
                                0,
                                0,
                                partition::milp_stats(pp.objective),
                                pp.energy_weight,
                                pp.provenance,
                                {}};
  r.problem = pp.problem;
  if (!request.replay.empty()) {
    r.schedule = formats::read_partition_file(request.replay, pp.problem);
    r.run.solver = "replay of " + request.replay;
    r.run.status = partition::SolveStatus::Replayed;
    r.run.bound = 0;
    r.status.origin = Origin::Replayed;
  } else if (!solve(pp, pp.objective, request, r)) {
    return r;
  }
  r.latency_s = r.schedule.makespan;
  if (pp.accuracy && request.evaluate_plans) {
    PlanEvaluator ev(*pp.accuracy);
    r.accuracy = ev.evaluate(pp.problem, r.schedule.assignment);
    r.accuracy_set = ev.set_description();
    if (request.max_accuracy_drop >= 0 && request.verify && request.replay.empty() &&
        !tighten(pp, request, ev, r))
      return r;
    if (request.eval_samples > 0) evaluate_heldout(pp, request, ev, r);
  }
  // The facts the reports print: host source, solver, status, cache, seeds.
  r.provenance = results::partition_provenance(r.run);
  r.provenance.set("hardware", pp.hardware);
  return r;
}

PartitionResult partition(const Model& model, const PartitionRequest& request) {
  return partition(build_partition_problem(model, request), request);
}

FrontResult partition_front(const PartitionProblem& pp, const PartitionRequest& request) {
  validate_two_device(request);
  if (request.solver != "exact" || !request.replay.empty() || request.energy_weight > 0)
    throw user_error(
        "pareto: the front is computed by the exact solver over every weight; drop the MILP "
        "solver, the replay and the energy weight");
  partition::FrontOptions fo;
  fo.time_limit_seconds = request.time_limit;
  const bool full = request.front == "full";
  fo.kind = full ? partition::FrontKind::Full : partition::FrontKind::Supported;
  FrontResult f;
  f.title = pp.model + " on " + pp.hardware +
            (full ? ": latency-energy front (full)" : ": latency-energy front");
  f.problem = pp.problem;
  f.front = partition::latency_energy_front(pp.problem, fo);
  f.provenance = pp.provenance;
  f.provenance.set("host source", pp.host_source);
  f.provenance.set("solver", full ? "exact (hetcim), one bi-objective solve (latency, dynamic "
                                    "energy net of host idle power)"
                                  : "exact (hetcim), one solve per weight");
  if (full)
    f.provenance.set("status", f.front.complete
                                   ? "complete full front (every non-dominated point, proven)"
                                   : "incomplete front (time limit: no points)");
  else
    f.provenance.set("status", f.front.complete
                                   ? "complete front (every supported point proven optimal)"
                                   : "incomplete front (point cap or time limit)");
  f.provenance.set("cache", "none (solved in this run)");
  if (!f.provenance.find("seeds")) f.provenance.set("seeds", "none (deterministic)");
  f.status.origin = Origin::Solved;
  f.status.conclusion =
      f.front.complete ? partition::SolveStatus::Optimal : partition::SolveStatus::TimeLimit;
  return f;
}

Front3dResult partition_front_3d(const PartitionProblem& pp, const PartitionRequest& request) {
  validate_two_device(request);
  if (!pp.accuracy)
    throw user_error("pareto-3d: the accuracy axis needs a sensitivity file (--sensitivity)");
  if (pp.accuracy->file.cost != accuracy::CostKind::Top1)
    throw user_error("pareto-3d: sensitivity file ", pp.accuracy->file.path,
                     ": field 'cost.kind' is 'logit'; the front's accuracy axis is the summed "
                     "top-1 drop (measure with --cost top1)");
  if (request.solver != "exact" || !request.replay.empty() || request.energy_weight > 0)
    throw user_error(
        "pareto-3d: the front is computed by the exact solver over every weight and accuracy "
        "budget; drop the MILP solver, the replay and the energy weight");
  Front3dResult f;
  f.title = pp.model + " on " + pp.hardware + ": latency x energy x accuracy-drop front";
  f.problem = pp.problem;
  partition::Problem p = pp.problem;
  if (request.max_accuracy_drop < 0)
    p.drop_budget_ppm = std::accumulate(p.drop_ppm.begin(), p.drop_ppm.end(), int64_t{0});
  f.front = partition::latency_energy_accuracy_front(p, request.time_limit);
  if (request.evaluate_plans) {
    PlanEvaluator ev(*pp.accuracy);
    for (const partition::Front3dPoint& pt : f.front.points)
      f.accuracy.push_back(ev.evaluate(pp.problem, pt.schedule.assignment));
    f.accuracy_set = ev.set_description();
  }
  f.provenance = pp.provenance;
  f.provenance.set("host source", pp.host_source);
  f.provenance.set("solver", "exact (hetcim), one solve per weight and accuracy budget");
  f.provenance.set("status", f.front.complete ? "complete (every supported point of every slice)"
                                              : "incomplete (front cap or time limit)");
  f.provenance.set("cache", "none (solved in this run)");
  f.status.origin = Origin::Solved;
  f.status.conclusion =
      f.front.complete ? partition::SolveStatus::Optimal : partition::SolveStatus::TimeLimit;
  return f;
}

std::string partition_milp_text(const PartitionProblem& pp, partition::MilpFileFormat format) {
  return partition::milp_file_text(pp.objective, format);
}

}  // namespace hetcim::api
