#include "cli/torch_flags.h"

#include <cstdio>

#include "cli/options.h"
#include "exec/npy.h"
#include "report/analog.h"
#include "util/error.h"
#include "util/output_set.h"

namespace hetcim::cli {

CLI::App* add_train_command(CLI::App& app, TrainArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "train",
      "Train the CNN of RACE-AIMC (Yousuf, Lueker-Boden 2026) (race-cnn) with libtorch: AdamW, "
      "cosine schedule, random crop and flip; writes the trained model as ONNX");
  cmd->add_option("model", a.model, "Model to train (race-cnn)")
      ->required()
      ->check(CLI::IsMember({"race-cnn"}));
  // The request's fields and its training options (api::train_fields).
  options::add_fields(cmd, api::train_fields(), a.request);
  cmd->get_option("--out")->required();
  cmd->add_flag("--quiet", a.quiet, "No progress bar");
  return cmd;
}

CLI::App* add_analog_group(CLI::App& app) {
  CLI::App* analog = app.add_subcommand(
      "analog",
      "Simulated analog in-memory accelerators (RACE-AIMC: Yousuf, Lueker-Boden 2026, "
      "'RACE-AIMC: Selective Inference for Heterogeneous Analog In-Memory Accelerators at the "
      "Edge')");
  analog->require_subcommand(1);
  return analog;
}

CLI::App* add_analog_eval(CLI::App& analog, AnalogEvalArgs& a) {
  api::AnalogEvalRequest& q = a.request;
  CLI::App* cmd = analog.add_subcommand(
      "eval",
      "Accuracy of RACE-AIMC's CNN (an ONNX file from `hetcim train`) with its classifier "
      "layers on simulated chips; the convolutions run digitally");
  cmd->add_option("model", q.model, "ONNX model (race_cnn with weights)")
      ->required()
      ->check(CLI::ExistingFile);
  options::add_fields(cmd, api::analog_eval_fields(), q);
  cmd->add_option("--logits", a.logits,
                  "Write the logits (images x classes, float32) as .npy (one chip)");
  cmd->add_option("--json", a.json,
                  "Write the accuracy per chip (and the digital model) with the provenance as "
                  "JSON");
  options::quiet(cmd, a.quiet);
  return cmd;
}

CLI::App* add_analog_audit(CLI::App& analog, api::AnalogAuditRequest& q) {
  CLI::App* cmd = analog.add_subcommand(
      "audit",
      "Per-layer mapping report (RACE-AIMC eq. 4-5): gamma, distinct levels, clipping, MAE, "
      "RMSE, relative L2 of the quantized and of the programmed weights");
  cmd->add_option("model", q.model, "ONNX model with weights")
      ->required()
      ->check(CLI::ExistingFile);
  options::add_fields(cmd, api::analog_audit_fields(), q)[0]->required();  // --chip
  return cmd;
}

CLI::App* add_analog_run(CLI::App& analog, AnalogRunArgs& a) {
  api::AnalogRunRequest& q = a.request;
  CLI::App* cmd = analog.add_subcommand(
      "run",
      "Run any model with chosen Conv/Gemm/MatMul nodes on a simulated chip and the rest on "
      "the reference interpreter (programmed once, fresh read noise per run)");
  cmd->add_option("model", a.model.spec, "Zoo model name or ONNX file")->required();
  const std::vector<CLI::Option*> flags = options::add_fields(cmd, api::analog_run_fields(), q);
  flags[0]->required();  // --chip
  flags[2]->required();  // --analog-layers
  cmd->add_option("--input", a.inputs, ".npy input (FILE, or NAME=FILE); default: seeded random");
  cmd->add_option("--output", a.outputs, "Write an output as .npy (FILE, or NAME=FILE)");
  cmd->add_option("--batch", a.model.batch, "Batch size of a zoo model")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  return cmd;
}

CLI::App* add_analog_select(CLI::App& analog, AnalogSelectArgs& a) {
  api::AnalogSelectRequest& q = a.request;
  CLI::App* cmd = analog.add_subcommand(
      "select",
      "RACE-AIMC: fit a confidence threshold per chip of a pool, select the chip with the most "
      "coverage per energy, certify its selective risk with an exact Clopper-Pearson bound on an "
      "untouched split, and model the energy per query");
  cmd->add_option("model", q.model, "ONNX model (race_cnn with weights, from `hetcim train`)")
      ->required()
      ->check(CLI::ExistingFile);
  // The request's fields from api::analog_select_fields(); --chips is required and must exist.
  options::add_fields(cmd, api::analog_select_fields(), q)[0]->required()->check(CLI::ExistingFile);
  options::quiet(cmd, a.quiet, "No progress lines on stderr");
  cmd->add_option(
      "--json", a.json,
      "Write the per-chip table, the selection, the certificate and the energies as JSON");
  cmd->add_option("--policy-out", a.policy,
                  "Write the frozen policy (for `hetcim analog serve`): model hash, chip unit, "
                  "profile and seeds, bias, score, threshold, certificate, energies");
  return cmd;
}

CLI::App* add_analog_study(CLI::App& analog, AnalogStudyArgs& a) {
  CLI::App* cmd = analog.add_subcommand(
      "study",
      "RACE-AIMC's experiments: train or reuse N models with held-out calibration images, "
      "simulate each chip once per model (logit cache), replay the protocol and its ablations, "
      "write Table II / III, Fig. 2 a-d analogues and report.html");
  options::add_fields(cmd, api::analog_study_fields(), a.request);
  cmd->get_option("--chips")->required()->check(CLI::ExistingFile);
  cmd->get_option("--out")->required();
  cmd->add_option("--design-risks", a.design_risks,
                  "Design risks of the sweep (Fig. 2b), comma-separated, each in (0, 1)")
      ->capture_default_str();
  options::quiet(cmd, a.quiet);
  options::figure_flags(cmd, a.drawing);
  return cmd;
}

CLI::App* add_analog_serve(CLI::App& analog, AnalogServeArgs& a) {
  CLI::App* cmd = analog.add_subcommand(
      "serve",
      "RACE-AIMC online: apply a frozen policy (from `analog select --policy-out`) query by query: "
      "one analog inference on the selected chip, then accept, fallback or abstain; coverage and "
      "modelled energy");
  cmd->add_option("policy", a.request.policy,
                  "Policy file written by `hetcim analog select --policy-out`")
      ->required()
      ->check(CLI::ExistingFile);
  // The request's fields from api::analog_serve_fields().
  options::add_fields(cmd, api::analog_serve_fields(), a.request);
  cmd->add_option("--decisions", a.decisions,
                  "Write one CSV row per query: route, label, score ('-': to stdout, each batch "
                  "as soon as it is decided; the summary then goes to stderr)");
  cmd->add_option("--json", a.json, "Write the counts, coverage and energy as JSON");
  options::quiet(cmd, a.quiet);
  return cmd;
}

CLI::App* add_analog_drift(CLI::App& analog, AnalogDriftArgs& a) {
  CLI::App* cmd = analog.add_subcommand(
      "drift",
      "Accuracy of RACE-AIMC's CNN on one chip read at increasing times after programming "
      "(conductance drift from the chip profile), without and with global drift compensation");
  cmd->add_option("model", a.request.model,
                  "ONNX model (race_cnn with weights, e.g. from `hetcim train`)")
      ->required()
      ->check(CLI::ExistingFile);
  // The request's fields from api::analog_drift_fields().
  options::add_fields(cmd, api::analog_drift_fields(), a.request);
  cmd->add_option("--out", a.out, "Output directory: drift.txt, drift.json, drift.{svg,pdf,png}")
      ->required();
  options::quiet(cmd, a.quiet);
  options::figure_flags(cmd, a.drawing);
  return cmd;
}

void run_analog_audit(const api::AnalogAuditRequest& q) {
  const api::AnalogAuditResult r = api::analog_audit(q);
  std::fputs(report::analog_audit_text(r.audits, r.skipped).c_str(), stdout);
}

namespace {

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

}  // namespace

void run_analog_run(const AnalogRunArgs& a) {
  const api::Model model = load_api_model(a.model);
  api::AnalogRunRequest q = a.request;
  for (const std::string& spec : a.inputs) {
    const auto [name, file] = name_file(spec, model.graph.inputs, "--input");
    q.inputs[name] = exec::read_npy(file);
  }
  const api::AnalogRunResult r = api::analog_run(model, q);
  OutputSet files;
  for (const std::string& spec : a.outputs) {
    const auto [name, file] = name_file(spec, r.output_names, "--output");
    if (!r.outputs.contains(name))
      throw user_error("--output '", spec, "': the model has no output '", name, "'");
    files.add(file, exec::npy_bytes(r.outputs.at(name)));
  }
  std::fputs(report::analog_run_text(r.outputs, r.analog_layers, r.stats).c_str(), stdout);
  files.commit();
}

}  // namespace hetcim::cli
