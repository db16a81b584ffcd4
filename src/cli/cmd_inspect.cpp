#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "exec/engine.h"
#include "passes/pipeline.h"
#include "report/inspect.h"
#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "workload/workload.h"

namespace hetcim::cli {
namespace {

struct InspectArgs {
  ModelSource model;
  std::string precision = "int8";
  std::string crossbar = "256x256";
  bool differential = false;
  std::string json;
  std::string dump_after;
  bool quiet = false;
};

void parse_crossbar(const std::string& s, workload::WorkloadOptions& o) {
  const std::optional<Dims> d = parse_dims(s);
  if (!d) throw user_error("--crossbar: expected ROWSxCOLS such as 256x256, got '", s, "'");
  o.xbar_rows = d->rows;
  o.xbar_cols = d->cols;
  if (o.xbar_rows <= 0 || o.xbar_cols <= 0)
    throw user_error("--crossbar: rows and columns must be positive, got '", s, "'");
}

void run(const InspectArgs& a) {
  workload::WorkloadOptions wo;
  parse_crossbar(a.crossbar, wo);
  wo.columns_per_weight = a.differential ? 2 : 1;
  passes::PipelineOptions po;
  po.precision = a.precision == "int8" ? passes::Precision::Int8 : passes::Precision::Fp32;
  wo.elem_bytes = a.precision == "int8" ? 1 : 4;
  const auto& steps = passes::pipeline_steps();
  if (!a.dump_after.empty() && std::find(steps.begin(), steps.end(), a.dump_after) == steps.end()) {
    std::string known;
    for (const auto& s : steps) known += (known.empty() ? "" : ", ") + s;
    throw user_error("--dump-after: unknown step '", a.dump_after, "' (steps: ", known, ")");
  }
  const graph::Graph g = load_model(a.model);
  const graph::Graph lowered =
      passes::lower(g, po, [&](const std::string& step, const graph::Graph& x) {
        if (step != a.dump_after) return;
        std::printf("# graph after %s: %zu nodes\n", step.c_str(), x.nodes.size());
        for (const graph::Node& n : x.nodes) {
          std::string ins, outs;
          for (const auto& t : n.inputs) ins += (ins.empty() ? "" : ", ") + t;
          for (const auto& t : n.outputs) outs += (outs.empty() ? "" : ", ") + t;
          std::printf("%-40s %-24s (%s) -> (%s)\n", n.name.c_str(), n.op_type.c_str(), ins.c_str(),
                      outs.c_str());
        }
      });
  const workload::Workload w = workload::analyze(lowered, wo);
  const report::InspectHeader h{a.model.spec, a.precision, workload::count_params(g)};
  // What `hetcim run` would refuse (it checks the same table before executing anything).
  const std::vector<std::string> refused = exec::unsupported_operators(lowered);
  if (!a.json.empty()) {
    nlohmann::json j = report::inspect_json(h, w, wo);
    j["run_cannot_execute"] = refused;
    write_file_atomically(a.json, j.dump(1) + "\n");
  }
  if (!a.quiet) {
    std::fputs(report::inspect_table(h, w, wo).c_str(), stdout);
    if (refused.empty()) {
      std::printf("hetcim run: every operator has a kernel\n");
    } else {
      std::printf("hetcim run cannot execute %zu operator%s:\n", refused.size(),
                  refused.size() == 1 ? "" : "s");
      for (const std::string& r : refused) std::printf("  %s\n", r.c_str());
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
  cmd->add_option("--precision", a->precision, "Deployment precision")
      ->check(CLI::IsMember({"int8", "fp32"}))
      ->capture_default_str();
  cmd->add_option("--crossbar", a->crossbar, "Crossbar size ROWSxCOLS")->capture_default_str();
  cmd->add_flag("--differential", a->differential,
                "Two columns per signed weight (differential G+/G- mapping) in the crossbar count");
  add_input_shape_option(cmd, a->model);
  cmd->add_option("--batch", a->model.batch, "Batch size for zoo models and symbolic batch dims")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--json", a->json, "Also write the table and totals as JSON to this file");
  cmd->add_option("--dump-after", a->dump_after, "Print the graph after this pipeline step");
  cmd->add_flag("--quiet", a->quiet, "Do not print the table");
  cmd->callback([a] { run(*a); });
}

}  // namespace hetcim::cli
