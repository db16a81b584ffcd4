// Accuracy jobs (issue 13): the sensitivity of a network to a noisy analog chip, operator by
// operator (`hetcim sensitivity`), and the pieces `hetcim partition` uses when it is given an
// accuracy budget: the sensitivities as the partition problem's accuracy costs, the end-to-end
// re-evaluation of a plan on the chip (measured drop beside the predicted one), and the
// latency x energy x accuracy-drop front. Networks run on the chip through
// accuracy::evaluate_on_chip (accuracy/chip_eval.h).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "accuracy/sensitivity.h"
#include "accuracy/sensitivity_file.h"
#include "api/model.h"
#include "api/status.h"
#include "partition/problem.h"
#include "partition/schedule.h"
#include "util/provenance.h"

namespace hetcim::api {

// Which images, chip and seeds an accuracy is measured with.
struct AccuracySetup {
  std::string chip;      // FILE:PROFILE (data/chips.yaml:A3)
  std::string dataset;   // "fashion-mnist" | "cifar10" | "synthetic" (seeded inputs, labelled
                         // by the fp32 model's top-1)
  std::string data_dir;  // "" = the data set's default directory
  // Which images of a data set (not synthetic): "holdout" = the first `samples` of the seeded
  // held-out training images (seed 002's protocol; the model's training record
  // `<model>.train.json` gives the subset when present: images the model never trained on),
  // "test" = the first `samples` test images (then a plan later evaluated on the test set reuses
  // them: `execute` warns). "" = holdout for `sensitivity`, and any in a check of a file.
  std::string calibration;
  std::optional<int64_t> holdout;        // held-out images (default: the record's, else 10000)
  std::optional<uint64_t> holdout_seed;  // their seed (default: the record's, else 1)
  int64_t samples = 2000;    // images of the calibration set, or this many synthetic inputs
  uint64_t chip_seed = 1;    // the chip instance (programmed state)
  uint64_t read_seed = 1;    // read noise
  uint64_t input_seed = 1;   // synthetic inputs
  uint64_t weight_seed = 1;  // weights a model does not carry (zoo models)
  std::string cache_dir;     // logits cache ("" = none)
  // The cost a partition budgets (accuracy/cost.h): "top1" or "logit". `sensitivity`: what the
  // file records ("" = top1); a check of a file: "" = any, else the file's must be this.
  std::string cost;

  // UserError naming the field: the table's ranges and choices (accuracy_setup_fields), the chip
  // required, and the held-out fields' agreement with the data set and its calibration images.
  void validate() const;
};

struct SensitivityRequest {
  // The images, chip and seeds; the data set fashion-mnist unless set.
  AccuracySetup setup = [] {
    AccuracySetup s;
    s.dataset = "fashion-mnist";
    return s;
  }();
  double level = 0.95;                 // confidence level of the intervals, [0.5, 0.999999]
  int64_t max_pairs = 28;              // pairwise additivity checks (0 = none), 0..100000
  bool greedy = true;                  // the greedy additivity check
  std::vector<std::string> operators;  // empty = every operator the chip can run
  std::function<void(size_t, size_t)> progress;

  void validate() const;  // the setup's and the table's (sensitivity_fields) checks
};

struct SensitivityResult {
  Status status;
  Provenance provenance;
  accuracy::SensitivityIdentity identity;
  accuracy::Sensitivity sensitivity;
};

[[nodiscard]] SensitivityResult sensitivity(const Model& model, const SensitivityRequest& request);
// The sensitivity file's content (accuracy/sensitivity_file.h) with `provenance`.
[[nodiscard]] nlohmann::json sensitivity_file_json(const SensitivityResult& r,
                                                   const Provenance& provenance);

// A sensitivity file checked against a model, a chip and optionally a data set and its size,
// seeds and weight seed of `setup`, then its costs as the problem's accuracy costs (ppm of the
// cost's unit, the point estimates, negative ones as 0) with budget `max_drop` (a fraction of
// top-1 accuracy; < 0: a budget that never binds). Cost top1: the single drops, budget max_drop;
// cost logit: the single logit costs, budget the fit's cost at max_drop (accuracy/cost.h).
// UserError naming the file and the field when it was measured for anything else, or when it lacks
// an operator the problem may offload.
struct AccuracyModel {
  accuracy::SensitivityFile file;
  graph::Graph prepared;  // the model as the chip runs it
  AccuracySetup setup;    // the file's set and seeds
  std::string model_spec;
  accuracy::CostToDrop fit;  // cost "logit": summed logit cost -> drop (the file's points)
};
[[nodiscard]] AccuracyModel load_accuracy_model(const Model& model, const std::string& path,
                                                const AccuracySetup& want);
void apply_accuracy(partition::Problem& p, const AccuracyModel& m, double max_drop);

// A plan re-evaluated end to end on the chip (accuracy::PlanAccuracy): every operator the plan
// puts on the accelerator runs on the chip, everything else digitally; over the sensitivity
// file's images and seeds. The digital run is made once.
class PlanEvaluator {
 public:
  explicit PlanEvaluator(const AccuracyModel& m);
  // On the images of `setup` instead of the file's (its dataset, samples, input seed, held-out
  // subset; the file's chip and seeds): a held-out evaluation.
  PlanEvaluator(const AccuracyModel& m, const AccuracySetup& setup);
  [[nodiscard]] accuracy::PlanAccuracy evaluate(const partition::Problem& p,
                                                const partition::Assignment& a);
  [[nodiscard]] const std::string& set_description() const { return set_.description; }
  [[nodiscard]] size_t runs() const { return runs_; }
  [[nodiscard]] const accuracy::CalibrationSet& set() const { return set_; }

 private:
  const AccuracyModel& m_;
  accuracy::CalibrationSet set_;
  accuracy::SensitivityOptions options_;
  std::vector<int64_t> digital_;
  size_t runs_ = 0;
};

}  // namespace hetcim::api
