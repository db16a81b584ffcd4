#include "api/analog_chip.h"

#include <algorithm>
#include <sstream>

#include "api/common.h"
#include "api/options.h"
#include "exec/inputs.h"
#include "hybrid/chip_runner.h"
#include "onnxio/import.h"
#include "util/error.h"
#include "xbar/chip.h"
#include "xbar/chips_yaml.h"
#include "xbar/model_layers.h"

namespace hetcim::api {
namespace {

void check_mode(const std::string& mode) {
  if (!mode.empty() && mode != "physical" && mode != "reference")
    throw user_error("mode: expected '', physical or reference, got '", mode, "'");  // the field's
}

// The one profile a FILE:PROFILE spec names.
xbar::ChipProfile one_profile(const std::string& spec, const std::string& mode, const char* job) {
  const std::vector<xbar::ChipProfile> chips = chip_profiles(spec, mode);
  if (chips.size() != 1) throw user_error(job, ": --chip needs FILE:PROFILE");
  return chips[0];
}

}  // namespace

std::vector<xbar::ChipProfile> chip_profiles(const std::string& spec, const std::string& mode) {
  check_mode(mode);
  std::vector<xbar::ChipProfile> chips;
  const std::string resolved = xbar::resolve_chip_spec(spec);  // a bare "A3": the shipped file's
  if (resolved.rfind(':') == std::string::npos) {
    chips = xbar::load_chip_profiles(resolved);
  } else {
    chips.push_back(xbar::load_chip_profile(resolved));
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

const FieldTable<AnalogAuditRequest>& analog_audit_fields() {
  using R = AnalogAuditRequest;
  static const FieldTable<R> table = {
      field("chip", &R::chip, "FILE:PROFILE, or a profile name of the shipped data/chips.yaml"),
      field("layers", &R::layers, "Comma-separated node names (empty: every mappable layer)"),
      field("chip_seed", &R::chip_seed, "Chip seed: the persistent programmed state")
          .alias("--seed"),
  };
  return table;
}

void AnalogAuditRequest::validate() const {
  if (model.empty()) throw user_error("model: required (an ONNX file with weights)");
  if (chip.empty()) throw user_error("chip: required (FILE:PROFILE)");
  check_fields(*this, analog_audit_fields());
}

AnalogAuditResult analog_audit(const AnalogAuditRequest& request) {
  request.validate();
  const graph::Graph model = onnxio::import_onnx(request.model);
  const xbar::Chip chip(one_profile(request.chip, "", "analog audit"), request.chip_seed);
  std::vector<std::string> only;
  if (!request.layers.empty()) only = analog_layers(request.layers);
  AnalogAuditResult r;
  r.provenance = library_provenance();
  r.provenance.set("source", "modelled: the weights of " + request.model + " mapped on " +
                                 xbar::resolve_chip_spec(request.chip) +
                                 " (hetcim's crossbar simulator, eq. 4-5)");
  r.provenance.set("seeds", "chip " + std::to_string(request.chip_seed));
  r.skipped = xbar::crossbar_layers(model).skipped;
  r.audits = xbar::audit_model(model, chip, only);
  return r;
}

const FieldTable<AnalogRunRequest>& analog_run_fields() {
  using R = AnalogRunRequest;
  static const FieldTable<R> table = {
      field("chip", &R::chip, "FILE:PROFILE, or a profile name of the shipped data/chips.yaml"),
      field("mode", &R::mode, "Override the profile's simulation mode ('': the profile's own)")
          .one_of({"", "physical", "reference"}),
      field("layers", &R::layers, "Comma-separated node names to run on the chip")
          .flag("--analog-layers"),
      field("chip_seed", &R::chip_seed, "Chip seed: the persistent programmed state")
          .alias("--seed"),
      field("read_seed", &R::read_seed, "Seed of the read noise"),
      field("weight_seed", &R::weight_seed, "Seed for weights the model does not carry"),
      field("input_seed", &R::input_seed, "Seed for random inputs"),
  };
  return table;
}

void AnalogRunRequest::validate() const {
  if (chip.empty()) throw user_error("chip: required (FILE:PROFILE)");
  if (layers.empty()) throw user_error("layers: required (node names to run on the chip)");
  check_fields(*this, analog_run_fields());
}

AnalogRunResult analog_run(const Model& model, const AnalogRunRequest& request) {
  request.validate();
  // fp32 lowering: BatchNorm folded into the convolutions, activations fused (the analog
  // epilogue applies them).
  const graph::Graph g = hybrid::lower_for_chip(model.graph, request.weight_seed);
  const xbar::ChipProfile profile = one_profile(request.chip, request.mode, "analog run");
  hybrid::ChipRunner runner(
      g, {profile, analog_layers(request.layers), request.chip_seed, request.read_seed});
  const std::vector<std::string>& names = g.inputs;
  exec::TensorMap inputs = exec::random_inputs(g, request.input_seed);
  for (const auto& [name, t] : request.inputs) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw user_error("inputs: ", model.spec, " has no input '", name, "'");
    inputs[name] = t;
  }
  AnalogRunResult r;
  r.input_names = names;
  r.output_names = g.outputs;
  const exec::TensorMap out = runner.outputs(inputs);
  for (const auto& [name, t] : out) r.outputs.emplace(name, t);
  r.stats = runner.stats();
  r.analog_layers = static_cast<int64_t>(runner.audits().size());
  r.provenance = library_provenance();
  r.provenance.set("source", "computed: " + model.spec + " with " + request.layers + " on " +
                                 xbar::resolve_chip_spec(request.chip) +
                                 " (hetcim's crossbar simulator), the rest on the oneDNN "
                                 "engine");
  r.provenance.set("seeds", "chip " + std::to_string(request.chip_seed) + ", read noise " +
                                std::to_string(request.read_seed) + ", inputs " +
                                std::to_string(request.input_seed) + ", weights " +
                                std::to_string(request.weight_seed));
  return r;
}

}  // namespace hetcim::api
