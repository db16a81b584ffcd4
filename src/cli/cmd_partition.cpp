// hetcim partition: seed 000's CPU-CIM partitioning of one network on one hardware point.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "cli/assignment_file.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/host_choice.h"
#include "cli/measure_host.h"
#include "cli/model_source.h"
#include "cost/hardware.h"
#include "cost/host_costs.h"
#include "partition/build.h"
#include "partition/energy_front.h"
#include "partition/exact.h"
#include "partition/milp.h"
#include "passes/pipeline.h"
#include "report/partition.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"
#include "util/units.h"
#include "workload/workload.h"

namespace hetcim::cli {
namespace {

struct PartitionArgs {
  ModelSource model;
  std::string hw_file;
  std::string preset = "seed000-arm";
  int64_t crossbars = 0;  // 0: from the hardware description
  std::string t_mvm;      // "": from the hardware description
  std::string host;       // "": from the hardware description
  std::string solver = "exact";
  std::string time_limit = "600s";
  double gap = 0.0;
  int threads = 1;
  int64_t replicas = 1;
  std::string transfers = "per-edge";
  std::string bus_model = "parallel";
  double energy_weight = 0.0;
  std::string replay;
  std::string pareto, pareto_svg;
  std::string json, gantt, mps, lp;
  bool quiet = false;
};

void run(const PartitionArgs& a, const Provenance& provenance) {
  cost::Hardware hw =
      a.hw_file.empty() ? cost::hardware_preset(a.preset) : cost::load_hardware(a.hw_file);
  const bool measure_here = a.host == "this";
  if (!a.host.empty() && !measure_here) apply_host_choice(a.host, hw);
  if (a.crossbars > 0) hw.cim.crossbars = a.crossbars;
  if (!a.t_mvm.empty()) hw.cim.t_mvm = parse_positive_quantity(a.t_mvm, Quantity::Time, "--t-mvm");
  const double time_limit = parse_positive_quantity(a.time_limit, Quantity::Time, "--time-limit");

  const graph::Graph lowered = passes::lower(load_model(a.model), {});
  workload::WorkloadOptions wo;
  wo.xbar_rows = hw.cim.xbar_rows;
  wo.xbar_cols = hw.cim.xbar_cols;
  wo.elem_bytes = hw.cim.elem_bytes;
  const workload::Workload w = workload::analyze(lowered, wo);
  MeasureOptions measure;
  measure.progress = !a.quiet;
  cost::HostCosts host = measure_here
                             ? cost::host_costs_from_profile(
                                   w, measure_host_profile(a.model, measure), "this run", true)
                             : cost::host_costs(w, hw.host, /*int8=*/true);
  if (measure_here)
    host.source =
        "measured on " + machine_description() + " in this run (" + describe(measure) + ")";
  // The hardware as a reader should name it: with --host this, the host is this machine and
  // only the accelerator and the bus come from the preset or file.
  const std::string hw_name = a.hw_file.empty() ? a.preset : a.hw_file;
  const std::string hardware =
      measure_here ? "this machine as host + the CIM accelerator and bus of " + hw_name : hw_name;
  Provenance prov = provenance;
  if (measure_here) prov.set("seeds", describe(measure));
  partition::BuildOptions bo;
  bo.max_replicas = a.replicas;
  bo.transfer_model = a.transfers == "per-edge" ? partition::TransferModel::PerEdge
                                                : partition::TransferModel::PerTensorDirection;
  bo.bus_model =
      a.bus_model == "serial" ? partition::BusModel::Serial : partition::BusModel::Parallel;
  const partition::Problem p = partition::build_problem(w, host, hw, bo);
  // What the solvers minimise: latency, or latency + weight * total energy folded into their
  // weighted dynamic objective (partition/energy_front.h); reports use `p` as built.
  const partition::Problem solved =
      a.energy_weight > 0 ? partition::with_total_energy_weight(p, a.energy_weight) : p;
  const double scale = 1 + a.energy_weight * (p.p_cim_static + p.p_host_idle);

  // Every output of the command joins one set, committed after the last check (util/output_set.h);
  // each target is checked as it is added, the MILP files before the solver runs.
  OutputSet out;
  if (!a.mps.empty())
    out.add(a.mps, partition::milp_file_text(solved, partition::MilpFileFormat::Mps));
  if (!a.lp.empty())
    out.add(a.lp, partition::milp_file_text(solved, partition::MilpFileFormat::Lp));
  for (const std::string* path : {&a.json, &a.gantt, &a.pareto, &a.pareto_svg})
    if (!path->empty()) (void)resolve_output_path(*path);
  if ((!a.mps.empty() || !a.lp.empty()) && !a.quiet)
    std::fprintf(
        stderr, "MILP file: time columns in units of %s (stated in the file's header)\n",
        format_quantity(partition::milp_stats(solved).time_unit_seconds, Quantity::Time).c_str());

  if (!a.pareto.empty() || !a.pareto_svg.empty()) {
    if (a.solver != "exact" || !a.replay.empty() || a.energy_weight > 0)
      throw user_error(
          "--pareto: the front is computed by the exact solver over every weight; drop "
          "--solver milp, --replay and --energy-weight");
    partition::FrontOptions fo;
    fo.time_limit_seconds = time_limit;
    partition::FrontResult f;
    {
      ProgressTicker ticker("latency-energy front (exact solver)", time_limit, !a.quiet);
      f = partition::latency_energy_front(p, fo);
    }
    const std::string title = a.model.spec + " on " + hardware + ": latency-energy front";
    prov.set("host source", host.source);
    prov.set("solver", "exact (hetcim), one solve per weight");
    prov.set("status", f.complete ? "complete front (every supported point proven optimal)"
                                  : "incomplete front (point cap or time limit)");
    prov.set("cache", "none (solved in this run)");
    if (!prov.find("seeds")) prov.set("seeds", "none (deterministic)");
    if (!a.pareto.empty()) out.add(a.pareto, report::front_json(p, f, prov).dump(1) + "\n");
    if (!a.pareto_svg.empty()) out.add(a.pareto_svg, report::front_svg(title, p, f, prov));
    out.commit();
    if (!a.quiet) std::fputs(report::front_text(p, f, prov).c_str(), stdout);
    return;
  }

  report::PartitionRun r{a.model.spec,
                         hardware,
                         host.source,
                         hw.cim.t_mvm,
                         a.solver,
                         {},
                         0,
                         0,
                         0,
                         partition::milp_stats(solved),
                         a.energy_weight,
                         prov};
  partition::Schedule schedule;
  if (!a.replay.empty()) {
    schedule = replay_assignment_file(a.replay, p);
    r.solver = "replay of " + a.replay;
    r.status = partition::SolveStatus::Replayed;
    r.bound = 0;
  } else if (a.solver == "exact") {
    partition::ExactOptions eo;
    eo.time_limit_seconds = time_limit;
    partition::ExactResult e;
    {
      ProgressTicker ticker("exact solver", time_limit, !a.quiet);
      e = partition::solve_exact(solved, eo);
    }
    r.status = e.status;
    r.bound = e.bound * scale;
    r.seconds = e.seconds;
    r.nodes = e.nodes;
    schedule = e.schedule;
  } else {
    partition::MilpOptions mo;
    mo.time_limit_seconds = time_limit;
    mo.relative_gap = a.gap;
    mo.threads = a.threads;
    partition::MilpResult m;
    {
      ProgressTicker ticker("the paper's MILP on CBC", time_limit, !a.quiet);
      m = partition::solve_milp(solved, mo);
    }
    if (m.call != partition::CallStatus::Ok) throw user_error("CBC failed: ", m.message);
    r.status = m.status;
    r.bound = m.bound * scale;
    r.seconds = m.seconds;
    r.nodes = m.nodes;
    schedule = m.schedule;
  }
  if (!a.json.empty()) out.add(a.json, report::partition_json(r, p, schedule).dump(1) + "\n");
  if (!a.gantt.empty()) out.add(a.gantt, report::gantt_svg(r, p, schedule));
  out.commit();
  if (!a.quiet) std::fputs(report::partition_text(r, p, schedule).c_str(), stdout);
}

}  // namespace

void register_partition(CLI::App& app, const Provenance& provenance) {
  auto a = std::make_shared<PartitionArgs>();
  CLI::App* cmd = app.add_subcommand(
      "partition",
      "Partition a network between the host CPU and an RRAM crossbar accelerator to "
      "minimise end-to-end latency (seed 000)");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  cmd->add_option("--hw", a->hw_file, "Hardware description (YAML)");
  cmd->add_option("--preset", a->preset, "Hardware preset when --hw is not given")
      ->check(CLI::IsMember(cost::hardware_preset_names()))
      ->capture_default_str();
  cmd->add_option("--crossbars", a->crossbars, "Crossbar budget C (overrides the hardware)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--t-mvm", a->t_mvm, "Latency of one MVM, e.g. 50ns (overrides the hardware)");
  cmd->add_option(
      "--host", a->host,
      "Host: arm, x86, a host model name, a profile file (.csv/.json) from `hetcim profile`, or "
      "this (measure this CPU now: int8, 1 thread, 10 warm-up + 50 runs)");
  cmd->add_option("--solver", a->solver,
                  "exact (our solver, proves optimality) or milp (the paper's MILP on CBC)")
      ->check(CLI::IsMember({"exact", "milp"}))
      ->capture_default_str();
  cmd->add_option("--time-limit", a->time_limit, "Wall-clock limit of the solver")
      ->capture_default_str();
  cmd->add_option("--gap", a->gap, "MILP: stop at this relative gap")
      ->check(finite_range(0.0, 1.0));
  cmd->add_option("--threads", a->threads, "MILP: CBC threads (1 is deterministic)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--replicas", a->replicas,
                  "Beyond the paper: allow up to R copies of an operator's weights on spare "
                  "crossbars (R copies run ceil(N_mvm/R) MVMs)")
      ->check(CLI::Range(int64_t{1}, int64_t{64}))
      ->capture_default_str();
  cmd->add_option("--transfers", a->transfers,
                  "per-edge (the paper) or per-tensor (once per tensor and direction)")
      ->check(CLI::IsMember({"per-edge", "per-tensor"}))
      ->capture_default_str();
  cmd->add_option("--bus-model", a->bus_model,
                  "parallel (the paper: transfers overlap) or serial (the shared bus carries one "
                  "transfer at a time)")
      ->check(CLI::IsMember({"parallel", "serial"}))
      ->capture_default_str();
  cmd->add_option(
         "--energy-weight", a->energy_weight,
         "Beyond the paper: minimise latency + W x energy per inference (W in s/J; 0 = the "
         "paper's latency objective); energies come from the hardware's energy model")
      ->check(finite_range(0.0, 1e12))
      ->capture_default_str();
  cmd->add_option("--pareto", a->pareto,
                  "Compute the latency-energy Pareto front (every supported point, each proven "
                  "optimal for its weight) instead of one partition; write it as JSON");
  cmd->add_option("--pareto-svg", a->pareto_svg, "With or without --pareto: plot the front (SVG)");
  cmd->add_option(
         "--replay", a->replay,
         "Replay a partition from a JSON file (as --json writes it: operator names and modes, "
         "optionally host_order/bus_order) instead of solving; checked against every constraint")
      ->check(CLI::ExistingFile);
  cmd->add_option("--json", a->json, "Write the assignment and the schedule as JSON");
  cmd->add_option("--gantt", a->gantt, "Write a Gantt chart of the schedule (SVG)");
  cmd->add_option("--mps", a->mps, "Write the paper's MILP as an MPS file");
  cmd->add_option("--lp", a->lp, "Write the paper's MILP as an LP file");
  add_input_shape_option(cmd, a->model);
  cmd->add_option("--batch", a->model.batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "Print nothing (no table, no progress)");
  cmd->callback([a, &provenance] { run(*a, provenance); });
}

}  // namespace hetcim::cli
