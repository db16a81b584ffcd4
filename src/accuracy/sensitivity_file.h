// The sensitivity file (`hetcim sensitivity --out`), JSON: what was measured on what, and the
// numbers. Layout:
//   format: "hetcim-sensitivity 1"
//   model: {spec, hash}            hash: model_hash() of the fp32-lowered graph with its weights
//   chip: {spec, profile, hash, chip_seed, read_seed}
//   dataset: {name, samples, synthetic, description, seed, split, holdout?}
//            name "synthetic" for seeded inputs; split "holdout" (held-out training images,
//            holdout: {images, seed, record}), "test" (the first test images) or "synthetic";
//            a file without split (written before it existed) was measured on test images
//   confidence: {level, method}
//   cost: {kind, unit, method}     kind "top1" or "logit" (accuracy/cost.h): the cost the greedy
//                                  check is ordered by and `hetcim partition` budgets; a file
//                                  without it was written before it existed and is "top1"
//   digital_accuracy
//   operators: [{name, accuracy, drop, drop_lo, drop_hi, output_error, logit_cost, logit_cost_lo,
//                logit_cost_hi, discordant: {b, c}}]
//   additivity: {greedy: [...], pairs: [...]}   each {operators, predicted, measured, lo, hi,
//                predicted_logit_cost, logit_cost, logit_cost_lo, logit_cost_hi}
//   runs, cached_runs, provenance
// Drops are fractions of top-1 accuracy (0.01 = 1 point). Reading checks every field it uses and
// names the file and the field in its errors; check_identity() refuses a file measured for
// another model, chip, data set or seeds.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "accuracy/sensitivity.h"

namespace hetcim::accuracy {

struct SensitivityIdentity {
  std::string model_spec, model_hash;
  std::string chip_spec, profile, profile_hash;
  uint64_t chip_seed = 1, read_seed = 1;
  std::string dataset;  // "fashion-mnist", "cifar10" or "synthetic"
  int64_t samples = 0;
  uint64_t input_seed = 0;   // synthetic inputs (0 for a data set)
  CalibrationSource source;  // split "" in a wanted identity: any
  std::string cost;          // "top1" | "logit"; "" in a wanted identity: any
};

[[nodiscard]] nlohmann::json sensitivity_json(const Sensitivity& s, const SensitivityIdentity& id,
                                              const nlohmann::json& provenance);

struct SensitivityFile {
  std::string path;
  SensitivityIdentity id;
  double level = 0.95;
  double digital_accuracy = 0.0;
  CostKind cost = CostKind::Top1;
  struct Entry {
    double drop = 0.0, lo = 0.0, hi = 0.0;
    double output_error = 0.0;  // 0 in a file written before it was recorded
    CostEstimate logit;         // required with cost "logit"
  };
  std::map<std::string, Entry> operators;
  // With cost "logit": the single operators and the greedy prefix sets as (summed logit cost,
  // measured top-1 drop) pairs, the points of the cost-to-drop fit (accuracy/cost.h).
  std::vector<double> fit_costs, fit_drops;
};

// UserError naming `path` and the field when the file is not a sensitivity file.
[[nodiscard]] SensitivityFile read_sensitivity_file(const std::string& path);

// UserError naming the file and the field when `file` was measured for something else than
// `want`: model hash, chip profile hash, cost kind, data set, samples, split (and with holdout, its
// size and seed when want's are > 0), seeds. Empty fields of `want` (and samples 0) are not
// checked.
void check_identity(const SensitivityFile& file, const SensitivityIdentity& want);

}  // namespace hetcim::accuracy
