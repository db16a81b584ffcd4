#include <cstdio>
#include <memory>

#include "api/inspect.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "report/inspect.h"
#include "util/error.h"
#include "util/files.h"

namespace hetcim::cli {
namespace {

struct InspectArgs {
  ModelSource model;
  api::InspectRequest request;
  std::string json;
  bool quiet = false;
};

void run(InspectArgs a) {
  a.request.validate();
  const api::InspectResult r = api::inspect(load_api_model(a.model), a.request);
  if (r.dumped) {
    const graph::Graph& x = *r.dumped;
    std::printf("# graph after %s: %zu nodes\n", a.request.dump_after.c_str(), x.nodes.size());
    for (const graph::Node& n : x.nodes) {
      std::string ins, outs;
      for (const auto& t : n.inputs) ins += (ins.empty() ? "" : ", ") + t;
      for (const auto& t : n.outputs) outs += (outs.empty() ? "" : ", ") + t;
      std::printf("%-40s %-24s (%s) -> (%s)\n", n.name.c_str(), n.op_type.c_str(), ins.c_str(),
                  outs.c_str());
    }
  }
  const report::InspectHeader h{r.model, r.precision, r.params_before_lowering};
  const std::vector<std::string>& refused = r.run_cannot_execute;
  if (!a.json.empty()) {
    nlohmann::json j = report::inspect_json(h, r.workload, r.options);
    j["run_cannot_execute"] = refused;
    write_file_atomically(a.json, j.dump(1) + "\n");
  }
  if (!a.quiet) {
    std::fputs(report::inspect_table(h, r.workload, r.options).c_str(), stdout);
    if (refused.empty()) {
      std::printf("hetcim run: every operator has a kernel\n");
    } else {
      std::printf("hetcim run cannot execute %zu operator%s:\n", refused.size(),
                  refused.size() == 1 ? "" : "s");
      for (const std::string& op : refused) std::printf("  %s\n", op.c_str());
    }
  }
}

}  // namespace

void register_inspect(CLI::App& app) {
  auto a = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "inspect",
      "Per-operator table of what a network asks of a CIM system (at the partitioning "
      "granularity: the operators ONNX Runtime executes for the int8 model)");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  // The request's fields from api::inspect_fields(); the crossbar size is one flag ROWSxCOLS,
  // read by the request's own parser (the one Python's crossbar= goes through).
  options::add_fields(cmd, api::inspect_fields(), a->request);
  cmd->add_option_function<std::string>(
         "--crossbar", [a](const std::string& s) { a->request.set_crossbar(s); },
         "Crossbar size ROWSxCOLS")
      ->type_name("ROWSxCOLS")
      ->default_str("256x256");
  add_input_shape_option(cmd, a->model);
  cmd->add_option("--batch", a->model.batch, "Batch size for zoo models and symbolic batch dims")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--json", a->json, "Also write the table and totals as JSON to this file");
  cmd->add_flag("--quiet", a->quiet, "Do not print the table");
  cmd->callback([a] { run(*a); });
}

}  // namespace hetcim::cli
