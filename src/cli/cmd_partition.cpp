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
#include "util/interrupt_cleanup.h"
#include "util/output_set.h"
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

// A directory of its own under $TMPDIR for a library that writes files by name; removed with
// its files when done, and on an interrupt (util/interrupt_cleanup.h).
class PrivateDirectory {
 public:
  PrivateDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/hetcim-XXXXXX";
    bool made = false;
    if (!with_cleanup_lock([&] {
          made = ::mkdtemp(tmpl.data()) != nullptr;
          if (made) register_temp_dir_locked(tmpl);
        }))
      throw user_error("interrupted");
    if (!made)
      throw user_error("cannot create a temporary directory in '", base ? base : "/tmp",
                       "': ", std::strerror(errno));
    path_ = tmpl;
  }
  PrivateDirectory(const PrivateDirectory&) = delete;
  PrivateDirectory& operator=(const PrivateDirectory&) = delete;
  ~PrivateDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    unregister_temp_dir(path_);
  }
  // A file name inside, registered for removal on an interrupt.
  [[nodiscard]] std::string file(const std::string& name) const {
    const std::string f = path_ + "/" + name;
    with_cleanup_lock([&] { register_temp_file_locked(f); });
    return f;
  }

 private:
  std::string path_;
};

// --mps and --lp: CoinUtils writes the model to a file of its choosing (gzip-compressed with a
// .gz suffix for MPS), so it writes into a private directory first and what it wrote joins the
// command's other outputs under the same suffix.
void add_milp_files(OutputSet& out, const PartitionArgs& a, const partition::Problem& solved) {
  for (const auto& [path, format] : {std::pair{a.mps, partition::MilpFileFormat::Mps},
                                     std::pair{a.lp, partition::MilpFileFormat::Lp}}) {
    if (path.empty()) continue;
    const PrivateDirectory tmp;
    const std::string file = tmp.file("model"), gz = tmp.file("model.gz");
    partition::write_milp(solved, file, format);
    if (std::filesystem::exists(file))
      out.add(path, read_input_file(file, "MILP file", int64_t{1} << 40));
    else if (std::filesystem::exists(gz))
      out.add(path + ".gz", read_input_file(gz, "MILP file", int64_t{1} << 40));
    else
      throw internal_error("the MILP writer wrote neither '", file, "' nor '", gz, "'");
    with_cleanup_lock([&] {
      unregister_temp_file_locked(file);
      unregister_temp_file_locked(gz);
    });
  }
}

void run(const PartitionArgs& a) {
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
  const cost::HostCosts host = measure_here
                                   ? cost::host_costs_from_profile(
                                         w, measure_host_profile(a.model, {}), "this machine", true)
                                   : cost::host_costs(w, hw.host, /*int8=*/true);
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

  // Every output path is checked before the solver runs, so a bad one costs no solve time.
  for (const std::string* path : {&a.json, &a.gantt, &a.mps, &a.lp, &a.pareto, &a.pareto_svg})
    if (!path->empty()) (void)resolve_output_path(*path);

  if (!a.pareto.empty() || !a.pareto_svg.empty()) {
    if (a.solver != "exact" || !a.replay.empty() || a.energy_weight > 0)
      throw user_error(
          "--pareto: the front is computed by the exact solver over every weight; drop "
          "--solver milp, --replay and --energy-weight");
    partition::FrontOptions fo;
    fo.time_limit_seconds = time_limit;
    const partition::FrontResult f = partition::latency_energy_front(p, fo);
    const std::string title = a.model.spec + " on " + (a.hw_file.empty() ? a.preset : a.hw_file) +
                              ": latency-energy front";
    OutputSet out;
    if (!a.pareto.empty()) out.add(a.pareto, report::front_json(p, f).dump(1) + "\n");
    if (!a.pareto_svg.empty()) out.add(a.pareto_svg, report::front_svg(title, p, f));
    add_milp_files(out, a, solved);
    out.commit();
    if (!a.quiet) std::fputs(report::front_text(p, f).c_str(), stdout);
    return;
  }

  report::PartitionRun r{a.model.spec,
                         a.hw_file.empty() ? a.preset : a.hw_file,
                         host.source,
                         hw.cim.t_mvm,
                         a.solver,
                         {},
                         0,
                         0,
                         0,
                         partition::milp_stats(solved),
                         a.energy_weight};
  partition::Schedule schedule;
  if (!a.replay.empty()) {
    schedule = replay_assignment_file(a.replay, p);
    r.solver = "replay of " + a.replay;
    r.status = partition::SolveStatus::Replayed;
    r.bound = 0;
  } else if (a.solver == "exact") {
    partition::ExactOptions eo;
    eo.time_limit_seconds = time_limit;
    const partition::ExactResult e = partition::solve_exact(solved, eo);
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
    const partition::MilpResult m = partition::solve_milp(solved, mo);
    if (m.call != partition::CallStatus::Ok) throw user_error("CBC failed: ", m.message);
    r.status = m.status;
    r.bound = m.bound * scale;
    r.seconds = m.seconds;
    r.nodes = m.nodes;
    schedule = m.schedule;
  }
  OutputSet out;
  if (!a.json.empty()) out.add(a.json, report::partition_json(r, p, schedule).dump(1) + "\n");
  if (!a.gantt.empty()) out.add(a.gantt, report::gantt_svg(r, p, schedule));
  add_milp_files(out, a, solved);
  out.commit();
  if (!a.quiet) std::fputs(report::partition_text(r, p, schedule).c_str(), stdout);
}

}  // namespace

void register_partition(CLI::App& app) {
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
  cmd->add_option("--batch", a->model.batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "Print nothing");
  cmd->callback([a] { run(*a); });
}

}  // namespace hetcim::cli
