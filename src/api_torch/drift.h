// `hetcim analog drift` as one api call (beyond seed 002): seed 002's CNN with its classifier
// layers on one simulated chip, read at increasing times after programming (xbar's drift model:
// fields drift_nu / drift_nu_sd / drift_t0 of the chips file), without and with global drift
// compensation; with a frozen policy (`analog select --policy-out`) its coverage, accepted error
// rate and state check (select/state_check.h) at each time. The chip state (programming noise,
// stuck devices, drift exponents) and the read-noise stream are the same at every time, so the
// differences between times are the drift's alone. Rendered by report/drift.h.
//
//   hetcim::api::AnalogDriftRequest q;
//   q.model = "cnn.onnx";
//   q.chip = "data/chips.yaml:A3";
//   q.times = "1h,1d,1y";
//   const hetcim::api::AnalogDriftResult r = hetcim::api::analog_drift(q);
//   // r.report.points[i].accuracy, report::drift_text(r.report, r.provenance)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/options.h"
#include "api/status.h"
#include "results/drift.h"
#include "train/evaluate.h"
#include "util/provenance.h"

namespace hetcim::api {

struct AnalogDriftRequest {
  std::string model;   // ONNX file (race_cnn with weights), required
  std::string chip;    // FILE:PROFILE, a profile with drift fields (not with `policy`)
  std::string policy;  // a frozen policy for this model: its chip and seeds (not with `chip`)
  std::string times = "1s,1h,1d,1mo,1y";  // increasing; units s, min, h, d, w, mo, y
  std::string compensation = "both";      // none | global | both
  std::string dataset = "fashion-mnist", data_dir, split = "test";
  std::optional<uint64_t> chip_seed;  // nullopt: 1 (a policy fixes it: giving one is an error)
  std::optional<uint64_t> read_seed;  // nullopt: 1, or the policy's test read seed
  std::optional<int64_t> batch_size;  // nullopt: eval.batch_size, or the policy's
  int64_t audit = 0;                  // with a policy: labelled audit of the first N accepted
  train::EvalOptions eval;            // limit, threads (chip, seeds, read time set per read)
  // (done, total) reads: once with done = 0 before the first, then after each.
  std::function<void(size_t done, size_t total)> progress;

  void validate() const;  // UserError naming the field
};

// The table of AnalogDriftRequest (api/options.h): every field but the model file and the
// callback; eval's limit and threads under their names.
[[nodiscard]] const FieldTable<AnalogDriftRequest>& analog_drift_fields();

struct AnalogDriftResult {
  Status status;  // origin: measured (accuracies on the data set now)
  Provenance provenance;
  results::DriftReport report;
};

// "1s", "30min", "1h", "1d", "2w", "1mo" (30.44 days), "1y" (365.25 days) -> (label, seconds), in
// increasing order; UserError naming --times otherwise.
[[nodiscard]] std::vector<std::pair<std::string, double>> parse_read_times(const std::string& text);

[[nodiscard]] AnalogDriftResult analog_drift(const AnalogDriftRequest& request);

}  // namespace hetcim::api
