// Accuracy of seed 002's CNN on a data set, digitally or with chosen layers on a simulated chip.
// The convolutional front end always runs digitally (libtorch); each Gemm layer named in
// `analog_layers` (classifier.0, classifier.2) is programmed once on the chip (persistent state
// from chip_seed) and read through xbar::ProgrammedLayer::forward with fresh read noise per batch
// from read_seed; biases and ReLU stay digital.
#pragma once

#include <cstdint>
#include <memory>
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

// The same evaluation fed in pieces, for a stream of queries: the chip is programmed once at
// construction and the read-noise sequence continues from call to call, so feeding a data set's
// images in consecutive batches of options.batch_size images gives exactly evaluate_race_cnn's
// logits (reads draw their noise per call: other batch boundaries give other, equally valid,
// noise). Option errors as evaluate_race_cnn's.
class RaceCnnEvaluator {
 public:
  RaceCnnEvaluator(const graph::Graph& model, const EvalOptions& options);
  ~RaceCnnEvaluator();
  RaceCnnEvaluator(const RaceCnnEvaluator&) = delete;
  RaceCnnEvaluator& operator=(const RaceCnnEvaluator&) = delete;

  // Logits of images [first, first + count) of `data` into `logits` (count x classes floats).
  // UserError when the images do not fit the model's input.
  void logits(const data::ImageDataset& data, int64_t first, int64_t count, float* logits);
  // The analog layers' mapping audits (empty without a chip).
  [[nodiscard]] std::vector<xbar::MappingAudit> audits() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// `model` is a race_cnn graph with weights (trained, or imported from ONNX). UserError when the
// model's input shape does not fit the data set's images, or a named analog layer is not one of
// the classifier's Gemm layers.
[[nodiscard]] EvalResult evaluate_race_cnn(const graph::Graph& model,
                                           const data::ImageDataset& data,
                                           const EvalOptions& options);

}  // namespace hetcim::train
