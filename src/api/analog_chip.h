// Any network on a simulated analog chip, without libtorch (seed 002's crossbar model, xbar/):
// `analog_audit` (the per-layer mapping report of a model's weights on a chip profile: eq. (4)-(5)
// quantization and programming errors) and `analog_run` (chosen Conv/Gemm/MatMul nodes on the chip,
// the rest on the oneDNN engine: hybrid::ChipRunner, programmed once and read with seeded noise).
// The pieces every analog job shares: chip profiles named on a command line and the analog-layer
// list.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/model.h"
#include "api/status.h"
#include "exec/tensor.h"
#include "util/provenance.h"
#include "xbar/chip_profile.h"
#include "xbar/mapping.h"
#include "xbar/programmed_layer.h"

namespace hetcim::api {

// "FILE:NAME" -> that profile; a bare "NAME" (no such file) -> that profile of the shipped
// data/chips.yaml (xbar::resolve_chip_spec); "FILE" (an existing file without a profile name) ->
// every profile of the file. `mode` ("" | "physical" | "reference") overrides each profile's
// simulation mode. Each profile is validated (UserError naming the file and the field).
[[nodiscard]] std::vector<xbar::ChipProfile> chip_profiles(const std::string& spec,
                                                           const std::string& mode = "");

// "classifier" (seed 002's CNN: classifier.0, classifier.2) or a comma-separated list of node
// names; UserError "--analog-layers: ..." for an empty list.
[[nodiscard]] std::vector<std::string> analog_layers(const std::string& spec);

struct AnalogAuditRequest {
  std::string model;   // ONNX file with weights, required
  std::string chip;    // FILE:PROFILE, required (one profile)
  std::string layers;  // comma-separated node names; "" = every mappable layer
  uint64_t chip_seed = 1;

  void validate() const;  // UserError naming the field
};

struct AnalogAuditResult {
  Status status;  // origin: computed (the chip model applied to the weights)
  Provenance provenance;
  std::vector<xbar::MappingAudit> audits;  // one per mapped layer
  std::vector<std::string> skipped;        // layers of the model the chip does not hold
};

[[nodiscard]] AnalogAuditResult analog_audit(const AnalogAuditRequest& request);

struct AnalogRunRequest {
  std::string chip;    // FILE:PROFILE, required (one profile)
  std::string mode;    // "" (the profile's) | "physical" | "reference"
  std::string layers;  // comma-separated node names to run on the chip, required
  uint64_t chip_seed = 1;
  uint64_t read_seed = 1;
  uint64_t weight_seed = 1;                    // weights the model does not carry
  uint64_t input_seed = 7;                     // inputs not given in `inputs` are seeded random
  std::map<std::string, exec::Tensor> inputs;  // by graph input name

  void validate() const;
};

struct AnalogRunResult {
  Status status;  // origin: computed (one seeded simulation)
  Provenance provenance;
  std::vector<std::string> input_names, output_names;  // of the lowered graph, in graph order
  std::map<std::string, exec::Tensor> outputs;         // by graph output name
  int64_t analog_layers = 0;
  xbar::ForwardStats stats;  // DAC / ADC conversions of the run
};

// The model lowered to fp32 (BatchNorm folded, activations fused: the analog epilogue applies
// them), its chosen nodes programmed on the chip. UserError naming the node for a node the chip
// cannot hold, naming the input for an input the graph does not have.
[[nodiscard]] AnalogRunResult analog_run(const Model& model, const AnalogRunRequest& request);

}  // namespace hetcim::api
