// Values for initializers that have a shape but no data (the zoo describes architectures without
// weights). Used by the exporter, because an ONNX initializer must carry its values.
//
// The rule looks at the first node (in graph order) that reads the initializer and at the input
// slot it is read through:
//
//   consumer, input slot                                  values
//   Conv/ConvTranspose/Gemm/MatMul 1 (weight), float      U(-b, b), b = sqrt(6 / fan_in)
//   (He/Kaiming
//                                                         uniform for a ReLU gain)
//   Conv/ConvTranspose/Gemm 2 (bias)                      0
//   BatchNormalization 1 (scale), 4 (variance)            1
//   BatchNormalization 2 (bias), 3 (mean)                 0
//   QuantizeLinear/DequantizeLinear 1 (scale)             2^-7
//   QuantizeLinear/DequantizeLinear 2 (zero point)        0
//   DequantizeLinear 0, int8 / uint8                      uniform integers in [-127, 127] / [0,
//   255] DequantizeLinear 0, int32 (a quantized bias)          0 anything else, float (or no
//   consumer)                 U(-b, b) with fan_in = prod(dims[1:]) anything else, integer
//   UserError (no meaningful default)
//
// fan_in: Conv weight (C_out, C_in/g, k...) -> prod(dims[1:]); ConvTranspose weight
// (C_in, C_out/g, k...) -> prod(dims[1:]); Gemm B -> dims[0], or dims[1] when transB = 1; MatMul
// B -> dims[rank-2]; fan_in 0 is treated as 1.
//
// Random draws come from SplitMix64 seeded with seed ^ FNV-1a(name), so an initializer's values
// depend only on (seed, its name, its shape, the rule), not on the order of the graph's maps; the
// same seed gives the same bytes on every platform (no std:: distributions are involved).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::onnxio {

// Little-endian bytes for initializer `name` of `g` (which must exist and have a fully known
// shape) following the rule above. Throws UserError naming the initializer when no rule applies.
[[nodiscard]] std::vector<uint8_t> generate_initializer_values(const graph::Graph& g,
                                                               const std::string& name,
                                                               uint64_t seed);

// Gives every initializer that has a shape but no values the values of the rule above, so that
// `hetcim run resnet18 --seed S` and `hetcim export resnet18 --seed S` describe the same network.
// Call it on the graph as built (before passes::lower), so BatchNorm folding sees the values.
// Returns the number of initializers filled. Same seed => same bytes.
size_t materialize_weights(graph::Graph& g, uint64_t seed);

}  // namespace hetcim::onnxio
