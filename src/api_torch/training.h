// Training seed 002's CNN to files, shared by `hetcim train` and `hetcim analog study`: the
// held-out split (data/holdout.h), training with per-epoch accuracy on the held-out images, one
// descriptive measurement on the official test set, and the model with its training record
// `<out>.train.json` (data set, held-out subset, options, per-epoch figures, version, machine).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "train/train.h"

namespace hetcim::api {

struct TrainJob {
  std::string dataset = "fashion-mnist", data_dir, out, preset = "paper";
  int64_t holdout = 10000;  // training images held out (0: train on all; the per-epoch accuracy
                            // is then on the official test set)
  uint64_t holdout_seed = 1;
  std::string hardware_aware;   // the resolved FILE:PROFILE of options.hardware_aware ('' off)
  train::TrainOptions options;  // epochs and lr as the preset or the user set them
};

struct TrainOutcome {
  double eval_accuracy = 0.0;  // on the held-out images (or the test set with holdout 0)
  double test_accuracy = 0.0;  // official test set, measured once after training
};

// Writes job.out and job.out + ".train.json" (crop padding: 2 for 28x28 images, 4 for 32x32 when
// job.options.crop_padding < 0).
TrainOutcome train_to_files(const TrainJob& job);

// "" when the training record describes this job; otherwise which field differs
// ("'options.epochs' = 2, this run asks for 30").
[[nodiscard]] std::string record_mismatch(const nlohmann::json& record, const TrainJob& job);

}  // namespace hetcim::api
