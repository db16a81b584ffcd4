// profile: measure this machine as a host. Prepare the model (seeded weights, int8 calibration),
// run the oneDNN engine with warm-up and timed runs, and express the result as a host profile: the
// document `hetcim profile` writes and the partitioner reads (cost/host_profile.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "api/model.h"
#include "api/status.h"
#include "cost/host_profile.h"
#include "util/provenance.h"

namespace hetcim::api {

struct ProfileRequest {
  std::string precision = "int8";  // "int8" | "fp32"
  int threads = 1;                 // 1..1024
  int warmup = 10;                 // 0..100000
  int runs = 50;                   // 1..100000
  uint64_t weight_seed = 1;        // weights the model does not carry
  uint64_t input_seed = 7;         // the random input
  uint64_t calibration_seed = 1;   // int8 calibration inputs
  int calibration_samples = 2;     // 1..1000
  // Called as the warm-up and timed runs finish: (runs done, warm-up + timed runs). The CLI shows
  // it on stderr (util/progress.h); empty = no report.
  std::function<void(size_t done, size_t total)> progress;

  // UserError naming the field.
  void validate() const;
};

struct ProfileResult {
  Status status;  // origin: measured
  Provenance provenance;
  cost::HostProfile profile;  // date, command (empty from the library) and seeds filled in
  // Steady or noisy (cost::profile_quality): a noisy measurement is a result, not an error; the
  // CLI warns about it on stderr.
  cost::ProfileQuality quality;
  // The engine's fused plan (exec::EngineOptions::fuse), measured in the same rounds as the
  // per-operator times (which come from the unfused engine): its whole-model median and minimum,
  // and how many operators another operator's kernel executes there. Not in the host profile file.
  double fused_model_median_s = 0, fused_model_min_s = 0;
  int fused_operators = 0;
};

// "int8, 1 thread, 10 warm-up + 50 timed runs on oneDNN, weight seed 1, input seed 7, calibration
// seed 1 (2 samples)": how a measurement was made, for provenance.
[[nodiscard]] std::string describe(const ProfileRequest& request);

[[nodiscard]] ProfileResult profile(const Model& model, const ProfileRequest& request = {});

}  // namespace hetcim::api
