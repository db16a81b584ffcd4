// Per-operator host profiling on the oneDNN engine, the way seed 000 measures its host: warm-up
// runs, then N timed runs; per operator the median, minimum and 90th percentile of its wall time,
// and, measured separately in runs without per-operator timing (interleaved with the timed ones
// so both see the same machine state), the whole-model latency. The sum of the per-operator
// medians should lie within 10 % of the whole-model median; both are reported.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "exec/engine.h"

namespace hetcim::exec {

struct ProfileOptions {
  int warmup = 10;  // >= 0
  int runs = 50;    // >= 1
};

// Called after every warm-up and timed round with (rounds done, warmup + runs).
using ProfileProgress = std::function<void(size_t done, size_t total)>;

struct Stats {
  double median = 0, min = 0, p90 = 0;  // seconds
};
// median (mean of the two middle values for an even count), minimum, and the 90th percentile by
// the nearest-rank rule (the ceil(0.9 n)-th smallest). UserError for an empty sample.
[[nodiscard]] Stats summarize(std::vector<double> samples);

struct OpProfile {
  OpInfo op;
  Stats time;
};

struct ProfileResult {
  std::vector<OpProfile> ops;  // engine order = graph order
  Stats model;                 // whole-model latency
  double op_median_sum = 0;    // sum of the per-operator medians
  int threads = 1, warmup = 0, runs = 0;
  // With a fused engine: its whole-model latency, measured in the same rounds, and how many of
  // its operators another operator's kernel executes (EngineOptions::fuse).
  bool has_fused = false;
  Stats fused_model;
  int fused_away = 0;
};

// "AMD EPYC 9R45 (2 logical CPUs)" from /proc/cpuinfo (Linux) or "unknown CPU (N logical CPUs)".
[[nodiscard]] std::string machine_description();

// Sets `inputs`, runs the warm-up, then `runs` rounds of (one per-operator-timed run, one
// whole-model run). `engine` should be unfused (EngineOptions::fuse = false) so that each
// operator's time is its own; `fused` (optional, the same graph with the fused plan) then also
// runs one whole-model run per round (and its warm-up), so the fused whole and the sum of the
// parts are measured in the same machine state.
[[nodiscard]] ProfileResult profile(Engine& engine, const TensorMap& inputs,
                                    const ProfileOptions& options,
                                    const ProfileProgress& progress = {}, Engine* fused = nullptr);

}  // namespace hetcim::exec
