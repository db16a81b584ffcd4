#include "ops/quantize.h"

#include <algorithm>

namespace hetcim::ops {

QuantParams activation_params(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  QuantParams p;
  p.dtype = graph::DType::UInt8;
  if (!(hi > lo)) return p;
  p.scale = (hi - lo) / 255.0f;
  p.zero_point = saturate(round_half_even(-lo / p.scale), 0, 255);
  return p;
}

QuantParams weight_params(float max_abs) {
  QuantParams p;
  p.dtype = graph::DType::Int8;
  p.zero_point = 0;
  p.scale = max_abs > 0 ? max_abs / 127.0f : 1.0f;
  return p;
}

}  // namespace hetcim::ops
