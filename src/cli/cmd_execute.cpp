// hetcim execute: a partition plan end to end (api::execute): host operators on oneDNN, the plan's
// CIM operators on a simulated chip, top-1 accuracy over a data set beside the all-digital run,
// the plan's modelled latency and energy, the simulator's wall time; --certify adds seed 002's
// certified fallback. One text summary on stdout, the same figures as JSON with --json.
#include <cstdio>
#include <memory>

#include "api/common.h"
#include "api/execute.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/execution.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"

namespace hetcim::cli {
namespace {

struct ExecuteArgs {
  std::string model;
  api::ExecuteRequest request;
  api::HardwareRequest hardware;
  bool hardware_given = false;
  std::string json;
  bool quiet = false;
};

void run(ExecuteArgs a, const Provenance& provenance) {
  api::ExecuteRequest& q = a.request;
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
  std::fputs(report::execution_text(r.execution).c_str(), stdout);  // --quiet: progress only
}

}  // namespace

void register_execute(CLI::App& app, const Provenance& provenance) {
  auto a = std::make_shared<ExecuteArgs>();
  CLI::App* cmd = app.add_subcommand(
      "execute",
      "Run a partition plan end to end: host operators on oneDNN, CIM operators on a simulated "
      "chip; accuracy over a data set, modelled latency and energy, optional certified fallback");
  cmd->add_option("model", a->model, "Zoo model name or ONNX file (the plan's model)")->required();
  const std::vector<CLI::Option*> flags =
      options::add_fields(cmd, api::execute_fields(), a->request);
  flags[0]->required();  // --plan
  flags[1]->required();  // --chip
  // The hardware of the partition problem, the plan's unless one of these is given: the fields
  // of api::hardware_fields() (the host is the request's own --host).
  const std::vector<CLI::Option*> hardware =
      options::add_fields(cmd, api::hardware_fields(), a->hardware, {"host"});
  for (CLI::Option* o : hardware) {
    o->default_str("");
    o->description(o->get_description() + " (default: the plan's)");
  }
  cmd->add_option("--json", a->json, "Write the figures as JSON (with provenance)");
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, hardware, &provenance] {
    for (const CLI::Option* o : hardware)
      if (o->count() > 0) a->hardware_given = true;
    run(*a, provenance);
  });
}

}  // namespace hetcim::cli
