// hetcim analog eval | audit | run: seed 002's CNN with chosen layers on simulated chips, the
// per-layer mapping report of any model's weights on a chip profile, and any model with chosen
// nodes on a chip.
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "data/dataset.h"
#include "cli/model_source.h"
#include "exec/inputs.h"
#include "exec/npy.h"
#include "exec/weights.h"
#include "xbar/analog_graph.h"
#include "onnxio/import.h"
#include "passes/pipeline.h"
#include "train/evaluate.h"
#include "util/error.h"
#include "xbar/chip.h"
#include "xbar/chips_yaml.h"
#include "xbar/model_layers.h"

namespace hetcim::cli {
namespace {

// "FILE:NAME" -> that profile; "FILE" (an existing file without a profile name) -> all of its
// profiles. --mode overrides every profile's simulation mode.
std::vector<xbar::ChipProfile> chips_from(const std::string& spec, const std::string& mode) {
  std::vector<xbar::ChipProfile> chips;
  const auto colon = spec.rfind(':');
  if (colon == std::string::npos) {
    chips = xbar::load_chip_profiles(spec);
  } else {
    chips.push_back(xbar::load_chip_profile(spec));
  }
  for (auto& c : chips) {
    if (mode == "reference") c.mode = xbar::SimMode::Reference;
    if (mode == "physical") c.mode = xbar::SimMode::Physical;
    xbar::validate_profile(c, spec);
  }
  return chips;
}

std::vector<std::string> analog_layers(const std::string& spec) {
  if (spec == "classifier") return {"classifier.0", "classifier.2"};
  std::vector<std::string> out;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  if (out.empty()) throw user_error("--analog-layers: expected 'classifier' or a comma-separated list");
  return out;
}

void print_audit(const std::vector<xbar::MappingAudit>& audits) {
  std::printf("%-16s %11s %8s %10s %8s %11s %11s %9s %11s %11s %9s %8s %6s\n", "layer", "matrix",
              "gamma", "levels", "clipped", "MAE q", "RMSE q", "relL2 q", "MAE prog", "RMSE prog",
              "relL2 prog", "clamped", "stuck");
  for (const auto& a : audits) {
    const std::string shape = std::to_string(a.rows) + "x" + std::to_string(a.cols);
    std::printf("%-16s %11s %8.4f %10lld %8lld %11.3e %11.3e %9.5f %11.3e %11.3e %9.5f %8lld %6lld\n",
                a.layer.c_str(), shape.c_str(), a.gamma, static_cast<long long>(a.distinct_levels),
                static_cast<long long>(a.clipped_weights), a.quantized.mae, a.quantized.rmse,
                a.quantized.rel_l2, a.programmed.mae, a.programmed.rmse, a.programmed.rel_l2,
                static_cast<long long>(a.clamped_devices),
                static_cast<long long>(a.stuck_low + a.stuck_high));
  }
}

void register_analog_eval(CLI::App& analog) {
  struct Args {
    std::string model, dataset = "fashion-mnist", data_dir, split = "test", chip, mode, layers = "classifier",
                       logits;
    uint64_t seed = 1, read_seed = 1;
    bool digital = false;
    train::EvalOptions options;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = analog.add_subcommand(
      "eval", "Accuracy of seed 002's CNN (an ONNX file from `hetcim train`) with its classifier "
              "layers on simulated chips; the convolutions run digitally");
  cmd->add_option("model", a->model, "ONNX model (race_cnn with weights)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--dataset", a->dataset, "fashion-mnist or cifar10")
      ->check(CLI::IsMember({"fashion-mnist", "cifar10"}))->capture_default_str();
  cmd->add_option("--data-dir", a->data_dir, "Directory of the data set files");
  cmd->add_option("--split", a->split, "train or test")->check(CLI::IsMember({"train", "test"}))->capture_default_str();
  cmd->add_option("--chip", a->chip, "FILE:PROFILE (one chip) or FILE (every profile of the file)");
  cmd->add_flag("--digital", a->digital, "Also report the clean digital accuracy");
  cmd->add_option("--mode", a->mode, "Override the profiles' simulation mode")
      ->check(CLI::IsMember({"physical", "reference"}));
  cmd->add_option("--seed", a->seed, "Chip seed: the persistent programmed state")->capture_default_str();
  cmd->add_option("--read-seed", a->read_seed, "Seed of the read noise")->capture_default_str();
  cmd->add_option("--analog-layers", a->layers, "'classifier' or a comma-separated list of Gemm nodes")
      ->capture_default_str();
  cmd->add_option("--batch-size", a->options.batch_size, "Images per analog read (reference mode shares noise per batch)")
      ->check(CLI::Range(1, 1 << 20))->capture_default_str();
  cmd->add_option("--limit", a->options.limit, "First N images only (0: all)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads", a->options.threads, "libtorch threads (0: libtorch's default)")
      ->check(CLI::Range(0, 1024))->capture_default_str();
  cmd->add_option("--logits", a->logits, "Write the logits (images x classes, float32) as .npy (one chip)");
  cmd->callback([a] {
    if (a->chip.empty() && !a->digital) throw user_error("analog eval: give --chip and/or --digital");
    const graph::Graph model = onnxio::import_onnx(a->model);
    const data::ImageDataset d = data::load_dataset(a->dataset, data::parse_split(a->split), a->data_dir);
    std::vector<std::optional<xbar::ChipProfile>> runs;
    if (a->digital) runs.emplace_back(std::nullopt);
    if (!a->chip.empty())
      for (auto& c : chips_from(a->chip, a->mode)) runs.emplace_back(std::move(c));
    if (!a->logits.empty() && runs.size() != 1)
      throw user_error("--logits: writes one chip's logits; give one FILE:PROFILE and no --digital");
    bool header = false;
    for (const auto& chip : runs) {
      train::EvalOptions o = a->options;
      o.chip = chip;
      o.chip_seed = a->seed;
      o.read_seed = a->read_seed;
      o.analog_layers = analog_layers(a->layers);
      const train::EvalResult r = train::evaluate_race_cnn(model, d, o);
      if (!header) {
        std::printf("%-10s %-10s %10s %9s %9s\n", "chip", "mode", "accuracy", "images", "seconds");
        header = true;
      }
      std::printf("%-10s %-10s %9.2f%% %9lld %9.2f\n", chip ? chip->name.c_str() : "digital",
                  chip ? std::string(xbar::sim_mode_name(chip->mode)).c_str() : "-", 100.0 * r.accuracy,
                  static_cast<long long>(r.count), r.seconds);
      if (!a->logits.empty())
        exec::write_npy(a->logits, exec::Tensor::from_floats({r.count, d.classes}, r.logits));
    }
  });
}

void register_analog_audit(CLI::App& analog) {
  struct Args {
    std::string model, chip, mode, layers;
    uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = analog.add_subcommand(
      "audit", "Per-layer mapping report (seed 002 eq. 4-5): gamma, distinct levels, clipping, MAE, "
               "RMSE, relative L2 of the quantized and of the programmed weights");
  cmd->add_option("model", a->model, "ONNX model with weights")->required()->check(CLI::ExistingFile);
  cmd->add_option("--chip", a->chip, "FILE:PROFILE")->required();
  cmd->add_option("--seed", a->seed, "Chip seed")->capture_default_str();
  cmd->add_option("--layers", a->layers, "Comma-separated node names (default: every mappable layer)");
  cmd->callback([a] {
    const graph::Graph model = onnxio::import_onnx(a->model);
    const auto chips = chips_from(a->chip, "");
    if (chips.size() != 1) throw user_error("analog audit: --chip needs FILE:PROFILE");
    const xbar::Chip chip(chips[0], a->seed);
    std::vector<std::string> only;
    if (!a->layers.empty()) only = analog_layers(a->layers);
    const xbar::ModelLayers layers = xbar::crossbar_layers(model);
    print_audit(xbar::audit_model(model, chip, only));
    for (const auto& s : layers.skipped) std::printf("not mapped: %s\n", s.c_str());
  });
}

// NAME=FILE, or FILE for the model's only input/output.
std::pair<std::string, std::string> name_file(const std::string& spec, const std::vector<std::string>& names,
                                              const char* flag) {
  const auto eq = spec.find('=');
  if (eq != std::string::npos) return {spec.substr(0, eq), spec.substr(eq + 1)};
  if (names.size() != 1)
    throw user_error(flag, " '", spec, "': the model has ", names.size(), " tensors here; use NAME=FILE");
  return {names[0], spec};
}

void register_analog_run(CLI::App& analog) {
  struct Args {
    ModelSource model;
    std::string chip, mode, layers;
    std::vector<std::string> inputs, outputs;
    uint64_t seed = 1, read_seed = 1, weight_seed = 1, input_seed = 7;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = analog.add_subcommand(
      "run", "Run any model with chosen Conv/Gemm/MatMul nodes on a simulated chip and the rest on "
             "the reference interpreter (programmed once, fresh read noise per run)");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  cmd->add_option("--chip", a->chip, "FILE:PROFILE")->required();
  cmd->add_option("--mode", a->mode, "Override the profile's simulation mode")
      ->check(CLI::IsMember({"physical", "reference"}));
  cmd->add_option("--analog-layers", a->layers, "Comma-separated node names to run on the chip")->required();
  cmd->add_option("--seed", a->seed, "Chip seed: the persistent programmed state")->capture_default_str();
  cmd->add_option("--read-seed", a->read_seed, "Seed of the read noise")->capture_default_str();
  cmd->add_option("--weight-seed", a->weight_seed, "Seed for weights the model does not carry")->capture_default_str();
  cmd->add_option("--input", a->inputs, ".npy input (FILE, or NAME=FILE); default: seeded random");
  cmd->add_option("--input-seed", a->input_seed, "Seed for random inputs")->capture_default_str();
  cmd->add_option("--output", a->outputs, "Write an output as .npy (FILE, or NAME=FILE)");
  cmd->add_option("--batch", a->model.batch, "Batch size of a zoo model")->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->callback([a] {
    graph::Graph g = load_model(a->model);
    (void)exec::materialize_weights(g, a->weight_seed);
    // fp32 lowering: BatchNorm folded into the convolutions, activations fused (the analog
    // epilogue applies them), as the reference interpreter executes graphs.
    passes::PipelineOptions lowering;
    lowering.precision = passes::Precision::Fp32;
    g = passes::lower(g, lowering);
    const auto chips = chips_from(a->chip, a->mode);
    if (chips.size() != 1) throw user_error("analog run: --chip needs FILE:PROFILE");
    const xbar::AnalogGraph ag(std::move(g), xbar::Chip(chips[0], a->seed), analog_layers(a->layers));
    exec::TensorMap inputs = exec::random_inputs(ag.graph(), a->input_seed);
    for (const std::string& spec : a->inputs) {
      const auto [name, file] = name_file(spec, ag.graph().inputs, "--input");
      inputs[name] = exec::read_npy(file);
    }
    xbar::Rng rng(a->read_seed);
    xbar::ForwardStats stats;
    const exec::TensorMap out = ag.run(inputs, rng, &stats);
    for (const auto& [name, t] : out)
      std::printf("output %s: %s\n", name.c_str(), graph::shape_str(t.shape).c_str());
    std::printf("analog layers: %zu, DAC conversions %lld, ADC conversions %lld (%lld clipped)\n",
                ag.audits().size(), static_cast<long long>(stats.dac_conversions),
                static_cast<long long>(stats.adc_conversions), static_cast<long long>(stats.adc_clipped));
    for (const std::string& spec : a->outputs) {
      const auto [name, file] = name_file(spec, ag.graph().outputs, "--output");
      exec::write_npy(file, out.at(name));
    }
  });
}

}  // namespace

void register_analog(CLI::App& app) {
  CLI::App* analog = app.add_subcommand("analog", "Simulated analog in-memory accelerators (seed 002)");
  analog->require_subcommand(1);
  register_analog_eval(*analog);
  register_analog_audit(*analog);
  register_analog_run(*analog);
}

}  // namespace hetcim::cli
