// hetcim analog eval | audit | run | select: seed 002's CNN with chosen layers on simulated chips,
// the per-layer mapping report of any model's weights on a chip profile, any model with chosen
// nodes on a chip, and seed 002's certified selective inference over a pool of chips.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/analog_pool.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/model_source.h"
#include "data/dataset.h"
#include "dist/dist.h"
#include "exec/inputs.h"
#include "exec/npy.h"
#include "exec/weights.h"
#include "onnxio/import.h"
#include "passes/pipeline.h"
#include "report/provenance.h"
#include "select/controller.h"
#include "select/race.h"
#include "train/evaluate.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"
#include "util/units.h"
#include "xbar/analog_graph.h"
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
  if (out.empty())
    throw user_error("--analog-layers: expected 'classifier' or a comma-separated list");
  return out;
}

void print_audit(const std::vector<xbar::MappingAudit>& audits) {
  std::printf("%-16s %11s %8s %10s %8s %11s %11s %9s %11s %11s %9s %8s %6s\n", "layer", "matrix",
              "gamma", "levels", "clipped", "MAE q", "RMSE q", "relL2 q", "MAE prog", "RMSE prog",
              "relL2 prog", "clamped", "stuck");
  for (const auto& a : audits) {
    const std::string shape = std::to_string(a.rows) + "x" + std::to_string(a.cols);
    std::printf(
        "%-16s %11s %8.4f %10lld %8lld %11.3e %11.3e %9.5f %11.3e %11.3e %9.5f %8lld %6lld\n",
        a.layer.c_str(), shape.c_str(), a.gamma, static_cast<long long>(a.distinct_levels),
        static_cast<long long>(a.clipped_weights), a.quantized.mae, a.quantized.rmse,
        a.quantized.rel_l2, a.programmed.mae, a.programmed.rmse, a.programmed.rel_l2,
        static_cast<long long>(a.clamped_devices),
        static_cast<long long>(a.stuck_low + a.stuck_high));
  }
}

void register_analog_eval(CLI::App& analog, const Provenance& provenance) {
  struct Args {
    std::string model, dataset = "fashion-mnist", data_dir, split = "test", chip, mode,
                       layers = "classifier", logits;
    uint64_t seed = 1, read_seed = 1;
    bool digital = false, quiet = false;
    train::EvalOptions options;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = analog.add_subcommand(
      "eval",
      "Accuracy of seed 002's CNN (an ONNX file from `hetcim train`) with its classifier "
      "layers on simulated chips; the convolutions run digitally");
  cmd->add_option("model", a->model, "ONNX model (race_cnn with weights)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--dataset", a->dataset, "fashion-mnist or cifar10")
      ->check(CLI::IsMember({"fashion-mnist", "cifar10"}))
      ->capture_default_str();
  cmd->add_option("--data-dir", a->data_dir, "Directory of the data set files");
  cmd->add_option("--split", a->split, "train or test")
      ->check(CLI::IsMember({"train", "test"}))
      ->capture_default_str();
  cmd->add_option("--chip", a->chip, "FILE:PROFILE (one chip) or FILE (every profile of the file)");
  cmd->add_flag("--digital", a->digital, "Also report the clean digital accuracy");
  cmd->add_option("--mode", a->mode, "Override the profiles' simulation mode")
      ->check(CLI::IsMember({"physical", "reference"}));
  cmd->add_option("--seed", a->seed, "Chip seed: the persistent programmed state")
      ->capture_default_str();
  cmd->add_option("--read-seed", a->read_seed, "Seed of the read noise")->capture_default_str();
  cmd->add_option("--analog-layers", a->layers,
                  "'classifier' or a comma-separated list of Gemm nodes")
      ->capture_default_str();
  cmd->add_option("--batch-size", a->options.batch_size,
                  "Images per analog read (reference mode shares noise per batch)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--limit", a->options.limit, "First N images only (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads", a->options.threads, "libtorch threads (0: libtorch's default)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--logits", a->logits,
                  "Write the logits (images x classes, float32) as .npy (one chip)");
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, &provenance] {
    if (a->chip.empty() && !a->digital)
      throw user_error("analog eval: give --chip and/or --digital");
    const graph::Graph model = onnxio::import_onnx(a->model);
    const data::ImageDataset d =
        data::load_dataset(a->dataset, data::parse_split(a->split), a->data_dir);
    std::vector<std::optional<xbar::ChipProfile>> runs;
    if (a->digital) runs.emplace_back(std::nullopt);
    if (!a->chip.empty())
      for (auto& c : chips_from(a->chip, a->mode)) runs.emplace_back(std::move(c));
    if (!a->logits.empty() && runs.size() != 1)
      throw user_error(
          "--logits: writes one chip's logits; give one FILE:PROFILE and no --digital");
    Provenance prov = provenance;
    prov.set("source", "accuracy measured on " + a->dataset + " (" + a->split +
                           " split) with the classifier layers on simulated chips (hetcim's "
                           "crossbar simulator, profiles from " +
                           (a->chip.empty() ? std::string("-") : a->chip) +
                           "); the convolutions and --digital run digitally (libtorch)");
    prov.set("seeds",
             "chip " + std::to_string(a->seed) + ", read noise " + std::to_string(a->read_seed));
    std::fputs(report::provenance_text(prov, "# ").c_str(), stdout);
    Progress progress("analog eval", "chips", runs.size(), !a->quiet);
    size_t done = 0;
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
                  chip ? std::string(xbar::sim_mode_name(chip->mode)).c_str() : "-",
                  100.0 * r.accuracy, static_cast<long long>(r.count), r.seconds);
      if (!a->logits.empty())
        exec::write_npy(a->logits, exec::Tensor::from_floats({r.count, d.classes}, r.logits));
      progress.update(++done);
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
      "audit",
      "Per-layer mapping report (seed 002 eq. 4-5): gamma, distinct levels, clipping, MAE, "
      "RMSE, relative L2 of the quantized and of the programmed weights");
  cmd->add_option("model", a->model, "ONNX model with weights")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--chip", a->chip, "FILE:PROFILE")->required();
  cmd->add_option("--seed", a->seed, "Chip seed")->capture_default_str();
  cmd->add_option("--layers", a->layers,
                  "Comma-separated node names (default: every mappable layer)");
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
std::pair<std::string, std::string> name_file(const std::string& spec,
                                              const std::vector<std::string>& names,
                                              const char* flag) {
  const auto eq = spec.find('=');
  if (eq != std::string::npos) return {spec.substr(0, eq), spec.substr(eq + 1)};
  if (names.size() != 1)
    throw user_error(flag, " '", spec, "': the model has ", names.size(),
                     " tensors here; use NAME=FILE");
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
      "run",
      "Run any model with chosen Conv/Gemm/MatMul nodes on a simulated chip and the rest on "
      "the reference interpreter (programmed once, fresh read noise per run)");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  cmd->add_option("--chip", a->chip, "FILE:PROFILE")->required();
  cmd->add_option("--mode", a->mode, "Override the profile's simulation mode")
      ->check(CLI::IsMember({"physical", "reference"}));
  cmd->add_option("--analog-layers", a->layers, "Comma-separated node names to run on the chip")
      ->required();
  cmd->add_option("--seed", a->seed, "Chip seed: the persistent programmed state")
      ->capture_default_str();
  cmd->add_option("--read-seed", a->read_seed, "Seed of the read noise")->capture_default_str();
  cmd->add_option("--weight-seed", a->weight_seed, "Seed for weights the model does not carry")
      ->capture_default_str();
  cmd->add_option("--input", a->inputs, ".npy input (FILE, or NAME=FILE); default: seeded random");
  cmd->add_option("--input-seed", a->input_seed, "Seed for random inputs")->capture_default_str();
  cmd->add_option("--output", a->outputs, "Write an output as .npy (FILE, or NAME=FILE)");
  cmd->add_option("--batch", a->model.batch, "Batch size of a zoo model")
      ->check(CLI::Range(1, 1 << 20))
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
    const xbar::AnalogGraph ag(std::move(g), xbar::Chip(chips[0], a->seed),
                               analog_layers(a->layers));
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
                static_cast<long long>(stats.adc_conversions),
                static_cast<long long>(stats.adc_clipped));
    OutputSet files;
    for (const std::string& spec : a->outputs) {
      const auto [name, file] = name_file(spec, ag.graph().outputs, "--output");
      files.add(file, exec::npy_bytes(out.at(name)));
    }
    files.commit();
  });
}

// Finite numbers as numbers, +-inf (an infeasible threshold, a break-even that never comes) as
// null.
nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json stats_json(const select::SelectiveStats& s) {
  return {{"rows", s.size},           {"accepted", s.accepted},
          {"errors", s.errors},       {"correct", s.correct},
          {"coverage", s.coverage()}, {"selective_risk", s.selective_risk()},
          {"accuracy", s.accuracy()}};
}

// Coverage and the selective figures at it (energies in uJ).
nlohmann::json selective_json(const select::SelectiveEnergy& e) {
  return {{"coverage", e.coverage},
          {"selective", e.selective * 1e6},
          {"reduction_vs_ensemble", e.reduction_vs_ensemble},
          {"break_even_fallback", number(e.break_even_fallback * 1e6)}};
}

nlohmann::json race_json(const select::RaceResult& r, const select::RaceOptions& o,
                         const std::vector<uint64_t>& chip_seeds,
                         const std::vector<uint64_t>& read_seeds, const Provenance& prov) {
  nlohmann::json accs = nlohmann::json::array();
  for (size_t i = 0; i < r.accelerators.size(); ++i) {
    const select::AcceleratorResult& a = r.accelerators[i];
    accs.push_back({{"name", a.name},
                    {"chip_seed", chip_seeds[i]},
                    {"read_seed", read_seeds[i]},
                    {"energy_uJ", a.energy * 1e6},
                    {"utility_per_uJ", a.utility * 1e-6},
                    {"bias", a.bias},
                    {"fit",
                     {{"feasible", a.fit.feasible},
                      {"threshold", number(a.fit.threshold)},
                      {"upper_bound", a.fit.upper_bound},
                      {"policy", stats_json(a.fit.stats)}}},
                    {"test", stats_json(a.test)}});
  }
  const select::Certificate& c = r.certificate;
  return {
      {"options",
       {{"risk", o.risk},
        {"certificate_delta", o.certificate_delta},
        {"design_risk", o.design_risk},
        {"design_delta", o.design_delta},
        {"score", std::string(select::confidence_score_name(o.score))},
        {"bias_correction", o.bias_correction},
        {"split_seed", o.split_seed},
        {"splits",
         {{"hardware", o.splits.hardware},
          {"policy", o.splits.policy},
          {"certificate", o.splits.certificate},
          {"test", o.splits.test}}},
        {"energy_uJ",
         {{"communication", o.energy.communication * 1e6},
          {"controller", o.energy.controller * 1e6},
          {"per_class", o.energy.per_class * 1e6},
          {"fallback", o.energy.fallback * 1e6}}}}},
      {"rows", r.rows},
      {"accelerators", accs},
      {"selected",
       r.selected ? nlohmann::json(r.accelerators[*r.selected].name) : nlohmann::json(nullptr)},
      {"certificate",
       {{"certified", c.certified},
        {"risk_target", c.risk_target},
        {"delta", c.delta},
        {"threshold", number(c.threshold)},
        {"upper_bound", c.upper_bound},
        {"split", stats_json(c.stats)}}},
      {"test",
       {{"digital_accuracy", r.digital_accuracy},
        {"hybrid_accuracy", r.hybrid_accuracy},
        {"ensemble_accuracy", r.ensemble_accuracy}}},
      {"energy_uJ",
       {{"source",
         "modelled: seed 002's component energy model (Table I E_i, C, controller, per "
         "class, fallback F as in options.energy_uJ)"},
        {"selected_activation", r.energy.selected_activation * 1e6},
        {"ensemble", r.energy.ensemble * 1e6},
        {"activation_reduction", r.energy.activation_reduction},
        {"at_test", r.energy.at_test ? selective_json(*r.energy.at_test) : nlohmann::json(nullptr)},
        {"at_certificate", selective_json(r.energy.at_certificate)}}},
      {"provenance", report::provenance_json(prov)}};
}

void print_race(const select::RaceResult& r, const select::RaceOptions& o) {
  std::printf("%-10s %9s %9s %9s %9s %10s %9s %9s %9s %11s\n", "chip", "accuracy", "coverage",
              "risk", "CP bound", "threshold", "test cov", "test risk", "E+C uJ", "utility/uJ");
  for (size_t i = 0; i < r.accelerators.size(); ++i) {
    const select::AcceleratorResult& a = r.accelerators[i];
    char threshold[32] = "none";
    if (a.fit.feasible) std::snprintf(threshold, sizeof threshold, "%.4f", a.fit.threshold);
    std::printf("%-10s %8.2f%% %8.2f%% %8.2f%% %8.2f%% %10s %8.2f%% %8.2f%% %9.3f %11.4f%s\n",
                a.name.c_str(), 100.0 * a.test.accuracy(), 100.0 * a.fit.stats.coverage(),
                100.0 * a.fit.stats.selective_risk(), 100.0 * a.fit.upper_bound, threshold,
                100.0 * a.test.coverage(), 100.0 * a.test.selective_risk(),
                (a.energy + o.energy.communication) * 1e6, a.utility * 1e-6,
                r.selected == i ? "  <- selected" : "");
  }
  std::printf(
      "(accuracy: forced, on the test split; coverage, risk, CP bound: policy split at the design "
      "target; test cov/risk: test split)\n");
  const select::Certificate& c = r.certificate;
  if (!r.selected) {
    std::printf(
        "selected: none (no accelerator has a feasible threshold; every query goes to the "
        "fallback)\n");
  } else {
    std::printf("selected: %s, threshold %.6g\n", r.accelerators[*r.selected].name.c_str(),
                c.threshold);
  }
  std::printf(
      "certificate: %s: %lld of %lld accepted (coverage %.2f%%), %lld errors (risk %.2f%%), "
      "one-sided %.0f%% Clopper-Pearson bound %.2f%% %s target %.2f%%\n",
      c.certified ? "CERTIFIED" : "NOT certified", static_cast<long long>(c.stats.accepted),
      static_cast<long long>(c.stats.size), 100.0 * c.stats.coverage(),
      static_cast<long long>(c.stats.errors), 100.0 * c.stats.selective_risk(),
      100.0 * (1.0 - c.delta), 100.0 * c.upper_bound, c.certified ? "<=" : ">",
      100.0 * c.risk_target);
  std::printf(
      "test split: digital %.2f%%, hybrid (accepted analog + digital fallback) %.2f%%, always-on "
      "ensemble %.2f%%\n",
      100.0 * r.digital_accuracy, 100.0 * r.hybrid_accuracy, 100.0 * r.ensemble_accuracy);
  const select::EnergyFigures& e = r.energy;
  std::printf(
      "energy per query (modelled, seed 002's energy model): selected activation %.4f uJ, "
      "always-on ensemble %.4f uJ (activation alone %.2f%% below)\n",
      e.selected_activation * 1e6, e.ensemble * 1e6, 100.0 * e.activation_reduction);
  auto line = [](const char* what, const select::SelectiveEnergy& s) {
    std::printf(
        "  %s: coverage %.2f%%, selective system %.4f uJ (%.2f%% below the ensemble), break-even "
        "fallback %.3f uJ\n",
        what, 100.0 * s.coverage, s.selective * 1e6, 100.0 * s.reduction_vs_ensemble,
        s.break_even_fallback * 1e6);
  };
  if (e.at_test)
    line("at the test-split coverage (the paper's definition)", *e.at_test);
  else
    std::printf("  at the test-split coverage (the paper's definition): n/a, no test split\n");
  line("at the certificate-split coverage", e.at_certificate);
}

void register_analog_select(CLI::App& analog, const Provenance& provenance) {
  struct Args {
    std::string model, chips, pool, mode, score = "logit_margin", json, cache, logits, policy;
    std::string fallback = "4uJ", communication = "0.12uJ", controller = "0.003uJ",
                per_class = "0.0002uJ";
    DataRequest data;
    uint64_t seed = 1, read_seed = 1;
    bool no_bias = false, quiet = false;
    train::EvalOptions eval;
    select::RaceOptions race;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = analog.add_subcommand(
      "select",
      "Seed 002 (RACE-AIMC): fit a confidence threshold per chip of a pool, select the chip "
      "with the most coverage per energy, certify its selective risk with an exact "
      "Clopper-Pearson bound on an untouched split, and model the energy per query");
  cmd->add_option("model", a->model, "ONNX model (race_cnn with weights, from `hetcim train`)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--chips", a->chips, "Chip profiles file (e.g. data/chips.yaml)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--pool", a->pool,
                  "Comma-separated units: a profile name (A0) or distinct units of one profile "
                  "(A0#1,A0#2); default: every profile of the file with an energy");
  cmd->add_option("--mode", a->mode, "Override the profiles' simulation mode")
      ->check(CLI::IsMember({"physical", "reference"}));
  cmd->add_option("--seed", a->seed,
                  "Base chip seed; a unit's chip seed is derived from it and the unit's name")
      ->capture_default_str();
  cmd->add_option("--read-seed", a->read_seed,
                  "Base read-noise seed; derived per unit name like --seed")
      ->capture_default_str();
  cmd->add_option("--dataset", a->data.dataset, "fashion-mnist or cifar10")
      ->check(CLI::IsMember({"fashion-mnist", "cifar10"}))
      ->capture_default_str();
  cmd->add_option("--data-dir", a->data.data_dir, "Directory of the data set files");
  cmd->add_option("--calibration", a->data.calibration,
                  "holdout: H/P/C from training images held out of training, T = the official "
                  "test set (the paper's protocol; default when the model's .train.json records "
                  "a holdout); test: all four roles from --split")
      ->check(CLI::IsMember({"holdout", "test"}));
  cmd->add_option("--holdout", a->data.holdout,
                  "Held-out training images (default: the model's .train.json; must match it)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--holdout-seed", a->data.holdout_seed,
                  "Seed of the held-out subset (default: the model's .train.json)");
  cmd->add_option("--split", a->data.split,
                  "--calibration test: the data set split the four roles are drawn from")
      ->check(CLI::IsMember({"train", "test"}))
      ->capture_default_str();
  cmd->add_option("--limit", a->data.limit, "First N calibration images only (0: all)")
      ->check(CLI::NonNegativeNumber);
  select::RaceOptions& o = a->race;
  cmd->add_option("--alpha", o.risk, "Deployment risk target r for the certificate")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--delta", o.certificate_delta,
                  "Certificate: the bound holds with confidence 1 - delta")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--design-alpha", o.design_risk,
                  "Design risk r_d of the threshold fit (r_d < r leaves slack)")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--design-delta", o.design_delta, "delta_d of the threshold fit")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--score", a->score,
                  "Confidence score: logit_margin, max_softmax, probability_margin, "
                  "log_odds, negative_entropy")
      ->capture_default_str();
  cmd->add_flag("--no-bias-correction", a->no_bias,
                "Skip eq. (6) (the hardware split is then unused)");
  cmd->add_option("--hardware", o.splits.hardware,
                  "Rows of the hardware split H (default 3000 with --calibration holdout, 2000 "
                  "otherwise)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--policy", o.splits.policy, "Rows of the policy split P (thresholds, selection)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--certificate", o.splits.certificate,
                  "Rows of the certificate split C (default 5000 with --calibration holdout, 4000 "
                  "otherwise)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--test", o.splits.test,
                  "Rows of the test split T: drawn with H/P/C under --calibration test (default "
                  "2000); the first N official test images under --calibration holdout (default "
                  "all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--split-seed", o.split_seed, "Seed of the random split into H, P, C (, T)")
      ->capture_default_str();
  cmd->add_option("--fallback-energy", a->fallback,
                  "Energy of the digital fallback per deferred query")
      ->capture_default_str();
  cmd->add_option("--communication-energy", a->communication,
                  "Communication cost C per activated chip")
      ->capture_default_str();
  cmd->add_option("--controller-energy", a->controller, "Controller energy per activated chip")
      ->capture_default_str();
  cmd->add_option("--class-energy", a->per_class, "Energy per fused class output")
      ->capture_default_str();
  cmd->add_option("--batch-size", a->eval.batch_size,
                  "Images per analog read (reference mode shares noise per batch)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--threads", a->eval.threads, "libtorch threads (0: libtorch's default)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--cache", a->cache,
                  "Logit cache directory: reuse the logits of earlier simulations, store new ones");
  cmd->add_option("--logits", a->logits,
                  "Replay from this logit cache only (no simulation; an error names what is "
                  "missing)");
  cmd->add_flag("--quiet", a->quiet, "No progress lines on stderr");
  cmd->add_option(
      "--json", a->json,
      "Write the per-chip table, the selection, the certificate and the energies as JSON");
  cmd->add_option("--policy-out", a->policy,
                  "Write the frozen policy (for `hetcim analog serve`): model hash, chip unit, "
                  "profile and seeds, bias, score, threshold, certificate, energies");
  cmd->callback([a, cmd, &provenance] {
    select::RaceOptions o = a->race;
    o.score = select::parse_confidence_score(a->score);
    o.bias_correction = !a->no_bias;
    o.energy.fallback = parse_quantity(a->fallback, Quantity::Energy, "--fallback-energy");
    o.energy.communication =
        parse_quantity(a->communication, Quantity::Energy, "--communication-energy");
    o.energy.controller = parse_quantity(a->controller, Quantity::Energy, "--controller-energy");
    o.energy.per_class = parse_quantity(a->per_class, Quantity::Energy, "--class-energy");
    if (!a->cache.empty() && !a->logits.empty())
      throw user_error("--cache and --logits: give one (--logits replays without simulating)");
    const std::vector<PoolUnit> units =
        parse_pool(a->chips, a->pool, a->mode, a->seed, a->read_seed);

    // Which images: the model's training record decides the default protocol, and explicit flags
    // must agree with it (the certificate is void if its rows were trained on).
    DataRequest dr = a->data;
    const std::optional<TrainRecord> rec = read_train_record(a->model);
    const bool explicit_holdout = cmd->count("--holdout") > 0;
    if (cmd->count("--calibration") == 0)
      dr.calibration = (explicit_holdout || (rec && rec->holdout > 0)) ? "holdout" : "test";
    if (dr.calibration == "holdout") {
      if (rec) {
        if (rec->holdout == 0)
          throw user_error(rec->file,
                           ": field 'holdout.images' is 0 (the model was trained on "
                           "every training image); --calibration holdout would certify on "
                           "training data. Use --calibration test");
        if (explicit_holdout && dr.holdout != rec->holdout)
          throw user_error("--holdout ", dr.holdout, " disagrees with ", rec->file,
                           " (field 'holdout.images' = ", rec->holdout, ")");
        if (cmd->count("--holdout-seed") > 0 && dr.holdout_seed != rec->holdout_seed)
          throw user_error("--holdout-seed ", dr.holdout_seed, " disagrees with ", rec->file,
                           " (field 'holdout.seed' = ", rec->holdout_seed, ")");
        if (rec->dataset != dr.dataset)
          throw user_error("--dataset ", dr.dataset, " disagrees with ", rec->file,
                           " (field 'dataset' = '", rec->dataset, "')");
        dr.holdout = rec->holdout;
        dr.holdout_seed = rec->holdout_seed;
      } else if (!explicit_holdout) {
        throw user_error("--calibration holdout: ", a->model,
                         " has no training record (.train.json); give --holdout N and "
                         "--holdout-seed S as used in training");
      }
      if (cmd->count("--hardware") == 0) o.splits.hardware = 3000;
      if (cmd->count("--certificate") == 0) o.splits.certificate = 5000;
      dr.test_images = cmd->count("--test") > 0 ? o.splits.test : -1;
      o.splits.test = 0;
    } else {
      if (cmd->count("--hardware") == 0) o.splits.hardware = 2000;
      if (cmd->count("--certificate") == 0) o.splits.certificate = 4000;
      if (cmd->count("--test") == 0) o.splits.test = 2000;
    }
    const ProtocolData d = load_protocol_data(dr);
    select::validate(o, d.calibration.count, d.test.has_value());  // before any simulation

    PoolRequest pr;
    pr.model = a->model;
    pr.units = units;
    pr.eval = a->eval;
    pr.cache_dir = a->logits.empty() ? a->cache : a->logits;
    pr.replay_only = !a->logits.empty();
    pr.quiet = a->quiet;
    // Under MPI (`mpirun -np N hetcim analog select ...`) the simulations are split over the
    // ranks; rank 0 alone reads and writes the cache, runs the protocol and writes the outputs.
    pr.over_ranks = true;
    const PoolResult pool = pool_logits(pr, d);
    if (!dist::is_root()) return;
    const select::RaceResult r = select::run_race(pool.logits, o);
    std::printf("data: %s\n", d.description.c_str());
    if (!pr.cache_dir.empty())
      std::printf("logits: %lld simulated now, %lld from the cache %s\n",
                  static_cast<long long>(pool.simulated), static_cast<long long>(pool.cached),
                  pr.cache_dir.c_str());
    print_race(r, o);
    Provenance prov = provenance;
    prov.set(
        "source",
        "logits " +
            std::string(pr.replay_only ? "replayed from the cache " + pr.cache_dir : "measured") +
            " with the classifier on simulated chips (hetcim's crossbar simulator, " + a->chips +
            "); data: " + d.description + "; energies modelled (eq. 9, --*-energy options)");
    prov.set("solver", "exact Clopper-Pearson bounds (Boost.Math)");
    prov.set("status", r.certificate.certified ? "certified" : "not certified");
    std::string seeds = "split " + std::to_string(o.split_seed) + "; chip/read seeds per unit:";
    for (const PoolUnit& u : units)
      seeds += " " + u.name + " " + std::to_string(u.chip_seed) + "/" + std::to_string(u.read_seed);
    prov.set("seeds", seeds);
    prov.set("cache", pr.cache_dir.empty()
                          ? "none"
                          : pr.cache_dir + ": " + std::to_string(pool.cached) + " cached, " +
                                std::to_string(pool.simulated) + " simulated now");
    std::fputs(report::provenance_text(prov, "# ").c_str(), stdout);
    OutputSet outputs;
    if (!a->policy.empty()) {
      const select::FrozenPolicy fp = select::freeze(r, o, d.calibration.classes);
      nlohmann::json unit = nullptr;
      if (r.selected) {
        const PoolUnit& u = units[*r.selected];
        unit = {{"name", u.name},
                {"profile", u.profile.name},
                {"fingerprint", profile_fingerprint(u.profile)},
                {"chip_seed", u.chip_seed},
                {"read_seed", u.read_seed},
                {"test_read_seed", test_read_seed(u.read_seed)}};
      }
      const nlohmann::json pj = {
          {"kind", "hetcim frozen policy (seed 002)"},
          {"model", {{"file", a->model}, {"hash", file_hash(a->model)}}},
          {"chips", {{"file", a->chips}, {"unit", unit}}},
          {"eval", {{"batch_size", a->eval.batch_size}, {"threads", a->eval.threads}}},
          {"classes", fp.classes},
          {"score", std::string(select::confidence_score_name(fp.score))},
          {"bias", fp.bias},
          {"threshold", number(fp.threshold)},
          {"energy_uJ",
           {{"activation", fp.activation_energy * 1e6}, {"fallback", fp.fallback_energy * 1e6}}},
          {"certificate",
           {{"certified", r.certificate.certified},
            {"risk_target", r.certificate.risk_target},
            {"delta", r.certificate.delta},
            {"upper_bound", r.certificate.upper_bound},
            {"split", stats_json(r.certificate.stats)}}},
          {"data", d.description}};
      outputs.add(a->policy, pj.dump(1) + "\n");
    }
    if (!a->json.empty()) {
      std::vector<uint64_t> chip_seeds, read_seeds;
      for (const PoolUnit& u : units) {
        chip_seeds.push_back(u.chip_seed);
        read_seeds.push_back(u.read_seed);
      }
      nlohmann::json j = race_json(r, o, chip_seeds, read_seeds, prov);
      j["data"] = d.description;
      j["logits_source"] = {
          {"simulated", pool.simulated}, {"cached", pool.cached}, {"cache", pr.cache_dir}};
      outputs.add(a->json, j.dump(1) + "\n");
    }
    outputs.commit();
  });
}

}  // namespace

void register_analog(CLI::App& app, const Provenance& provenance) {
  CLI::App* analog =
      app.add_subcommand("analog", "Simulated analog in-memory accelerators (seed 002)");
  analog->require_subcommand(1);
  register_analog_eval(*analog, provenance);
  register_analog_audit(*analog);
  register_analog_run(*analog);
  register_analog_select(*analog, provenance);
  register_analog_study(*analog);
  register_analog_serve(*analog);
  register_analog_drift(*analog, provenance);
}

}  // namespace hetcim::cli
