// DAC and ADC quantization: a signed uniform converter with `bits` bits and full scale F maps v to
// code = clamp(round(v / F * M), -M - 1, M) with M = 2^(bits-1) - 1 (8 bits: codes -128..127,
// +/-F at codes +/-127) and back to code * F / M; round is half to even. bits = 0 is an ideal
// converter (no change). Ranging, i.e. how F is chosen, is the caller's rule (chip_profile.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

// Element-wise kernels are compiled for AVX-512, AVX2 and the baseline and picked at load time.
// Sums use a fixed lane order and max is order-free, but the clones are not byte-identical on
// every CPU: GCC's default -ffp-contract=fast (C++, also under -std=c++20) lets the AVX2 and
// AVX-512 clones fuse a * b + c into an FMA, which the baseline clone cannot (src/xbar/README.md).
#define HETCIM_XBAR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace hetcim::xbar {

// Quantizes v[0..n) in place; returns how many values lay beyond the code range (clipped).
// full_scale <= 0 maps everything to 0.
int64_t quantize_signed(float* v, int64_t n, float full_scale, int bits);

[[nodiscard]] float max_abs(const float* v, int64_t n);

// max_abs for callers that are themselves compiled per instruction set (inlined there): sixteen
// fixed lanes (max is order-free, so every split gives the same value) instead of an OpenMP max
// reduction, whose lane set-up and scalar fold cost more than the pass on a 128-column array.
[[nodiscard]] inline float max_abs_lanes(const float* v, int64_t n) {
  constexpr int kLanes = 16;
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#if defined(_OPENMP)  // the header is also read by code built without OpenMP
#pragma omp simd
#endif
    for (int l = 0; l < kLanes; ++l) acc[l] = std::max(acc[l], std::fabs(v[i + l]));
  }
  float m = 0.0f;
  for (; i < n; ++i) m = std::max(m, std::fabs(v[i]));
  for (float a : acc) m = std::max(m, a);
  return m;
}

// Round half to even of a float whose magnitude is below 2^22 (converter codes).
[[nodiscard]] inline float round_code(float x) {
  // Adding 1.5 * 2^23 leaves no fraction bits, so the FPU rounds (to nearest even); IEEE
  // semantics (no -ffast-math) keep the compiler from folding (x + c) - c.
  constexpr float kMagic = 12582912.0f;
  return (x + kMagic) - kMagic;
}

}  // namespace hetcim::xbar
