#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "onnxio/export.h"

namespace hetcim::cli {

void register_export(CLI::App& app) {
  struct Args {
    ModelSource model;
    std::string onnx;
    uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a model (usually from the zoo) as a standard ONNX file; weights the model "
                "does not carry are drawn from --seed");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  cmd->add_option("--onnx", a->onnx, "Output ONNX file")->required();
  cmd->add_option("--seed", a->seed, "Seed for weights the model does not carry")->capture_default_str();
  cmd->add_option("--batch", a->model.batch, "Batch size")->check(CLI::Range(1, 1 << 20))->capture_default_str();
  cmd->callback([a] {
    const graph::Graph g = load_model(a->model);
    onnxio::ExportOptions o;
    o.seed = a->seed;
    onnxio::export_onnx(g, a->onnx, o);
    std::printf("wrote %s (%zu nodes)\n", a->onnx.c_str(), g.nodes.size());
  });
}

}  // namespace hetcim::cli
