// The quantize family's arithmetic: ONNX QuantizeLinear / DequantizeLinear semantics, element by
// element, and the rules hetcim uses to choose quantization parameters. Both engines and
// calibration (passes/apply_calibration) call these, so they agree bit for bit.
//
//   QuantizeLinear:   y = saturate(round_half_to_even(x / scale) + zero_point)
//                     saturate to [0, 255] for uint8 and [-128, 127] for int8
//   DequantizeLinear: y = (x - zero_point) * scale   (one float multiplication)
//
// The division is the float division x / scale (not a multiplication by 1/scale), as the ONNX
// reference implementation does; NaN quantizes to the zero point.
#pragma once

#include <cmath>
#include <cstdint>

#include "graph/graph.h"

namespace hetcim::ops {

// Rounds half to even for |v| < 2^22 with one add and one subtract (exact in IEEE float with the
// default rounding mode, which the build never changes: no -ffast-math); larger magnitudes are
// clamped first, so the result saturates anyway. Vectorizes, unlike std::nearbyint.
[[nodiscard]] inline float round_half_even(float v) {
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
  v = v > 4194304.0f ? 4194304.0f : (v < -4194304.0f ? -4194304.0f : v);
  return (v + kMagic) - kMagic;
}

// Saturating conversion of an already rounded value plus zero point.
[[nodiscard]] inline int32_t saturate(float rounded_plus_zp, int32_t lo, int32_t hi) {
  if (!(rounded_plus_zp >= static_cast<float>(lo))) return lo;  // also NaN
  if (rounded_plus_zp > static_cast<float>(hi)) return hi;
  return static_cast<int32_t>(rounded_plus_zp);
}

struct QRange {
  int32_t lo = 0, hi = 255;
};
[[nodiscard]] inline QRange qrange(graph::DType t) {
  return t == graph::DType::Int8 ? QRange{-128, 127} : QRange{0, 255};
}

[[nodiscard]] inline int32_t quantize_value(float x, float scale, int32_t zero_point, QRange r) {
  if (std::isnan(x)) return zero_point;
  return saturate(round_half_even(x / scale) + static_cast<float>(zero_point), r.lo, r.hi);
}

[[nodiscard]] inline float dequantize_value(int32_t q, float scale, int32_t zero_point) {
  return static_cast<float>(q - zero_point) * scale;
}

// Requantization of an int32 accumulator whose real value is acc * multiplier (QLinearConv,
// QLinearMatMul, QGemm, QLinearGlobalAveragePool): y = saturate(round(float(acc) * multiplier) +
// zp).
[[nodiscard]] inline int32_t requantize(int32_t acc, float multiplier, int32_t zero_point,
                                        QRange r) {
  return saturate(
      round_half_even(static_cast<float>(acc) * multiplier) + static_cast<float>(zero_point), r.lo,
      r.hi);
}

struct QuantParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
  graph::DType dtype = graph::DType::UInt8;
};

// Activations: asymmetric uint8 over [min(lo, 0), max(hi, 0)] (the range must contain 0 so that
// zero, e.g. padding, is exact): scale = (max - min) / 255, zero_point = round(-min / scale)
// clamped to [0, 255]; a range of width 0 gives scale 1, zero point 0. This is ONNX Runtime's
// quantize_static MinMax rule for uint8 activations.
[[nodiscard]] QuantParams activation_params(float lo, float hi);

// Weights: symmetric int8 over [-max|w|, max|w|]: scale = max|w| / 127, zero point 0 (values land
// in [-127, 127]); max|w| = 0 gives scale 1.
[[nodiscard]] QuantParams weight_params(float max_abs);

}  // namespace hetcim::ops
