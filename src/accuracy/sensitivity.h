// Accuracy sensitivity of a network per offloadable operator on one chip (issue 13, item 2): the
// accuracy drop and the logit error with that operator alone on the chip, against the digital
// fp32 run of the same model on the same calibration set, with an exact paired interval
// (paired.h); then the additivity checks a knapsack over these numbers relies on:
//   greedy: operators added one at a time in ascending drop, the measured drop of each prefix set
//           beside the sum of its members' single drops;
//   pairs:  every pair measured together beside the sum of the two (at most `max_pairs`).
// Logits of every run go through a content-addressed cache (select/logit_cache.h) when a
// directory is given: the key names the model's content hash, the set, the chip profile's every
// field and both seeds, and which operators are on the chip.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "accuracy/chip_eval.h"
#include "accuracy/cost.h"
#include "accuracy/paired.h"

namespace hetcim::accuracy {

struct SensitivityOptions {
  ChipRun chip;
  double level = 0.95;    // confidence level of the intervals, (0, 1)
  size_t max_pairs = 28;  // pairwise checks (all pairs of up to 8 operators); 0 = none
  bool greedy = true;     // the greedy prefix check
  // The cost the partition will spend its budget in (accuracy/cost.h): it orders the greedy
  // check. Both costs are measured for every operator whatever the kind.
  CostKind cost = CostKind::Top1;
  std::string cache_dir;   // "" = no cache
  std::string model_hash;  // content hash of the prepared model (model_hash()), in cache keys
  // Called after each run (done, total) when set.
  std::function<void(size_t, size_t)> progress;
};

struct OperatorSensitivity {
  std::string name;
  PairedDrop drop;            // this operator alone on the chip vs digital
  double output_error = 0.0;  // relative L2 error of the logits vs digital
  CostEstimate logit;         // logit cost (accuracy/cost.h) with its interval
};

struct SetCheck {
  std::vector<std::string> operators;
  double predicted = 0.0;        // sum of the members' single drops
  PairedDrop measured;           // all of them on the chip together
  double predicted_logit = 0.0;  // sum of the members' single logit costs
  CostEstimate measured_logit;   // the logit cost of all of them together
};

struct Sensitivity {
  std::string set_description;
  int64_t samples = 0;
  double digital_accuracy = 0.0;
  CostKind cost = CostKind::Top1;
  std::vector<OperatorSensitivity> operators;  // in graph order
  std::vector<SetCheck> greedy;  // ascending single cost of `cost`, prefix sets of 2 and more
  std::vector<SetCheck> pairs;
  size_t runs = 0, cached_runs = 0;  // network evaluations, of which from the cache
};

// A plan's accuracy: its operators on the chip together, the additive prediction beside the
// measured drop (their difference is the non-additivity of the drops).
struct PlanAccuracy {
  std::vector<std::string> analog;  // the operators on the chip
  double predicted = 0.0;           // the predicted drop: the sum of their single top-1 drops, or
                           // (logit cost) the fit of their summed logit cost (accuracy/cost.h)
  CostKind cost = CostKind::Top1;
  double predicted_cost = 0.0;  // the summed cost the partitioner used (points, or logit cost)
  PairedDrop measured;
  CalibrationSource source;  // the images it was measured on
};

// Verification of a budgeted plan (hetcim partition): each solve's plan, the cost budget it was
// solved with, and its measured drop; the last step is the plan returned.
struct TighteningStep {
  int64_t cost_budget_ppm = 0;  // the knapsack budget of this solve (ppm of the cost's unit)
  int64_t cost_used_ppm = 0;    // the plan's summed cost
  std::string forbidden;        // the operator kept off the chip from this step on ("" = none)
  double latency_s = 0.0;
  PlanAccuracy accuracy;
};
struct Tightening {
  double budget = 0.0;    // the accuracy budget (fraction) the upper interval end must meet
  bool verified = false;  // the last step's measured upper end <= budget
  std::vector<TighteningStep> steps;
};

// FNV-1a over the prepared graph's nodes (names, types, inputs, outputs, attributes) and
// initializers (names, shapes, bytes): "fnv1a:<16 hex digits>".
[[nodiscard]] std::string model_hash(const graph::Graph& prepared);

// Every field of a chip profile as text (cache keys, file checks): "name=A3;g_min=...;...".
[[nodiscard]] std::string profile_text(const xbar::ChipProfile& p);
[[nodiscard]] std::string profile_hash(const xbar::ChipProfile& p);  // "fnv1a:<hex>"

// Logits with `analog` on the chip (empty: digital), through the cache when options name one.
// `cached` tells whether they came from it.
[[nodiscard]] std::vector<float> chip_logits(const graph::Graph& prepared,
                                             const CalibrationSet& set,
                                             const SensitivityOptions& options,
                                             const std::vector<std::string>& analog, bool* cached);

// `operators`: the nodes to measure (names of the prepared graph; chip_capable_nodes() for all).
[[nodiscard]] Sensitivity measure_sensitivity(const graph::Graph& prepared,
                                              const CalibrationSet& set,
                                              const std::vector<std::string>& operators,
                                              const SensitivityOptions& options);

}  // namespace hetcim::accuracy
