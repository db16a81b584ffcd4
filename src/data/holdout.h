// A seeded held-out part of a data set (seed 002, Sec. IV-A: 10 000 of the training images are
// kept out of training and serve as the calibration pool H/P/C, so that the official test set
// stays descriptive). The held-out rows are a uniformly random subset of size `held_out`
// (Fisher-Yates on SplitMix64 from `seed`, unbiased bounded draws); the rest are for training.
// The same (count, held_out, seed) give the same subset, which is how `hetcim train --holdout`
// and `hetcim analog select --holdout` agree on it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace hetcim::data {

struct Holdout {
  std::vector<int64_t> train;     // indices kept for training, ascending
  std::vector<int64_t> held_out;  // indices held out, ascending
};

// UserError when held_out is negative or larger than count.
[[nodiscard]] Holdout make_holdout(int64_t count, int64_t held_out, uint64_t seed);

// The images at `indices` (in that order) as a new data set named `name`. UserError when an index
// is out of range.
[[nodiscard]] ImageDataset gather(const ImageDataset& d, const std::vector<int64_t>& indices,
                                  const std::string& name);

// The training record `hetcim train` writes beside a model (`<model>.train.json`): the data set
// and the held-out subset the model never trained on. nullopt when there is no such file;
// UserError naming the file when it is not a training record.
struct TrainRecord {
  std::string file, dataset;
  int64_t holdout = 0;  // images held out of training
  uint64_t holdout_seed = 0;
};
[[nodiscard]] std::optional<TrainRecord> read_train_record(const std::string& model_path);

}  // namespace hetcim::data
