// Training seed 002's CNN (zoo model race_cnn) with libtorch's C++ API, the paper's recipe
// (Sec. IV-A): AdamW (weight decay 5e-4), cosine annealing per step, cross-entropy, batch 128,
// random crop (zero padding, then a crop of the original size) and horizontal flip. The input is
// pixels / 255 (no mean/std normalization), the convention of the exported model.
//
// The peak learning rate defaults to 3e-3, not the paper's 2e-3: the paper anneals over 30
// epochs, our default schedule is 5, and the shorter schedule wants a higher peak. Measured on
// Fashion-MNIST, 5 epochs, clean test accuracy: lr 2e-3 seed 1: 87.98 %; lr 3e-3 seeds 1/2/3:
// 89.34 / 88.71 / 89.39 %.
//
// Every random choice (initialization, shuffling, crops, flips) comes from `seed` through
// hetcim's own generator, so the same seed and thread count give the same weights. libtorch's
// CPU kernels may sum in a different order for another thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "graph/graph.h"

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
  double test_accuracy = 0.0;  // on TrainOptions::test_limit test images (clean, digital)
  double seconds = 0.0;        // cumulative
};

struct TrainOptions {
  int epochs = 5;              // >= 1
  int64_t batch_size = 128;    // >= 1
  double lr = 3e-3;            // peak learning rate, > 0 (see above)
  double weight_decay = 5e-4;  // >= 0
  int64_t crop_padding = 2;    // random crop: zero padding per side, >= 0 (0: no crop)
  bool flip = true;            // random horizontal flip
  uint64_t seed = 1;
  int64_t train_limit = 0;  // use the first n training images (0: all)
  int64_t test_limit = 0;   // evaluate on the first n test images after each epoch (0: all)
  // libtorch intra-op threads (process-wide setting; 0 leaves libtorch's default). 1 by default:
  // on a shared 2-core machine libtorch's OpenMP, NNPACK and OpenBLAS pools spin against each
  // other and 2 threads ran several times slower than 1.
  int threads = 1;
  // Called after every batch (e.g. to draw a progress bar) and after every epoch with its
  // statistics (1-based epoch); either may be empty.
  std::function<void(const TrainProgress&)> progress;
  std::function<void(int, const EpochStats&)> epoch_done;
};

struct TrainResult {
  graph::Graph model;  // zoo race_cnn for the data's image shape, with the trained weights
  std::vector<EpochStats> epochs;
  double test_accuracy = 0.0;  // after the last epoch
};

// Trains on `train` and measures clean accuracy on `test` after each epoch. UserError for invalid
// options or when the two data sets differ in image shape or classes.
[[nodiscard]] TrainResult train_race_cnn(const data::ImageDataset& train,
                                         const data::ImageDataset& test,
                                         const TrainOptions& options);

}  // namespace hetcim::train
