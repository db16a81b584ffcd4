// Whole-network evaluation with chosen operators on a simulated chip, over a calibration set.
//
// evaluate_on_chip() runs a calibration set through hybrid::ChipRunner (hybrid/chip_runner.h), the
// one place a network runs with nodes on a chip: exec::Engine (oneDNN) with xbar::CrossbarBackend
// as its delegate for the chosen nodes (programmed once; the engine runs the rest), in chunks of
// the model's batch size, read noise from one stream seeded by read_seed in image order.
// xbar::AnalogGraph (the reference interpreter) is its test oracle only.
//
// The model is lowered for fp32 by hybrid::lower_for_chip (BatchNorm folded, activations fused);
// node names are those of the partition problem's operators (passes keep them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "graph/graph.h"
#include "xbar/chip_profile.h"

namespace hetcim::accuracy {

// Where a calibration set's images come from: recorded in the sensitivity file and in a plan's
// accuracy, so that a later evaluation can tell whether it reuses them.
struct CalibrationSource {
  std::string dataset;  // "fashion-mnist", "cifar10" or "synthetic"
  // "holdout": the first images of a seeded held-out subset of the training split (seed 002's
  // protocol: images the model never trained on when `record` names its training record);
  // "test": the first images of the official test split; "synthetic": seeded inputs.
  std::string split;
  int64_t holdout = 0;        // holdout: images held out of the training split
  uint64_t holdout_seed = 0;  // holdout: the subset's seed (data/holdout.h)
  std::string record;  // holdout: the model's training record it came from; "" = none (then the
                       // model may have trained on these images)
};

// Images and labels the accuracy is measured on.
struct CalibrationSet {
  std::string description;  // "fashion-mnist/test, first 2000 images" or the synthetic rule
  int64_t count = 0;
  int64_t sample_size = 0;      // floats per image (the model's input without its batch dimension)
  std::vector<float> inputs;    // count x sample_size
  std::vector<int64_t> labels;  // class indices < classes
  int64_t classes = 0;
  bool synthetic = false;
  CalibrationSource source;
};

struct ChipRun {
  xbar::ChipProfile profile;
  uint64_t chip_seed = 1;  // the persistent programmed state
  uint64_t read_seed = 1;  // read noise
};

// The model lowered for fp32 with weights (seeded for initializers without values):
// UserError when it has not exactly one input and one output of known shapes.
[[nodiscard]] graph::Graph prepare_model(const graph::Graph& model, uint64_t weight_seed);

// The first `samples` images of a data set, pixels / 255 (the convention of hetcim train's
// models). UserError when the images do not fit the model's input or samples > the set.
[[nodiscard]] CalibrationSet dataset_set(const graph::Graph& prepared,
                                         const data::ImageDataset& data, int64_t samples);

// The first `samples` images of the seeded held-out subset (data::make_holdout(train.count,
// holdout, seed), ascending indices) of the training split `train`, pixels / 255; `record` is
// the training record that named the subset ("" when none did). UserError when samples >
// holdout.
[[nodiscard]] CalibrationSet heldout_set(const graph::Graph& prepared,
                                         const data::ImageDataset& train, int64_t samples,
                                         int64_t holdout, uint64_t seed, const std::string& record);

// `samples` inputs uniform in [-1, 1) from SplitMix64(seed), labelled by the fp32 model's own
// top-1 (no data set: an accuracy drop is then the share of images whose top-1 the chip changes,
// net of those it restores).
[[nodiscard]] CalibrationSet synthetic_set(const graph::Graph& prepared, int64_t samples,
                                           uint64_t seed);

// How many inputs of `b` are bit-identical to an input of `a` (same sample size; 0 otherwise):
// the check that a held-out set shares no input with the calibration set it is held out of.
[[nodiscard]] int64_t shared_inputs(const CalibrationSet& a, const CalibrationSet& b);

// Logits (count x classes) of the prepared model over the set with `analog_nodes` on the chip
// (empty: everything digital; `chip` is then ignored). UserError naming a node that is not a
// Conv / Gemm / MatMul with constant weights.
[[nodiscard]] std::vector<float> evaluate_on_chip(const graph::Graph& prepared,
                                                  const CalibrationSet& set, const ChipRun& chip,
                                                  const std::vector<std::string>& analog_nodes);

// The operators of `prepared` that a chip can run (Conv with one group, Gemm, MatMul with a
// constant weight), in graph order.
[[nodiscard]] std::vector<std::string> chip_capable_nodes(const graph::Graph& prepared);

}  // namespace hetcim::accuracy
