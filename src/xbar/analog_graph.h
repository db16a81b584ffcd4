// A graph with chosen Conv / Gemm / MatMul nodes executed on a simulated chip and every other
// node executed digitally by exec's reference interpreter (issue 5, item 4).
//
// Construction programs each analog node's weights once on the chip (layer id = node name), so
// the programmed state is the chip's persistent state: running the same inputs twice reads the
// same conductances with fresh read noise, and chips with different seeds differ. The digital
// nodes are grouped into maximal runs (segments), each a subgraph for exec::run_reference.
//
// Analog node semantics (the digital periphery adds what the crossbar does not compute):
//   Conv    im2col rows (one read per output pixel) x crossbar, + bias, fused activation
//   Gemm    transA = 0; alpha folded into the programmed matrix; + beta * C (C of shape [N],
//           [1, N] or a scalar); fused activation
//   MatMul  A of rank >= 2 (leading dimensions flattened) x a constant [K, N] matrix
// The graph must carry every tensor's shape (zoo graphs, imported ONNX, lowered graphs do) and
// be batch-specific: inputs are checked against the declared shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec/reference.h"
#include "graph/graph.h"
#include "xbar/chip.h"
#include "xbar/programmed_layer.h"
#include "xbar/rng.h"

namespace hetcim::xbar {

class AnalogGraph {
 public:
  // UserError naming the node when a name is unknown, or the node is not a Conv (groups = 1),
  // Gemm or MatMul with constant weights.
  AnalogGraph(graph::Graph g, const Chip& chip, const std::vector<std::string>& analog_nodes);

  // The graph outputs for `inputs` (as exec::run_reference takes them). Read noise from read_rng.
  [[nodiscard]] exec::TensorMap run(const exec::TensorMap& inputs, Rng& read_rng,
                                    ForwardStats* stats = nullptr) const;

  [[nodiscard]] std::vector<MappingAudit> audits() const;
  [[nodiscard]] const graph::Graph& graph() const { return g_; }

 private:
  struct AnalogOp {
    size_t node = 0;  // index into g_.nodes
    ProgrammedLayer layer;
    std::vector<float> bias;  // per output column (empty: none)
    float bias_scale = 1.0f;  // Gemm beta
  };
  struct Step {
    bool analog = false;
    size_t op = 0;         // analog: index into ops_
    graph::Graph segment;  // digital
  };

  void run_analog(const AnalogOp& op, exec::TensorMap& env, Rng& read_rng,
                  ForwardStats& stats) const;

  graph::Graph g_;
  std::vector<AnalogOp> ops_;
  std::vector<Step> steps_;
};

}  // namespace hetcim::xbar
