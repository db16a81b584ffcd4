// Accuracy of seed 002's CNN on a data set, digitally or with chosen layers on a simulated chip.
// The convolutional front end always runs digitally (libtorch); each Gemm layer named in
// `analog_layers` (classifier.0, classifier.2) is programmed once on the chip (persistent state
// from chip_seed) and read through xbar::ProgrammedLayer::forward with fresh read noise per batch
// from read_seed; biases and ReLU stay digital.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "graph/graph.h"
#include "xbar/chip_profile.h"
#include "xbar/mapping.h"

namespace hetcim::train {

struct EvalOptions {
  int64_t batch_size = 128;  // >= 1; also the read-noise sharing unit of the reference mode
  int64_t limit = 0;         // first n images (0: all)
  int threads = 1;           // libtorch intra-op threads (0: libtorch's default; see TrainOptions)
  std::optional<xbar::ChipProfile> chip;  // nullopt: everything digital
  uint64_t chip_seed = 1;
  uint64_t read_seed = 1;
  std::vector<std::string> analog_layers = {"classifier.0", "classifier.2"};
  // Seconds after programming at which the chip is read, and global drift compensation
  // (xbar::ProgramOptions; no effect for a profile without drift or at read_time <= its t0).
  double read_time = 0.0;
  bool drift_compensation = false;
};

struct EvalResult {
  int64_t count = 0;
  double accuracy = 0.0;
  std::vector<float> logits;               // count x classes
  std::vector<uint8_t> labels;             // count
  std::vector<xbar::MappingAudit> audits;  // one per analog layer
  double seconds = 0.0;
};

// `model` is a race_cnn graph with weights (trained, or imported from ONNX). UserError when the
// model's input shape does not fit the data set's images, or a named analog layer is not one of
// the classifier's Gemm layers.
[[nodiscard]] EvalResult evaluate_race_cnn(const graph::Graph& model,
                                           const data::ImageDataset& data,
                                           const EvalOptions& options);

}  // namespace hetcim::train
