// `hetcim analog serve` as one api call: seed 002's online path. A frozen policy written by
// `analog select --policy-out` (checked against the model and chip it was certified for), one
// analog inference per query on the selected chip, each query routed (accept / fallback /
// abstain) by select::Controller, with the label-free coverage monitor and, for labelled queries,
// the anytime audit. Queries come from a data set, an .npy file, or an .npy streamed on stdin
// (`input = "-"`: the header, then the records, answered one batch of the policy's batch size at a
// time as they arrive); every source goes through one train::RaceCnnEvaluator in the same
// batches, so the same images take the same decisions. Rendered by report/analog.h.
//
//   hetcim::api::AnalogServeRequest q;
//   q.policy = "policy.json";
//   q.dataset = "fashion-mnist";
//   const hetcim::api::AnalogServeResult r = hetcim::api::analog_serve(q);
//   // r.summary.counts.coverage(), report::analog_serve_text(r.summary)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "api/options.h"
#include "api/status.h"
#include "results/analog.h"
#include "select/controller.h"
#include "util/provenance.h"

namespace hetcim::api {

struct AnalogServeRequest {
  std::string policy;   // the policy file, required
  std::string model;    // "" = the policy's (must hash the same)
  std::string chips;    // "" = the policy's (the unit's profile must match)
  std::string input;    // uint8 images .npy (N x H x W or N x C x H x W); "-": streamed on stdin
  std::string dataset;  // or queries from a data set: fashion-mnist | cifar10 (labelled)
  std::string data_dir, split = "test";
  int64_t limit = 0;                  // first N queries (0: all)
  std::optional<uint64_t> read_seed;  // nullopt: the policy's test-set stream
  std::optional<int64_t> batch_size;  // nullopt: the policy's
  bool abstain = false;               // deferred queries abstain instead of the fallback
  // "analog inference of N queries on A0..." before the first read (only with a selected unit).
  std::function<void(const std::string& what)> on_start;
  // Each batch's decisions as soon as they are taken; `first` numbers the first query. Called
  // once with no decisions first, when the queries are open and the chip programmed.
  std::function<void(int64_t first, std::span<const select::Decision> decisions)> on_decisions;

  void validate() const;  // UserError naming the field
};

// The table of AnalogServeRequest (api/options.h): every field but the policy file and the
// callbacks.
[[nodiscard]] const FieldTable<AnalogServeRequest>& analog_serve_fields();

struct AnalogServeResult {
  Status status;  // origin: measured (simulated inference now; energies modelled)
  Provenance provenance;
  results::AnalogServeSummary summary;
  // The policy's certificate held (its field certificate.certified); when not, its decisions carry
  // no risk guarantee and the CLI says so.
  bool certified = true;
  double certificate_bound = 0, risk_target = 0;
};

[[nodiscard]] AnalogServeResult analog_serve(const AnalogServeRequest& request);

}  // namespace hetcim::api
