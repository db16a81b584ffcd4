// Calibration's graph rewrite: fills the quantization of an int8 lowered graph from measured
// tensor ranges (exec/calibration.h measures them and describes the whole flow):
//   - activations get asymmetric uint8 parameters from their range (ops/quantize.h:
//     activation_params); int8 data movement (MaxPool, Resize, Reshape, Transpose, Slice, Split,
//     ...) passes its input's parameters on, so it stays exact;
//   - every annotated operator becomes its QLinear form (the registry's `qform`, operands placed as
//     its row says) with the same node name; constant weights are quantized symmetric int8 per
//     output channel (weight_params), biases to int32 with scale x_scale * w_scale, other float
//     constants (an Add's operand) to uint8 with their own range.
#pragma once

#include <map>
#include <string>

#include "graph/graph.h"

namespace hetcim::passes {

struct TensorRange {
  float lo = 0, hi = 0;
};
using Ranges = std::map<std::string, TensorRange>;

// UserError naming the node for an annotated operator hetcim cannot quantize, or a tensor without
// a calibration range.
[[nodiscard]] graph::Graph apply_calibration(const graph::Graph& int8_lowered,
                                             const Ranges& ranges);

}  // namespace hetcim::passes
