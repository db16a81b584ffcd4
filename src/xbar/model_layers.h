// The crossbar view of a model: every operator whose weights a crossbar can hold, as a matrix in
// crossbar layout (rows = inputs, cols = outputs). Conv (groups = 1) with a constant 4-D weight,
// Gemm with a constant B (transB honoured) and MatMul with a constant 2-D right operand; alpha
// scales the matrix. Grouped convolutions are listed as skipped (a crossbar would need their
// block-diagonal expansion).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "xbar/chip.h"
#include "xbar/mapping.h"

namespace hetcim::xbar {

struct CrossbarMatrix {
  std::string node;  // node name, used as the layer id on a chip
  std::string op_type;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> weights;  // rows x cols
};

struct ModelLayers {
  std::vector<CrossbarMatrix> mapped;
  std::vector<std::string> skipped;  // "node (reason)"
};

// UserError when a weight initializer carries no values (an architecture-only graph).
[[nodiscard]] ModelLayers crossbar_layers(const graph::Graph& g);

// Programs every mappable layer (or only the named ones) on `chip` and returns their audits.
// UserError for a requested name that is not a mappable layer.
[[nodiscard]] std::vector<MappingAudit> audit_model(const graph::Graph& g, const Chip& chip,
                                                    const std::vector<std::string>& only = {});

}  // namespace hetcim::xbar
