// Float math written so GCC vectorises the loops that call it (no libm calls, no branches): the
// exponential the Softmax and GELU kernels use. Accuracy: within 2 ulp of expf over its range
// (Cephes' expf polynomial, range-reduced by ln 2 in two parts); inputs are clamped to
// [-87.3, 88.3], so the result never overflows and stays a normal number.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

namespace hetcim::ops {

inline float exp_approx(float x) {
  x = std::min(std::max(x, -87.3f), 88.3f);
  // n = round(x / ln 2) by the 1.5 * 2^23 trick (exact for |x / ln 2| < 2^22).
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const auto e = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  return p * std::bit_cast<float>(e);
}

}  // namespace hetcim::ops
