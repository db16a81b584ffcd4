// Training seed 002's CNN (zoo model race_cnn) with libtorch's C++ API, the paper's recipe
// (Sec. IV-A): AdamW (peak learning rate 2e-3, weight decay 5e-4), cosine annealing per step,
// cross-entropy, batch 128, 30 epochs, random crop (zero padding, then a crop of the original
// size) and horizontal flip. The input is pixels / 255 (no mean/std normalization), the
// convention of the exported model.
//
// The defaults are the paper's and were not tuned on our data. Any training choice that is
// tuned (the learning rate of a shorter schedule, the number of epochs) must be made on the
// evaluation set passed here, which the CLI takes from a held-out part of the *training* set
// (`hetcim train --holdout N`), never on the official test set; see src/select/README.md.
//
// Every random choice (initialization, shuffling, crops, flips) comes from `seed` through
// hetcim's own generator, so the same seed and thread count give the same weights. libtorch's
// CPU kernels may sum in a different order for another thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "graph/graph.h"
#include "xbar/chip_profile.h"

namespace hetcim::train {

struct TrainProgress {
  int epoch = 0;  // 1-based
  int epochs = 0;
  int64_t batch = 0;  // 1-based within the epoch
  int64_t batches = 0;
  double loss = 0.0;      // running mean of this epoch's training loss
  double accuracy = 0.0;  // running training accuracy of this epoch
  double lr = 0.0;
  double seconds = 0.0;  // since training started
};

struct EpochStats {
  double train_loss = 0.0;
  double train_accuracy = 0.0;
  double eval_accuracy = 0.0;  // on TrainOptions::eval_limit images of the evaluation set (clean)
  double seconds = 0.0;        // cumulative
};

struct TrainOptions {
  int epochs = 30;             // >= 1
  int64_t batch_size = 128;    // >= 1
  double lr = 2e-3;            // peak learning rate, > 0
  double weight_decay = 5e-4;  // >= 0
  int64_t crop_padding = 2;    // random crop: zero padding per side, >= 0 (0: no crop)
  bool flip = true;            // random horizontal flip
  uint64_t seed = 1;
  int64_t train_limit = 0;  // use the first n training images (0: all)
  int64_t eval_limit = 0;   // evaluate on the first n evaluation images after each epoch (0: all)
  // libtorch intra-op threads (process-wide setting; 0 leaves libtorch's default). 1 by default:
  // on a shared 2-core machine libtorch's OpenMP, NNPACK and OpenBLAS pools spin against each
  // other and 2 threads ran several times slower than 1.
  int threads = 1;
  // Hardware-aware training (noise_injection.h): the chip profile whose programming noise, stuck
  // devices, read noise, DAC/ADC (and, at hardware_aware_time > its drift_t0, drift) the
  // classifier's forward pass injects, drawn from streams of `seed`; nullopt: plain training. The
  // per-epoch evaluation stays clean and digital.
  std::optional<xbar::ChipProfile> hardware_aware;
  double hardware_aware_time = 0.0;  // s after programming, >= 0
  // A file ("": none) written after every epoch (atomically) with everything the next epoch
  // reads: weights, AdamW's state, the step, every random stream, the epochs' statistics. When it
  // exists at the start, training continues after its last epoch and ends with the same weights
  // as an uninterrupted run (same options, data and thread count; UserError naming the first
  // differing option otherwise). The caller removes it once the model is saved.
  std::string checkpoint;
  // Called after every batch (e.g. to draw a progress bar) and after every epoch with its
  // statistics (1-based epoch); either may be empty.
  std::function<void(const TrainProgress&)> progress;
  std::function<void(int, const EpochStats&)> epoch_done;
};

struct TrainResult {
  graph::Graph model;  // zoo race_cnn for the data's image shape, with the trained weights
  std::vector<EpochStats> epochs;
  double eval_accuracy = 0.0;  // on the evaluation set after the last epoch
};

// Trains on `train` and measures clean accuracy on `eval` (held-out training images, so that
// choices made by looking at it leave the test set untouched) after each epoch. UserError for
// invalid options or when the two data sets differ in image shape or classes.
[[nodiscard]] TrainResult train_race_cnn(const data::ImageDataset& train,
                                         const data::ImageDataset& eval,
                                         const TrainOptions& options);

}  // namespace hetcim::train
