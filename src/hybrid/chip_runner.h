// The one place a network runs with chosen nodes on a simulated chip (issue 33 scope 2): the
// oneDNN engine (exec::Engine) with xbar::CrossbarBackend as its delegate for the chosen Conv /
// Gemm / MatMul nodes, which are programmed once (chip_seed, layer id = node name); the engine runs
// every other node. Samples go through in batches of the model's N, the last one zero padded, and
// read noise is one stream (read_seed) over the batches in order: the same setup and samples give
// the same bytes, and the logits depend on N (each batch is one read of every analog layer).
//
// hybrid::evaluate (labelled image data sets: api::execute), accuracy::evaluate_on_chip
// (calibration sets: sensitivity, a plan's measured accuracy) and api::analog_run (one execution of
// any network: outputs()) run through it. xbar::AnalogGraph
// (the reference interpreter with the chip) is its test oracle (tests/xbar/crossbar_backend_test).
//
//   hybrid::ChipRunner run(lowered, {profile, {"features.3"}, chip_seed, read_seed});
//   std::vector<float> logits(count * run.classes());
//   run.run(count, [&](int64_t first, int64_t n, float* x) { /* n samples from `first` */ },
//           logits.data());
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/reference.h"  // exec::TensorMap
#include "graph/graph.h"
#include "xbar/chip_profile.h"
#include "xbar/mapping.h"
#include "xbar/programmed_layer.h"

namespace hetcim::xbar {
class CrossbarBackend;
}
namespace hetcim::exec {
class Engine;
}

namespace hetcim::hybrid {

// The model as the runner takes it: the initializers it lacks filled from weight_seed (how many in
// `*seeded` when given), lowered for fp32 (BatchNorm folded, activations fused; node names kept, so
// partition plans and zoo names apply).
[[nodiscard]] graph::Graph lower_for_chip(const graph::Graph& model, uint64_t weight_seed,
                                          size_t* seeded = nullptr);

struct ChipSetup {
  std::optional<xbar::ChipProfile> chip;  // nullopt: every node digital (analog_nodes ignored)
  std::vector<std::string> analog_nodes;  // node names of the lowered graph; empty: all digital
  uint64_t chip_seed = 1;                 // persistent programmed state
  uint64_t read_seed = 1;                 // read noise
  int threads = 1;                        // engine and simulator threads, >= 1
};

// Writes samples [first, first + n) into `x` (n x sample_size floats, the batch's first rows).
using FillSamples = std::function<void(int64_t first, int64_t n, float* x)>;

class ChipRunner {
 public:
  // `lowered`: a graph lowered for fp32 with weights (lower_for_chip). UserError naming a node
  // that is unknown or not a Conv / Gemm / MatMul with constant weights.
  ChipRunner(const graph::Graph& lowered, const ChipSetup& setup);
  ~ChipRunner();
  ChipRunner(const ChipRunner&) = delete;
  ChipRunner& operator=(const ChipRunner&) = delete;

  // Logits of `count` samples into `logits` (count x classes floats), batch by batch: the graph's
  // first input float32 N x ... and its first output N x classes.
  void run(int64_t count, const FillSamples& fill, float* logits);
  // One execution on `inputs` (every graph input): every graph output by name.
  [[nodiscard]] exec::TensorMap outputs(const exec::TensorMap& inputs);

  [[nodiscard]] int64_t batch() const { return batch_; }
  [[nodiscard]] int64_t sample_size() const { return sample_size_; }
  [[nodiscard]] int64_t classes() const { return classes_; }
  // The analog layers' mapping audits in graph order, and the DAC / ADC conversions of every run
  // so far (empty / zero without a chip).
  [[nodiscard]] std::vector<xbar::MappingAudit> audits() const;
  [[nodiscard]] xbar::ForwardStats stats() const;

 private:
  std::vector<std::string> outputs_;
  std::string input_, output_;
  graph::Shape input_shape_;
  int64_t batch_ = 0, sample_size_ = 0, classes_ = 0;
  std::shared_ptr<xbar::CrossbarBackend> backend_;
  std::unique_ptr<exec::Engine> engine_;
};

}  // namespace hetcim::hybrid
