// Measuring this machine as a host: prepare the model (seeded weights, int8 calibration), run the
// oneDNN engine with warm-up and timed runs, and express the result as a host profile, the same
// document `hetcim profile` writes and the partitioner reads.
#pragma once

#include <cstdint>
#include <string>

#include "cli/model_source.h"
#include "cost/host_profile.h"

namespace hetcim::cli {

struct MeasureOptions {
  std::string precision = "int8";
  int threads = 1;
  int warmup = 10;
  int runs = 50;
  uint64_t weight_seed = 1;
  uint64_t input_seed = 7;
  uint64_t calibration_seed = 1;
  int calibration_samples = 2;
  bool progress = true;  // progress with an estimate on stderr (util/progress.h)
};

// "int8, 1 thread, 10 warm-up + 50 timed runs, weight seed 1, input seed 7, calibration seed 1"
[[nodiscard]] std::string describe(const MeasureOptions& options);

[[nodiscard]] cost::HostProfile measure_host_profile(const ModelSource& model,
                                                     const MeasureOptions& options);

}  // namespace hetcim::cli
