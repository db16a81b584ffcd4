// hetcim partition: seed 000's CPU-CIM partitioning of one network on one hardware point.
#include <cstdio>
#include <memory>

#include "api/partition.h"
#include "cli/commands.h"
#include "cost/hardware.h"
#include "report/partition.h"
#include "report/partition_file.h"
#include "util/error.h"
#include "util/files.h"
#include "util/units.h"

namespace hetcim::cli {
namespace {

struct PartitionArgs {
  std::string model;
  int64_t batch = 1;
  api::PartitionRequest request;
  std::string t_mvm;  // "": from the hardware description
  std::string time_limit = "600s";
  std::string pareto, pareto_svg;
  std::string json, gantt, mps, lp;
  bool quiet = false;
};

void run(PartitionArgs a) {
  api::PartitionRequest& q = a.request;
  if (!a.t_mvm.empty()) q.hardware.t_mvm = parse_quantity(a.t_mvm, Quantity::Time, "--t-mvm");
  q.time_limit = parse_quantity(a.time_limit, Quantity::Time, "--time-limit");
  q.validate();
  const api::PartitionProblem pp =
      api::build_partition_problem(api::load_model(a.model, a.batch), q);
  if (!a.mps.empty()) api::write_partition_milp(pp, a.mps, partition::MilpFileFormat::Mps);
  if (!a.lp.empty()) api::write_partition_milp(pp, a.lp, partition::MilpFileFormat::Lp);

  if (!a.pareto.empty() || !a.pareto_svg.empty()) {
    const api::FrontResult f = api::partition_front(pp, q);
    if (!a.pareto.empty())
      write_file_atomically(a.pareto, report::front_json(f.problem, f.front).dump(1) + "\n");
    if (!a.pareto_svg.empty())
      write_file_atomically(a.pareto_svg, report::front_svg(f.title, f.problem, f.front));
    if (!a.quiet) std::fputs(report::front_text(f.problem, f.front).c_str(), stdout);
    return;
  }
  const api::PartitionResult r = api::partition(pp, q);
  if (r.status.call != partition::CallStatus::Ok)
    throw user_error("CBC failed: ", r.status.message);
  if (!a.json.empty()) report::write_partition_file(a.json, r.run, r.problem, r.schedule);
  if (!a.gantt.empty())
    write_file_atomically(a.gantt, report::gantt_svg(r.run, r.problem, r.schedule));
  if (!a.quiet) std::fputs(report::partition_text(r.run, r.problem, r.schedule).c_str(), stdout);
}

std::string preset_list() {
  std::string s;
  for (const std::string& n : cost::hardware_preset_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

void register_partition(CLI::App& app) {
  auto a = std::make_shared<PartitionArgs>();
  CLI::App* cmd = app.add_subcommand(
      "partition",
      "Partition a network between the host CPU and an RRAM crossbar accelerator to "
      "minimise end-to-end latency (seed 000)");
  cmd->add_option("model", a->model, "Zoo model name or ONNX file")->required();
  cmd->add_option("--hw", a->request.hardware.file, "Hardware description (YAML)");
  cmd->add_option("--preset", a->request.hardware.preset,
                  "Hardware preset when --hw is not given: " + preset_list())
      ->capture_default_str();
  cmd->add_option_function<int64_t>(
      "--crossbars", [a](const int64_t& c) { a->request.hardware.crossbars = c; },
      "Crossbar budget C (overrides the hardware)");
  cmd->add_option("--t-mvm", a->t_mvm, "Latency of one MVM, e.g. 50ns (overrides the hardware)");
  cmd->add_option(
      "--host", a->request.hardware.host,
      "Host: arm, x86, a host model name, a profile file (.csv/.json) from `hetcim profile`, or "
      "this (measure this CPU now: int8, 1 thread, 10 warm-up + 50 runs)");
  cmd->add_option("--solver", a->request.solver,
                  "exact (our solver, proves optimality) or milp (the paper's MILP on CBC)")
      ->check(CLI::IsMember({"exact", "milp"}))
      ->capture_default_str();
  cmd->add_option("--time-limit", a->time_limit, "Wall-clock limit of the solver")
      ->capture_default_str();
  cmd->add_option("--node-limit", a->request.node_limit,
                  "Exact solver: stop after this many search nodes, branch-and-bound and "
                  "sequencing (deterministic, unlike "
                  "--time-limit: the same limit gives the same result on any machine; 0 = none)")
      ->capture_default_str();
  cmd->add_option("--gap", a->request.gap, "MILP: stop at this relative gap")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--threads", a->request.threads, "MILP: CBC threads (1 is deterministic)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--replicas", a->request.replicas,
                  "Beyond the paper: allow up to R copies of an operator's weights on spare "
                  "crossbars (R copies run ceil(N_mvm/R) MVMs)")
      ->check(CLI::Range(int64_t{1}, int64_t{64}))
      ->capture_default_str();
  cmd->add_option("--transfers", a->request.transfers,
                  "per-edge (the paper) or per-tensor (once per tensor and direction)")
      ->check(CLI::IsMember({"per-edge", "per-tensor"}))
      ->capture_default_str();
  cmd->add_option("--bus-model", a->request.bus_model,
                  "parallel (the paper: transfers overlap) or serial (the shared bus carries one "
                  "transfer at a time)")
      ->check(CLI::IsMember({"parallel", "serial"}))
      ->capture_default_str();
  cmd->add_option(
         "--energy-weight", a->request.energy_weight,
         "Beyond the paper: minimise latency + W x energy per inference (W in s/J; 0 = the "
         "paper's latency objective); energies come from the hardware's energy model")
      ->check(CLI::Range(0.0, 1e12))
      ->capture_default_str();
  cmd->add_option("--pareto", a->pareto,
                  "Compute the latency-energy Pareto front (every supported point, each proven "
                  "optimal for its weight) instead of one partition; write it as JSON");
  cmd->add_option("--pareto-svg", a->pareto_svg, "With or without --pareto: plot the front (SVG)");
  cmd->add_option(
         "--replay", a->request.replay,
         "Replay a partition from a JSON file (as --json writes it: operator names and modes, "
         "optionally host_order/bus_order) instead of solving; checked against every constraint")
      ->check(CLI::ExistingFile);
  cmd->add_option("--json", a->json, "Write the assignment and the schedule as JSON");
  cmd->add_option("--gantt", a->gantt, "Write a Gantt chart of the schedule (SVG)");
  cmd->add_option("--mps", a->mps, "Write the paper's MILP as an MPS file");
  cmd->add_option("--lp", a->lp, "Write the paper's MILP as an LP file");
  cmd->add_option("--batch", a->batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "Print nothing");
  cmd->callback([a] { run(*a); });
}

}  // namespace hetcim::cli
