#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "exec/calibration.h"
#include "exec/qdq_export.h"
#include "onnxio/export.h"

namespace hetcim::cli {

void register_export(CLI::App& app) {
  struct Args {
    ModelSource model;
    std::string onnx;
    uint64_t seed = 1;
    bool int8 = false;
    exec::CalibrationOptions calibration;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a model (usually from the zoo) as a standard ONNX file; weights the model "
      "does not carry are drawn from --seed");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  cmd->add_option("--onnx", a->onnx, "Output ONNX file")->required();
  cmd->add_option("--seed", a->seed, "Seed for weights the model does not carry")
      ->capture_default_str();
  cmd->add_option("--batch", a->model.batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--int8", a->int8,
                "Write the statically quantized int8 model in QDQ form (BatchNorm folded, scales "
                "calibrated on seeded random inputs, per-channel int8 weights): what `hetcim run "
                "--precision int8` executes");
  cmd->add_option("--calibration-seed", a->calibration.seed, "Seed for --int8 calibration inputs")
      ->capture_default_str();
  cmd->add_option("--calibration-samples", a->calibration.samples,
                  "Random inputs for --int8 calibration")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->callback([a] {
    graph::Graph g = load_model(a->model);
    if (a->int8)
      g = exec::to_qdq(exec::prepare(g, {passes::Precision::Int8, a->seed, a->calibration}));
    onnxio::ExportOptions o;
    o.seed = a->seed;
    onnxio::export_onnx(g, a->onnx, o);
    std::printf("wrote %s (%zu nodes)\n", a->onnx.c_str(), g.nodes.size());
  });
}

}  // namespace hetcim::cli
