// hetcim export: flags -> api::export_onnx (api/export.h) -> the .onnx file through one OutputSet.
#include <cstdio>
#include <memory>

#include "api/export.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "util/files.h"
#include "util/output_set.h"

namespace hetcim::cli {

void register_export(CLI::App& app) {
  struct Args {
    ModelSource model;
    std::string onnx;
    api::ExportRequest request;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a model (usually from the zoo) as a standard ONNX file; weights the model "
      "does not carry are drawn from --weight-seed");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  cmd->add_option("--onnx", a->onnx, "Output ONNX file")->required();
  cmd->add_option("--batch", a->model.batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  options::add_fields(cmd, api::export_fields(), a->request);
  cmd->callback([a] {
    a->request.validate();
    OutputSet out;
    (void)resolve_output_path(a->onnx);
    const api::ExportResult r = api::export_onnx(load_api_model(a->model), a->request);
    out.add(a->onnx, r.onnx);
    out.commit();
    std::printf("wrote %s (%zu nodes)\n", a->onnx.c_str(), r.nodes);
  });
}

}  // namespace hetcim::cli
