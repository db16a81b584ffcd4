#include "xbar/converters.h"

#include <algorithm>
#include <cmath>

namespace hetcim::xbar {

HETCIM_XBAR_CLONES
int64_t quantize_signed(float* v, int64_t n, float full_scale, int bits) {
  if (bits == 0) return 0;
  if (!(full_scale > 0.0f)) {
    std::fill(v, v + n, 0.0f);
    return 0;
  }
  const float m = static_cast<float>((1 << (bits - 1)) - 1);
  const float lo = -m - 1.0f;
  const float to_code = m / full_scale;
  const float to_value = full_scale / m;
  int64_t clipped = 0;
  // Clamping to [lo, m] before rounding gives the same code as rounding first: m is odd, so the
  // tie m + 0.5 would round to the even m + 1 (out of range, clipped to m) and -m - 1.5 to the even
  // -m - 1 (in range). Out of range means t >= m + 0.5 or t < -m - 1.5.
#pragma omp simd reduction(+ : clipped)
  for (int64_t i = 0; i < n; ++i) {
    const float t = v[i] * to_code;
    clipped += (t >= m + 0.5f) | (t < lo - 0.5f);
    v[i] = round_code(std::min(std::max(t, lo), m)) * to_value;
  }
  return clipped;
}

HETCIM_XBAR_CLONES
float max_abs(const float* v, int64_t n) {
  return max_abs_lanes(v, n);
}

}  // namespace hetcim::xbar
