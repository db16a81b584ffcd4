// Top-1 accuracy of a network over a labelled image data set with chosen Conv / Gemm / MatMul
// nodes on a simulated chip and every other node on the oneDNN engine, through hybrid::ChipRunner
// (chip_runner.h, the one place a network runs on a chip; accuracy::evaluate_on_chip and
// api::analog_run are its other callers), not the reference interpreter. The call the end-to-end
// execution of a partition plan (api::execute) makes.
//
//   hybrid::EvaluateOptions o;
//   o.chip = xbar::load_chip_profile("data/chips.yaml:A3");
//   o.analog_nodes = {"features.3", "classifier.0"};
//   const hybrid::EvaluateResult r = hybrid::evaluate(model, data::load_dataset("fashion-mnist",
//                                                     data::Split::Test), o);   // r.accuracy
//
// The model: a graph with weights (weights it lacks are seeded, weight_seed), one float32 input
// N x C x H x W matching the data set's images and a first output N x classes; N is the batch the
// engine runs (the last batch is zero padded; its padding rows are dropped). Images enter as
// pixels / 255 (seed 002's training input, train/train.h). The graph is lowered at fp32
// (BatchNorm folded, activations fused; node names are kept, so partition plans and zoo names
// apply).
//
// Chip state: the analog nodes are programmed once (chip_seed, layer id = node name); read noise
// is one stream (read_seed) over the batches in order, so the same options give the same bytes,
// and the result depends on the batch size (each batch is one read of every analog layer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "graph/graph.h"
#include "xbar/chip_profile.h"
#include "xbar/mapping.h"
#include "xbar/programmed_layer.h"

namespace hetcim::hybrid {

struct EvaluateOptions {
  std::optional<xbar::ChipProfile> chip;  // nullopt: every node digital (analog_nodes ignored)
  std::vector<std::string> analog_nodes;  // node names of the lowered graph
  uint64_t chip_seed = 1;                 // persistent programmed state
  uint64_t read_seed = 1;                 // read noise
  uint64_t weight_seed = 1;               // weights the model does not carry
  int64_t limit = 0;                      // first n images (0: all)
  int threads = 1;                        // engine and simulator threads, >= 1
};

struct EvaluateResult {
  int64_t count = 0;  // images evaluated
  int64_t correct = 0;
  double accuracy = 0.0;  // correct / count
  int64_t classes = 0;
  int64_t batch = 0;                       // the engine's batch (the model's N)
  std::vector<float> logits;               // count x classes
  std::vector<uint8_t> labels;             // count
  std::vector<uint8_t> prediction;         // count, argmax of the logits (first maximum)
  size_t seeded_weights = 0;               // initializers filled from weight_seed
  std::vector<xbar::MappingAudit> audits;  // analog layers, graph order
  xbar::ForwardStats conversions;          // DAC / ADC conversions of the whole evaluation
  double build_seconds = 0.0;    // lowering, engine compilation and chip programming, wall
  double run_seconds = 0.0;      // the batches, wall (input conversion included)
  double run_cpu_seconds = 0.0;  // the batches, CPU time of the process (all threads)
};

// UserError naming the model or the data set when the input or output shapes do not fit, an
// analog node is unknown or cannot be held by a crossbar (naming the node), or an option is out of
// range.
[[nodiscard]] EvaluateResult evaluate(const graph::Graph& model, const data::ImageDataset& data,
                                      const EvaluateOptions& options);

}  // namespace hetcim::hybrid
