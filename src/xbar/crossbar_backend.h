// The crossbar simulator as an execution backend of exec::Engine (exec/backend.h): the engine
// runs every node on oneDNN except the Conv / Gemm / MatMul nodes named here, which it hands to
// this backend; each is programmed once on the chip when the engine is built (layer id = node
// name, the chip's persistent state, as AnalogGraph does) and read through
// ProgrammedLayer::forward (the exact output-noise fast path) on the engine's own buffers.
//
// Per node, the digital periphery adds what the crossbar does not compute, with the arithmetic of
// AnalogGraph: Conv = im2col rows x crossbar (+ bias, fused activation), reading its input and
// writing its output channels-last (the rows of the product are NHWC already, and oneDNN's float
// convolutions and pools keep that layout); Gemm (transA = 0, alpha folded into the programmed
// matrix, + beta * C) and MatMul (leading dimensions flattened) row-major.
//
// Read noise: one stream (read_rng) consumed by the analog nodes in graph order, one draw per node
// and execution, as AnalogGraph::run consumes it: the same graph, chip, nodes, inputs and read
// seed give the same analog outputs as AnalogGraph (tests/xbar/crossbar_backend_test.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/backend.h"
#include "xbar/chip.h"
#include "xbar/mapping.h"
#include "xbar/model_layers.h"
#include "xbar/programmed_layer.h"
#include "xbar/rng.h"

namespace hetcim::xbar {

class CrossbarBackend final : public exec::Backend {
 public:
  CrossbarBackend(Chip chip, std::vector<std::string> nodes, uint64_t read_seed = 1);

  // UserError naming the model and the node when a name is unknown, or the node is not a Conv
  // (groups = 1), Gemm (transA = 0) or MatMul with constant weights.
  [[nodiscard]] std::vector<std::string> capability(const graph::Graph& g) override;
  [[nodiscard]] exec::BackendKernel compile(const graph::Graph& g, const graph::Node& n) override;

  [[nodiscard]] const Chip& chip() const { return chip_; }
  // The read-noise stream the kernels draw from (reset it to replay a run).
  [[nodiscard]] Rng& read_rng() { return read_rng_; }
  // DAC/ADC conversions of every execution since construction (or reset_stats).
  [[nodiscard]] const ForwardStats& stats() const { return stats_; }
  void reset_stats() { stats_ = {}; }
  // The programmed layers' audits, in graph order.
  [[nodiscard]] std::vector<MappingAudit> audits() const;

 private:
  Chip chip_;
  std::vector<std::string> nodes_;
  Rng read_rng_;
  ForwardStats stats_;
  std::map<std::string, CrossbarMatrix> pending_;  // capability's matrices, until compiled
  std::vector<std::shared_ptr<const ProgrammedLayer>> layers_;
};

}  // namespace hetcim::xbar
