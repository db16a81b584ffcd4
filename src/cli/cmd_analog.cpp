// hetcim analog eval | audit | run | select: seed 002's CNN with chosen layers on simulated chips,
// the per-layer mapping report of any model's weights on a chip profile, any model with chosen
// nodes on a chip, and seed 002's certified selective inference over a pool of chips. Each is
// flags -> api request -> one api call (api/analog_chip.h, api_torch/analog.h) -> report/ text.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "api/analog_chip.h"
#include "api/common.h"
#include "api_torch/analog.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "exec/npy.h"
#include "report/analog.h"
#include "report/provenance.h"
#include "report/race_select.h"
#include "util/error.h"
#include "util/output_set.h"
#include "util/progress.h"
#include "xbar/chip_profile.h"

namespace hetcim::cli {
namespace {

void register_analog_eval(CLI::App& analog, const Provenance& provenance) {
  struct Args {
    api::AnalogEvalRequest request;
    std::string logits, json;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  api::AnalogEvalRequest& q = a->request;
  CLI::App* cmd = analog.add_subcommand(
      "eval",
      "Accuracy of seed 002's CNN (an ONNX file from `hetcim train`) with its classifier "
      "layers on simulated chips; the convolutions run digitally");
  cmd->add_option("model", q.model, "ONNX model (race_cnn with weights)")
      ->required()
      ->check(CLI::ExistingFile);
  options::add_fields(cmd, api::analog_eval_fields(), q);
  cmd->add_option("--logits", a->logits,
                  "Write the logits (images x classes, float32) as .npy (one chip)");
  cmd->add_option("--json", a->json,
                  "Write the accuracy per chip (and the digital model) with the provenance as "
                  "JSON");
  options::quiet(cmd, a->quiet);
  cmd->callback([a, &provenance] {
    api::AnalogEvalRequest q = a->request;
    q.one_run = !a->logits.empty();
    Progress progress("analog eval", "chips", 0, !a->quiet);
    const api::AnalogEvalResult r = api::analog_eval(q, [&](size_t done, size_t total) {
      progress.set_total(total);
      progress.update(done);
    });
    const std::vector<results::AnalogEvalRow> rows = api::analog_eval_rows(r);
    const Provenance prov = api::with_caller(r.provenance, provenance);
    OutputSet outputs;
    if (!a->logits.empty())
      outputs.add(a->logits, exec::npy_bytes(exec::Tensor::from_floats(
                                 {r.runs[0].result.count, r.classes}, r.runs[0].result.logits)));
    if (!a->json.empty())
      outputs.add(a->json, report::analog_eval_json(rows, q.dataset, q.split, prov).dump(1) + "\n");
    outputs.commit();
    std::fputs(report::provenance_text(prov, "# ").c_str(), stdout);
    std::fputs(report::analog_eval_text(rows).c_str(), stdout);
  });
}

void register_analog_audit(CLI::App& analog) {
  auto q = std::make_shared<api::AnalogAuditRequest>();
  CLI::App* cmd = analog.add_subcommand(
      "audit",
      "Per-layer mapping report (seed 002 eq. 4-5): gamma, distinct levels, clipping, MAE, "
      "RMSE, relative L2 of the quantized and of the programmed weights");
  cmd->add_option("model", q->model, "ONNX model with weights")
      ->required()
      ->check(CLI::ExistingFile);
  options::add_fields(cmd, api::analog_audit_fields(), *q)[0]->required();  // --chip
  cmd->callback([q] {
    const api::AnalogAuditResult r = api::analog_audit(*q);
    std::fputs(report::analog_audit_text(r.audits, r.skipped).c_str(), stdout);
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
    api::AnalogRunRequest request;
    std::vector<std::string> inputs, outputs;
  };
  auto a = std::make_shared<Args>();
  api::AnalogRunRequest& q = a->request;
  CLI::App* cmd = analog.add_subcommand(
      "run",
      "Run any model with chosen Conv/Gemm/MatMul nodes on a simulated chip and the rest on "
      "the reference interpreter (programmed once, fresh read noise per run)");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  const std::vector<CLI::Option*> flags = options::add_fields(cmd, api::analog_run_fields(), q);
  flags[0]->required();  // --chip
  flags[2]->required();  // --analog-layers
  cmd->add_option("--input", a->inputs, ".npy input (FILE, or NAME=FILE); default: seeded random");
  cmd->add_option("--output", a->outputs, "Write an output as .npy (FILE, or NAME=FILE)");
  cmd->add_option("--batch", a->model.batch, "Batch size of a zoo model")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->callback([a] {
    const api::Model model = load_api_model(a->model);
    api::AnalogRunRequest q = a->request;
    for (const std::string& spec : a->inputs) {
      const auto [name, file] = name_file(spec, model.graph.inputs, "--input");
      q.inputs[name] = exec::read_npy(file);
    }
    const api::AnalogRunResult r = api::analog_run(model, q);
    OutputSet files;
    for (const std::string& spec : a->outputs) {
      const auto [name, file] = name_file(spec, r.output_names, "--output");
      if (!r.outputs.contains(name))
        throw user_error("--output '", spec, "': the model has no output '", name, "'");
      files.add(file, exec::npy_bytes(r.outputs.at(name)));
    }
    std::fputs(report::analog_run_text(r.outputs, r.analog_layers, r.stats).c_str(), stdout);
    files.commit();
  });
}

void register_analog_select(CLI::App& analog, const Provenance& provenance) {
  struct Args {
    api::AnalogSelectRequest request;
    std::string json, policy;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  api::AnalogSelectRequest& q = a->request;
  CLI::App* cmd = analog.add_subcommand(
      "select",
      "Seed 002 (RACE-AIMC): fit a confidence threshold per chip of a pool, select the chip "
      "with the most coverage per energy, certify its selective risk with an exact "
      "Clopper-Pearson bound on an untouched split, and model the energy per query");
  cmd->add_option("model", q.model, "ONNX model (race_cnn with weights, from `hetcim train`)")
      ->required()
      ->check(CLI::ExistingFile);
  // The request's fields from api::analog_select_fields(); --chips is required and must exist.
  options::add_fields(cmd, api::analog_select_fields(), q)[0]->required()->check(CLI::ExistingFile);
  options::quiet(cmd, a->quiet, "No progress lines on stderr");
  cmd->add_option(
      "--json", a->json,
      "Write the per-chip table, the selection, the certificate and the energies as JSON");
  cmd->add_option("--policy-out", a->policy,
                  "Write the frozen policy (for `hetcim analog serve`): model hash, chip unit, "
                  "profile and seeds, bias, score, threshold, certificate, energies");
  cmd->callback([a, &provenance] {
    api::AnalogSelectRequest q = a->request;
    q.on_simulation = options::stderr_lines(a->quiet);
    q.on_cache_warning = [](const std::string& w) {  // --quiet or not: a cache entry was refused
      std::fprintf(stderr, "hetcim: warning: %s\n", w.c_str());
    };
    // Under MPI (`mpirun -np N hetcim analog select ...`) the simulations are split over the
    // ranks; rank 0 alone reads and writes the cache, runs the protocol and writes the outputs.
    q.over_ranks = true;
    const api::AnalogSelectResult r = api::analog_select(q);
    if (!r.root) return;
    std::printf("data: %s\n", r.data.c_str());
    if (!r.cache_dir.empty())
      std::printf("logits: %lld simulated now, %lld from the cache %s\n",
                  static_cast<long long>(r.simulated), static_cast<long long>(r.cached),
                  r.cache_dir.c_str());
    std::fputs(report::race_select_text(r.race, r.options).c_str(), stdout);
    const Provenance prov = api::with_caller(r.provenance, provenance);
    std::fputs(report::provenance_text(prov, "# ").c_str(), stdout);
    OutputSet outputs;
    if (!a->policy.empty()) outputs.add(a->policy, api::policy_json(q, r).dump(1) + "\n");
    if (!a->json.empty()) {
      std::vector<uint64_t> chip_seeds, read_seeds;
      for (const api::PoolUnit& u : r.units) {
        chip_seeds.push_back(u.chip_seed);
        read_seeds.push_back(u.read_seed);
      }
      outputs.add(a->json, report::race_select_json(r.race, r.options, chip_seeds, read_seeds, prov,
                                                    r.data, {r.simulated, r.cached, r.cache_dir})
                                   .dump(1) +
                               "\n");
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
