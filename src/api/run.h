// run: execute a model on this CPU with the oneDNN engine: seeded weights for those the model does
// not carry, int8 calibration, given or seeded random inputs; warm-up, then timed runs (wall and
// process CPU time). The outputs are those of the last run.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/model.h"
#include "api/status.h"
#include "exec/profile.h"
#include "exec/tensor.h"
#include "util/provenance.h"

namespace hetcim::api {

struct RunRequest {
  std::string precision = "fp32";  // "fp32" | "int8" (calibrated static quantization)
  int threads = 1;                 // 1..1024
  // Inputs by name; the key "" stands for the only input of a one-input model. Inputs not given
  // are seeded random (input_seed). Dtype and shape are checked against the model.
  std::map<std::string, exec::Tensor> inputs;
  uint64_t weight_seed = 1;       // weights the model does not carry
  uint64_t input_seed = 7;        // random inputs
  uint64_t calibration_seed = 1;  // int8 calibration inputs
  int calibration_samples = 2;    // 1..1000
  // int8 calibration inputs instead of seeded random ones: a .npy file (one sample, or samples
  // stacked along axis 0) or a directory of .npy files (models with one input); checked against
  // the model's input before anything runs.
  std::string calibration_data;
  std::string calibration_method = "minmax";  // "minmax" | "percentile" (per sample, averaged)
  double calibration_percentile = 99.99;      // of "percentile", [50, 100]
  int warmup = 3;                             // 0..100000
  int runs = 10;                              // 1..100000
  // The engine's fused plan (exec::EngineOptions::fuse); false: every operator runs its own
  // kernel (the unfused baseline of a benchmark).
  bool fuse = true;

  // UserError naming the field (the inputs are checked against the model by run()).
  void validate() const;
};

struct RunResult {
  Status status;  // origin: measured
  Provenance provenance;
  std::map<std::string, exec::Tensor> outputs;  // by output name, of the last run
  std::vector<std::string> output_names;        // in the model's order
  size_t operators = 0;                         // operators the engine executes
  // How int8 was calibrated ("minmax over 2 seeded uniform random inputs (calibration seed 1)"),
  // empty for fp32 or a model that carries its own quantization (QDQ).
  std::string calibration;
  exec::Stats wall;  // per run, seconds, on this machine
  exec::Stats cpu;   // process CPU time per run (all threads)
};

[[nodiscard]] RunResult run(const Model& model, const RunRequest& request = {});
// The same, lowering the model in place: one copy of the weights fewer at the peak.
[[nodiscard]] RunResult run(Model&& model, const RunRequest& request = {});

}  // namespace hetcim::api
