// hetcim execute: a partition plan end to end (api::execute): host operators on oneDNN, the plan's
// CIM operators on a simulated chip, top-1 accuracy over a data set beside the all-digital run,
// the plan's modelled latency and energy, the simulator's wall time; --certify adds seed 002's
// certified fallback. One text summary on stdout, the same figures as JSON with --json.
#include <cstdio>
#include <memory>

#include "api/common.h"
#include "api/execute.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/options.h"
#include "report/execution.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"
#include "util/units.h"

namespace hetcim::cli {
namespace {

struct ExecuteArgs {
  std::string model;
  api::ExecuteRequest request;
  api::HardwareRequest hardware;
  bool hardware_given = false;
  std::string t_mvm;
  std::string json;
  bool quiet = false;
};

void run(ExecuteArgs a, const Provenance& provenance) {
  api::ExecuteRequest& q = a.request;
  if (!a.t_mvm.empty()) {
    a.hardware.t_mvm = parse_positive_quantity(a.t_mvm, Quantity::Time, "--t-mvm");
    a.hardware_given = true;
  }
  if (a.hardware_given) q.hardware = a.hardware;
  q.validate();
  OutputSet out;
  if (!a.json.empty()) (void)resolve_output_path(a.json);
  api::ExecuteResult r;
  {
    ProgressTicker ticker("executing " + q.plan + " on " + q.chip, 0, !a.quiet);
    r = api::execute(a.model, q);
  }
  r.execution.provenance = api::with_caller(r.provenance, provenance);
  for (const std::string& w : r.execution.warnings)
    std::fprintf(stderr, "hetcim execute: warning: %s\n", w.c_str());
  if (!a.json.empty()) out.add(a.json, report::execution_json(r.execution).dump(1) + "\n");
  out.commit();
  if (!a.quiet) std::fputs(report::execution_text(r.execution).c_str(), stdout);
}

}  // namespace

void register_execute(CLI::App& app, const Provenance& provenance) {
  auto a = std::make_shared<ExecuteArgs>();
  CLI::App* cmd = app.add_subcommand(
      "execute",
      "Run a partition plan end to end: host operators on oneDNN, CIM operators on a simulated "
      "chip; accuracy over a data set, modelled latency and energy, optional certified fallback");
  cmd->add_option("model", a->model, "Zoo model name or ONNX file (the plan's model)")->required();
  cmd->add_option("--plan", a->request.plan, "Partition file (hetcim partition --json)")
      ->required();
  cmd->add_option("--chip", a->request.chip, "Chip profile FILE:PROFILE, e.g. data/chips.yaml:A3")
      ->required();
  options::sim_mode(cmd, a->request.mode, "Override the profile's simulation mode");
  options::dataset(cmd, a->request.dataset, a->request.dataset_dir, {},
                   "Data set: fashion-mnist or cifar10",
                   "Directory of the data set's files (default: the name's own)");
  options::split(cmd, a->request.split, "test or train");
  cmd->add_option("--limit", a->request.limit, "Evaluate the first N images (0: all)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--batch", a->request.batch, "Images per engine run")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  options::threads(cmd, a->request.threads, "CPU threads (engine and simulator)", 1, 1024);
  options::chip_seeds(cmd, a->request.chip_seed, a->request.read_seed);
  cmd->add_option("--weight-seed", a->request.weight_seed,
                  "Seed for weights the model does not carry")
      ->capture_default_str();
  const auto given = [a](auto) { a->hardware_given = true; };
  cmd->add_option("--hw", a->hardware.file,
                  "Hardware description (YAML) of the partition problem (default: the plan's)")
      ->each(given);
  cmd->add_option("--preset", a->hardware.preset, "Hardware preset (default: the plan's)")
      ->each(given);
  cmd->add_option_function<int64_t>(
         "--crossbars",
         [a](const int64_t& c) {
           a->hardware.crossbars = c;
           a->hardware_given = true;
         },
         "Crossbar budget C (with the hardware flags; default: the plan's)")
      ->check(whole_number());
  cmd->add_option("--t-mvm", a->t_mvm, "Latency of one MVM (with the hardware flags)");
  cmd->add_option("--host", a->request.host,
                  "Host of the partition problem (default: the hardware's): arm, x86, a host "
                  "model or a profile file");
  cmd->add_flag("--certify", a->request.certify,
                "Seed 002's certified fallback: bias correction, score, Clopper-Pearson "
                "threshold and certificate on the plan's logits, the all-host run as fallback");
  cmd->add_option("--risk", a->request.risk, "Certified selective risk target r")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--delta", a->request.certificate_delta, "Certificate confidence delta_C")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option_function<double>(
         "--design-risk", [a](const double& v) { a->request.design_risk = v; },
         "Design risk r_d of the threshold fit (default 0.8 r)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--split-seed", a->request.split_seed, "Seed of the H/P/C/T splits")
      ->capture_default_str();
  cmd->add_option("--json", a->json, "Write the figures as JSON (with provenance)");
  cmd->add_flag("--quiet", a->quiet, "No progress and no summary on stdout");
  cmd->callback([a, &provenance] { run(*a, provenance); });
}

}  // namespace hetcim::cli
