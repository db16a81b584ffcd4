// hetcim partition: seed 000's CPU-CIM partitioning of one network on one hardware point.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "api/common.h"
#include "api/partition.h"
#include "api/platform.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "cost/host_profile.h"
#include "report/accuracy.h"
#include "report/multi_partition.h"
#include "report/partition.h"
#include "report/partition_file.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"
#include "util/units.h"

namespace hetcim::cli {
namespace {

struct PartitionArgs {
  ModelSource model;
  api::PartitionRequest request;
  std::string pareto, pareto_svg;
  report::FigureOptions figures;  // --pareto-svg's
  std::string json, gantt, mps, lp, problem_json;
  std::string pareto_3d;
  bool quiet = false;
};

// hetcim partition MODEL --platform P: the exact solver the platform's shape calls for
// (partition/solve_by_shape.h) or the K-engine MILP on a platform (platform/platform.h).
// The request's fields a platform does not take are refused by its validate(); the fronts are the
// two-device solver's.
void run_platform(PartitionArgs a, const Provenance& provenance, const CLI::App& cmd) {
  for (const std::string* path : {&a.pareto, &a.pareto_svg, &a.pareto_3d})
    if (!path->empty())
      throw user_error(
          "--pareto, --pareto-svg and --pareto-3d do not apply with --platform (the "
          "fronts are the two-device solver's: --preset or --hw)");
  const api::PartitionRequest& q = a.request;
  q.validate();
  // validate() cannot tell a flag given at its default value from one not given: such a flag a
  // platform does not take (--preset seed000-arm) is refused here with validate()'s message.
  std::set<std::string> takes;
  for (const api::Field<api::PartitionRequest>& f : api::platform_fields()) takes.insert(f.name);
  for (const api::Field<api::PartitionRequest>& f : api::partition_fields()) {
    const std::string name = f.flag().substr(2);
    if (takes.count(f.name) == 0)
      for (const CLI::Option* o : cmd.get_options())
        if (o->count() > 0 && (o->check_lname(name) || o->check_lname("no-" + name)))
          throw user_error(f.name, ": does not apply with a platform (platform ", q.platform,
                           " describes the engines, links and costs; see docs/platforms.md)");
  }
  const api::Model model = load_api_model(a.model);
  const api::PlatformPartitionProblem pp = api::build_platform_partition_problem(model, q);
  // The problem written out whole (before the solve, like seed 000's MILP files): the K-engine
  // MILP as MPS / LP, and every operator's options, engines, groups and links as JSON.
  OutputSet out;
  if (!a.mps.empty()) out.add(a.mps, api::platform_milp_text(pp, partition::MilpFileFormat::Mps));
  if (!a.lp.empty()) out.add(a.lp, api::platform_milp_text(pp, partition::MilpFileFormat::Lp));
  if (!a.problem_json.empty()) out.add(a.problem_json, api::platform_problem_json(pp));
  for (const std::string* path : {&a.json, &a.gantt})
    if (!path->empty()) (void)resolve_output_path(*path);
  api::PlatformPartitionResult r;
  {
    ProgressTicker ticker(q.solver == "milp" ? "K-engine MILP on CBC" : "exact solver",
                          q.time_limit, !a.quiet);
    r = api::partition_on_platform(pp, q);
  }
  if (r.status.call != partition::CallStatus::Ok)
    throw user_error("CBC failed: ", r.status.message);
  report::MultiPartitionRun run{r.model,
                                r.platform,
                                &r.problem,
                                &r.solve,
                                api::with_caller(r.provenance, provenance),
                                r.milp ? &*r.milp : nullptr};
  if (!a.json.empty()) out.add(a.json, report::multi_partition_json(run).dump(1) + "\n");
  if (!a.gantt.empty()) out.add(a.gantt, report::multi_gantt_svg(run));
  out.commit();
  std::fputs(report::multi_partition_text(run).c_str(), stdout);
}

// A measured host profile (--host FILE) whose operator medians do not add up to its whole-model
// median within 10 % (or whose whole-model runs spread past 1.5x: cost::profile_quality's rule),
// summed here from the operators the file lists, is used as it is with a warning on stderr.
void warn_if_noisy_profile(const std::string& path) {
  cost::HostProfile p = cost::read_host_profile(path);
  p.op_median_sum_s = 0;
  for (const cost::HostProfileOp& op : p.ops) p.op_median_sum_s += op.median_s;
  const cost::ProfileQuality quality = cost::profile_quality(p);
  if (quality.noisy)
    std::fprintf(stderr,
                 "hetcim: warning: %s: its %zu operators sum to %s against a whole-model median of "
                 "%s; %s (its operator medians are used as they are)\n",
                 path.c_str(), p.ops.size(),
                 format_quantity(p.op_median_sum_s, Quantity::Time).c_str(),
                 format_quantity(p.model_median_s, Quantity::Time).c_str(), quality.text.c_str());
}

void run(PartitionArgs a, const Provenance& provenance) {
  api::PartitionRequest& q = a.request;
  if (!a.pareto_3d.empty() && q.sensitivity.empty())
    throw user_error("--pareto-3d: the accuracy axis needs --sensitivity FILE (and --chip)");
  q.validate();
  const bool front = !a.pareto.empty() || !a.pareto_svg.empty();
  if (!front && q.front != "supported")
    throw user_error("--front: applies to the latency-energy front; add --pareto FILE");
  if (front && (q.solver != "exact" || !q.replay.empty() || q.energy_weight > 0))
    throw user_error(
        "--pareto: the front is computed by the exact solver over every weight; drop "
        "--solver milp, --replay and --energy-weight");
  const api::Model model = load_api_model(a.model);
  api::PartitionProblem pp;
  {
    const bool measure_here = q.hardware.host == "this";
    Progress progress("measuring " + model.spec + " on this CPU", "runs",
                      static_cast<size_t>(q.host_measurement.warmup + q.host_measurement.runs),
                      measure_here && !a.quiet);
    q.host_measurement.progress = [&](size_t done, size_t) { progress.update(done); };
    pp = api::build_partition_problem(model, q);
    q.host_measurement.progress = nullptr;
  }
  if (!pp.resolved.host.profile.empty()) warn_if_noisy_profile(pp.resolved.host.profile);

  // Every output of the command joins one set, committed after the last check (util/output_set.h);
  // each target is checked as it is added, the MILP files before the solver runs.
  OutputSet out;
  if (!a.mps.empty()) out.add(a.mps, api::partition_milp_text(pp, partition::MilpFileFormat::Mps));
  if (!a.lp.empty()) out.add(a.lp, api::partition_milp_text(pp, partition::MilpFileFormat::Lp));
  for (const std::string* path : {&a.json, &a.gantt, &a.pareto, &a.pareto_svg, &a.pareto_3d})
    if (!path->empty()) (void)resolve_output_path(*path);
  if (!a.mps.empty() || !a.lp.empty())
    std::fprintf(
        stderr, "MILP file: time columns in units of %s (stated in the file's header)\n",
        format_quantity(partition::milp_stats(pp.objective).time_unit_seconds, Quantity::Time)
            .c_str());

  if (!a.pareto_3d.empty()) {
    api::Front3dResult f;
    {
      ProgressTicker ticker("latency x energy x accuracy front (exact solver)", q.time_limit,
                            !a.quiet);
      f = api::partition_front_3d(pp, q);
    }
    const Provenance prov = api::with_caller(f.provenance, provenance);
    out.add(a.pareto_3d,
            report::front3d_json(f.title, f.problem, f.front, f.accuracy, f.accuracy_set, prov)
                    .dump(1) +
                "\n");
    out.commit();
    std::fputs(report::front3d_text(f.title, f.front, f.accuracy, f.accuracy_set, prov).c_str(),
               stdout);
    return;
  }
  if (front) {
    api::FrontResult f;
    {
      ProgressTicker ticker("latency-energy front (exact solver)", q.time_limit, !a.quiet);
      f = api::partition_front(pp, q);
    }
    const Provenance prov = api::with_caller(f.provenance, provenance);
    if (!a.pareto.empty())
      out.add(a.pareto, report::front_json(f.problem, f.front, prov).dump(1) + "\n");
    if (!a.pareto_svg.empty())
      out.add(a.pareto_svg, report::front_svg(f.title, f.problem, f.front, prov, a.figures));
    out.commit();
    std::fputs(report::front_text(f.problem, f.front, prov).c_str(), stdout);
    return;
  }
  api::PartitionResult r;
  if (!q.replay.empty()) {
    r = api::partition(pp, q);
  } else {
    ProgressTicker ticker(q.solver == "exact" ? "exact solver" : "the paper's MILP on CBC",
                          q.time_limit, !a.quiet);
    r = api::partition(pp, q);
  }
  if (r.status.call != partition::CallStatus::Ok)
    throw user_error("CBC failed: ", r.status.message);
  r.run.provenance = api::with_caller(pp.provenance, provenance);
  if (!a.json.empty()) {
    nlohmann::json j = report::partition_json(r.run, r.problem, r.schedule);
    if (r.accuracy)
      j["accuracy"] = report::plan_accuracy_json(*r.accuracy, r.accuracy_set, q.max_accuracy_drop);
    if (r.tightening)
      j["accuracy"]["verification"] = report::tightening_json(*r.tightening, r.accuracy_set);
    if (r.heldout)
      j["accuracy"]["heldout"] =
          report::heldout_accuracy_json(*r.heldout, r.heldout_set, q.max_accuracy_drop);
    out.add(a.json, j.dump(1) + "\n");
  }
  if (!a.gantt.empty()) out.add(a.gantt, report::gantt_svg(r.run, r.problem, r.schedule));
  out.commit();
  {  // the result is printed with --quiet too: --quiet silences progress only (README)
    std::fputs(report::partition_text(r.run, r.problem, r.schedule).c_str(), stdout);
    if (r.accuracy)
      std::fputs(
          report::plan_accuracy_text(*r.accuracy, r.accuracy_set, q.max_accuracy_drop).c_str(),
          stdout);
    if (r.tightening)
      std::fputs(report::tightening_text(*r.tightening, r.accuracy_set).c_str(), stdout);
    if (r.heldout)
      std::fputs(
          report::heldout_accuracy_text(*r.heldout, r.heldout_set, q.max_accuracy_drop).c_str(),
          stdout);
  }
}

}  // namespace

void register_partition(CLI::App& app, const Provenance& provenance) {
  auto a = std::make_shared<PartitionArgs>();
  CLI::App* cmd = app.add_subcommand(
      "partition",
      "Partition a network between the host CPU and an RRAM crossbar accelerator to "
      "minimise end-to-end latency (Klein et al. 2026, 'Optimizing ML Workload Partitioning "
      "between CPUs and CIM Accelerators for Heterogeneous Computing'; presets cortex-a72-rram, "
      "ryzen9-rram, first named seed000-arm, seed000-x86)");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  // The request's fields (hardware, solver, limits, models of the bus and transfers, replay, the
  // accuracy budget and its sensitivity file, chip and seeds): flags, help, defaults and checks
  // from api::partition_fields().
  options::add_fields(cmd, api::partition_fields(), a->request);
  cmd->add_option("--pareto", a->pareto,
                  "Compute the latency-energy Pareto front (every supported point, each proven "
                  "optimal for its weight) instead of one partition; write it as JSON");
  cmd->add_option("--pareto-svg", a->pareto_svg, "With or without --pareto: plot the front (SVG)");
  options::figure_flags(cmd, a->figures);
  cmd->add_option("--pareto-3d", a->pareto_3d,
                  "Compute the latency x energy x accuracy-drop front (needs --sensitivity); "
                  "write it as JSON, every point re-evaluated on the chip");
  cmd->add_option("--json", a->json, "Write the assignment and the schedule as JSON");
  cmd->add_option("--gantt", a->gantt, "Write a Gantt chart of the schedule (SVG)");
  cmd->add_option("--mps", a->mps,
                  "Write the paper's MILP as an MPS file (with --platform: the K-engine MILP)");
  cmd->add_option("--lp", a->lp,
                  "Write the paper's MILP as an LP file (with --platform: the K-engine MILP)");
  cmd->add_option("--problem-json", a->problem_json,
                  "With --platform: write the whole problem as JSON (every operator's options "
                  "and costs per engine, capacities, exclusive groups, links, edge bytes)");
  add_input_shape_option(cmd, a->model);
  cmd->add_option("--batch", a->model.batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  options::quiet(cmd, a->quiet);
  cmd->callback([a, cmd, &provenance] {
    if (!a->request.platform.empty()) {
      run_platform(*a, provenance, *cmd);
      return;
    }
    if (!a->problem_json.empty()) throw user_error("--problem-json applies with --platform only");
    run(*a, provenance);
  });
}

}  // namespace hetcim::cli
