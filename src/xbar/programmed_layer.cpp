#include "xbar/programmed_layer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "util/error.h"
#include "xbar/converters.h"
#include "xbar/gemm.h"

namespace hetcim::xbar {
namespace {

// Below this many element operations a pass runs on the calling thread.
constexpr int64_t kParallelWork = 1 << 20;

// Input vectors per work item: DAC, product and ADC of a chunk run on one thread.
constexpr int64_t kChunkRows = 512;

// forward_rows asks its source for at most this many inputs (256 KiB of floats) at a time.
constexpr int64_t kSourceBlockFloats = 65536;

// Grow-only scratch buffers of the calling thread: fresh multi-megabyte vectors on every call
// would page-fault their memory in again each time (glibc hands large blocks back to the OS).
// Purely a cache; no result depends on it.
struct Scratch {
  std::vector<float> v, part, scale, norm, z, rows;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

float* sized(std::vector<float>& buffer, int64_t n) {
  if (buffer.size() < static_cast<size_t>(n)) buffer.resize(static_cast<size_t>(n));
  return buffer.data();
}

// Seed of the independent stream number `index` of one forward call.
uint64_t stream_seed(uint64_t call_seed, uint64_t index) {
  return call_seed ^ (0x9e3779b97f4a7c15ULL * (index + 1));
}

// Sixteen floats as one value (GCC vector extension): one zmm register in the AVX-512 clone, two
// ymm or four xmm in the others, and kept in registers across a loop (the lane arrays indexed by
// a runtime lane in the tail loops lived on the stack, one store-to-load round trip per step).
// Element-wise the same operations as the scalar code, contracted the same way per clone.
// The helpers below are always inlined into their per-instruction-set callers and have internal
// linkage: no F16 ever crosses a call boundary, so GCC's note that such a return would change the
// ABI without AVX-512 does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
using F16 = float __attribute__((vector_size(64)));
using I16 = int32_t __attribute__((vector_size(64)));

inline __attribute__((always_inline)) F16 load16(const float* p) {
  F16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline __attribute__((always_inline)) void store16(float* p, F16 v) {
  std::memcpy(p, &v, sizeof v);
}

// Lane-wise maxima and the largest lane are taken in 8-lane halves (F8: one ymm in the AVX2 and
// AVX-512 clones): GCC has no 64-byte compare without AVX-512, so in the AVX2 clone a select on
// an F16 became sixteen scalar maxss with the lanes spilled to the stack (issue 15 scope 3,
// session 9: on an AVX2-only CPU the DAC was the largest piece of the whole network's profile),
// and an F16 carried across loop iterations lives in memory there. max is order-free and exact,
// so any grouping gives the same value on every clone.
using F8 = float __attribute__((vector_size(32)));
using I8 = int32_t __attribute__((vector_size(32)));

inline __attribute__((always_inline)) F8 load8(const float* p) {
  F8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline __attribute__((always_inline)) F8 max8(F8 a, F8 b) {
  return a < b ? b : a;  // std::max(a, b) per lane
}

inline __attribute__((always_inline)) F8 abs8(F8 a) {
  return reinterpret_cast<F8>(reinterpret_cast<I8>(a) & (I8{} + 0x7fffffff));
}

// The largest of 16 lanes held as two halves (lanes 0-7, 8-15): the halves' lane-wise maximum,
// then a tree of three lane-wise maxima (order-free, so the value of the sixteen scalar steps it
// replaced; one of those chains per vector cost more than a narrow layer's whole ADC).
inline __attribute__((always_inline)) float hmax16(F8 lo, F8 hi) {
  F8 a = max8(lo, hi);
  F8 b = __builtin_shufflevector(a, a, 4, 5, 6, 7, 0, 1, 2, 3);
  a = max8(a, b);
  b = __builtin_shufflevector(a, a, 2, 3, 0, 1, 6, 7, 4, 5);
  a = max8(a, b);
  b = __builtin_shufflevector(a, a, 1, 0, 3, 2, 5, 4, 7, 6);
  a = max8(a, b);
  return a[0];
}

// max |x| over n floats (order-free: the value of max_abs_lanes): 16 lanes in two 8-lane
// registers, the last n mod 16 in scalar code.
inline __attribute__((always_inline)) float max_abs16(const float* x, int64_t n) {
  float m = 0.0f;
  int64_t i = 0;
  if (n >= 16) {
    F8 lo = {}, hi = {};
    for (; i + 16 <= n; i += 16) {
      lo = max8(lo, abs8(load8(x + i)));
      hi = max8(hi, abs8(load8(x + i + 8)));
    }
    m = hmax16(lo, hi);
  }
  for (; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

// The codes / M of 8 inputs and their squares added to the 8 lanes of acc. `ideal` (all ones
// for an ideal DAC: no rounding) is a bitwise per-lane select, as in the loop this replaced:
// the product x * to_code then has a use other than the rounding's addition, so no clone
// contracts the two into an FMA (the bytes pinned by stream_pin_test).
inline __attribute__((always_inline)) F8 dac8(F8 x, float to_code, float inv_m, I8 ideal, F8& acc) {
  const F8 c = x * to_code;
  constexpr float kMagic = 12582912.0f;  // round_code, element-wise
  const F8 r = (c + kMagic) - kMagic;
  const auto q =
      reinterpret_cast<F8>((reinterpret_cast<I8>(c) & ideal) | (reinterpret_cast<I8>(r) & ~ideal));
  const F8 v = q * inv_m;
  acc += v * v;
  return v;
}

inline __attribute__((always_inline)) void store8(float* p, F8 v) {
  std::memcpy(p, &v, sizeof v);
}

// The codes of x[0..n) into v, ||v||^2 returned: element i in lane i mod 16, the lanes added in
// order. Whole groups of 16 in registers, as two 8-lane halves (F8, one ymm in the AVX2 and
// AVX-512 clones): as one F16 the AVX2 clone kept the lanes on the stack and stored each group
// through general registers, and this loop was the largest item of a whole network's profile on
// an AVX2 CPU (issue 13, session 11). The last n mod 16 in the scalar form of that loop.
inline __attribute__((always_inline)) float dac_codes(const float* x, int64_t n, float* v, int bits,
                                                      float to_code, float inv_m) {
  alignas(64) float acc[16] = {};
  int64_t i = 0;
  if (n >= 16) {
    F8 lo = {}, hi = {};
    const I8 ideal = I8{} + (bits == 0 ? -1 : 0);
    for (; i + 16 <= n; i += 16) {
      // The inputs that follow this segment (the next segment or vector: dac_rows walks them in
      // memory order), a cache line per 16 inputs, fetched while these codes are computed; a
      // prefetch past the batch's end does not fault.
      __builtin_prefetch(x + n + i, 0, 3);
      store8(v + i, dac8(load8(x + i), to_code, inv_m, ideal, lo));
      store8(v + i + 8, dac8(load8(x + i + 8), to_code, inv_m, ideal, hi));
    }
    store8(acc, lo);
    store8(acc + 8, hi);
  }
  for (int l = 0; i < n; ++i, ++l) {
    const float c = x[i] * to_code;
    v[i] = (bits == 0 ? c : round_code(c)) * inv_m;
    acc[l] += v[i] * v[i];
  }
  // Lanes never written hold +0 and leave a sum of squares unchanged.
  const int64_t used = std::min<int64_t>(16, n);
  float sq = 0.0f;
  for (int64_t l = 0; l < used; ++l) sq += acc[l];
  return sq;
}

// DAC of one input segment: full scale s = max |x|, codes / M in [-1, 1] written to v (an ideal
// DAC writes x / s). Returns s; `norm2` receives ||v||_2^2, summed in 16 fixed lanes (element i
// in lane i mod 16, the lanes added in order) so that every instruction-set clone gives the same
// bytes.
inline __attribute__((always_inline)) float dac_segment(const float* x, int64_t n, float* v,
                                                        int bits, float& norm2) {
  const float s = max_abs16(x, n);
  norm2 = 0.0f;
  if (s == 0.0f) {
    std::fill(v, v + n, 0.0f);
    return 0.0f;
  }
  const float m = bits == 0 ? 1.0f : static_cast<float>((1 << (bits - 1)) - 1);
  const float to_code = m / s;
  const float inv_m = 1.0f / m;
  norm2 = dac_codes(x, n, v, bits, to_code, inv_m);
  return s;
}

// The output epilogue on n outputs (shift: the epilogue's values for these columns, or null).
inline __attribute__((always_inline)) void apply_epilogue(float* o, int64_t n, const float* shift,
                                                          const OutputEpilogue& e) {
  if (shift != nullptr) {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) o[c] = o[c] + shift[c];
  }
  if (e.act == OutputEpilogue::Act::Relu) {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) o[c] = o[c] > 0 ? o[c] : 0;
  } else if (e.act == OutputEpilogue::Act::Clip) {
    const float lo = e.lo, hi = e.hi;
    for (int64_t c = 0; c < n; ++c) o[c] = o[c] < lo ? lo : (o[c] > hi ? hi : o[c]);
  }
}

// The output epilogue of one element (the arithmetic of apply_epilogue).
template <bool kShift, OutputEpilogue::Act kAct>
inline __attribute__((always_inline)) float epilogue_value(float v, const float* shift, int64_t c,
                                                           float lo, float hi) {
  if constexpr (kShift) v = v + shift[c];
  if constexpr (kAct == OutputEpilogue::Act::Relu) v = v > 0 ? v : 0;
  if constexpr (kAct == OutputEpilogue::Act::Clip) v = v < lo ? lo : (v > hi ? hi : v);
  return v;
}

// One array's output row: add read noise sd * z, ADC per column tile, accumulate g * codes into
// out (kFirst: the first row tile, out is written as 0 + g * codes instead of read: the bytes of
// accumulating onto a zeroed row without zeroing it), then, when `epi` is given (the last row
// tile), the output epilogue: kEpi says it is, kShift and kAct are its shift and activation,
// applied to each element before it is stored (the element arithmetic of the separate pass: a
// reload of the row just stored cost a third of a narrow layer's ADC). Clipped conversions are
// counted in the 16 int lanes `count` (quantize_signed's rule), summed once per call.
// Two passes per column tile while it is in L1 (noise and full scale; codes and accumulation):
// the arithmetic of quantize_signed and of a separate accumulation, element by element, so the
// bytes are those of the unfused passes.
template <bool kFirst, bool kEpi, bool kShift, OutputEpilogue::Act kAct>
inline __attribute__((always_inline)) void adc_accumulate(float* row, const float* z, float sd,
                                                          int64_t n, int64_t tile_cols, bool fixed,
                                                          float full_scale, int bits, float g,
                                                          float* out, const OutputEpilogue* epi,
                                                          int32_t* count) {
  constexpr int kLanes = 16;
  const float* shift = kShift ? epi->shift.data() : nullptr;
  const float elo = kEpi ? epi->lo : 0.0f, ehi = kEpi ? epi->hi : 0.0f;
  for (int64_t c0 = 0; c0 < n; c0 += tile_cols) {
    const int64_t len = std::min(tile_cols, n - c0);
    float* r = row + c0;
    float* o = out + c0;
    if (z != nullptr) {
      const float* zc = z + c0;
#pragma omp simd
      for (int64_t c = 0; c < len; ++c) r[c] += sd * zc[c];
    }
    const float fs = fixed ? full_scale : max_abs16(r, len);
    if (bits == 0 || !(fs > 0.0f)) {
      if (bits == 0) {
#pragma omp simd
        for (int64_t c = 0; c < len; ++c) o[c] = (kFirst ? 0.0f : o[c]) + g * r[c];
      } else {
#pragma omp simd
        for (int64_t c = 0; c < len; ++c) o[c] = (kFirst ? 0.0f : o[c]) + g * 0.0f;
      }
      if (kEpi) apply_epilogue(o, len, kShift ? shift + c0 : nullptr, *epi);
      continue;
    }
    const float m = static_cast<float>((1 << (bits - 1)) - 1);
    const float lo = -m - 1.0f;
    const float to_code = m / fs;
    const float to_value = fs / m;
    int32_t lanes[kLanes] = {};
    int64_t c = 0;
    for (; c + kLanes <= len; c += kLanes) {
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) {
        const float t = r[c + l] * to_code;
        lanes[l] += static_cast<int32_t>((t >= m + 0.5f) | (t < lo - 0.5f));
        const float v =
            (kFirst ? 0.0f : o[c + l]) + g * (round_code(std::min(std::max(t, lo), m)) * to_value);
        o[c + l] = kEpi ? epilogue_value<kShift, kAct>(v, shift, c0 + c + l, elo, ehi) : v;
      }
    }
    for (; c < len; ++c) {
      const float t = r[c] * to_code;
      lanes[0] += static_cast<int32_t>((t >= m + 0.5f) | (t < lo - 0.5f));
      const float v =
          (kFirst ? 0.0f : o[c]) + g * (round_code(std::min(std::max(t, lo), m)) * to_value);
      o[c] = kEpi ? epilogue_value<kShift, kAct>(v, shift, c0 + c, elo, ehi) : v;
    }
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) count[l] += lanes[l];
  }
}

// The DAC of 16 vectors of K < 16 inputs each (one row tile: x and v are 16 x K, row-major),
// side by side: vector l in lane l of registers that hold one input position each, so that the
// full scale, the codes, the norm's sum, its square root and the divisions take one vector
// operation for all 16 (per vector they were scalar chains longer than the 9 x 32 product of a
// first convolution). The arithmetic of dac_segment's scalar tail, element by element: the same
// max, codes and squares, and the squares added to 0 in input order; a vector with no input
// voltage gets zero codes, scale and norm.
inline __attribute__((always_inline)) void dac_narrow16(const float* x, int64_t K, float* v,
                                                        int bits, float* scale, float* norm) {
  constexpr int kMaxK = 15;
  alignas(64) float xt[kMaxK][16];
  for (int l = 0; l < 16; ++l)
    for (int64_t i = 0; i < K; ++i) xt[i][l] = x[l * K + i];
  // The full scales in two 8-lane halves (max8: see hmax16), then as one F16.
  F8 s_lo = {}, s_hi = {};
  for (int64_t i = 0; i < K; ++i) {
    s_lo = max8(s_lo, abs8(load8(xt[i])));
    s_hi = max8(s_hi, abs8(load8(xt[i] + 8)));
  }
  const I8 live_lo = s_lo != 0.0f, live_hi = s_hi != 0.0f;
  const F16 s =
      __builtin_shufflevector(s_lo, s_hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const float m = bits == 0 ? 1.0f : static_cast<float>((1 << (bits - 1)) - 1);
  const F16 to_code = m / s;  // inf where s == 0 (those lanes are masked below)
  const float inv_m = 1.0f / m;
  const I16 ideal = I16{} + (bits == 0 ? -1 : 0);
  // All ones where the vector has an input voltage.
  const I16 live = __builtin_shufflevector(live_lo, live_hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                           12, 13, 14, 15);
  F16 sq = {};
  for (int64_t i = 0; i < K; ++i) {
    const F16 c = load16(xt[i]) * to_code;
    constexpr float kMagic = 12582912.0f;  // round_code, element-wise
    const F16 r = (c + kMagic) - kMagic;
    const auto q = reinterpret_cast<F16>((reinterpret_cast<I16>(c) & ideal) |
                                         (reinterpret_cast<I16>(r) & ~ideal));
    const auto code = reinterpret_cast<F16>(reinterpret_cast<I16>(q * inv_m) & live);
    store16(xt[i], code);
    F16 square = code * code;
    // The square rounded on its own before it is added (as the scalar loop stored it): no FMA.
    __asm__("" : "+m"(square));
    sq = sq + square;
  }
  alignas(64) float sq_lanes[16], s_lanes[16];
  store16(sq_lanes, sq);
  store16(s_lanes, s);
  for (int l = 0; l < 16; ++l) {
    scale[l] = s_lanes[l];
    norm[l] = std::sqrt(sq_lanes[l]);
    for (int64_t i = 0; i < K; ++i) v[l * K + i] = xt[i][l];
  }
}

// The DAC of a chunk's `rows` input vectors (xc: rows x K): per vector and row tile its codes
// (zero padded to Kp), scale and code norm. One call per chunk, compiled per instruction set with
// dac_segment inlined (a call per vector cost as much as the 9 inputs of a first convolution);
// layers of fewer than 16 inputs 16 vectors at a time (dac_narrow16).
HETCIM_XBAR_CLONES
void dac_rows(const float* xc, int64_t rows, int64_t K, int64_t T, int64_t L, int64_t Kp, int bits,
              float* v, float* scale, float* norm) {
  int64_t b = 0;
  if (T == 1 && K < 16 && Kp == K) {
    for (; b + 16 <= rows; b += 16)
      dac_narrow16(xc + b * K, K, v + b * K, bits, scale + b, norm + b);
  }
  for (; b < rows; ++b) {
    for (int64_t t = 0; t < T; ++t) {
      const int64_t r0 = t * L;
      const int64_t len = std::min(L, K - r0);
      float norm2 = 0.0f;
      scale[b * T + t] = dac_segment(xc + b * K + r0, len, v + b * Kp + r0, bits, norm2);
      norm[b * T + t] = std::sqrt(norm2);
    }
    std::fill(v + b * Kp + K, v + (b + 1) * Kp, 0.0f);
  }
}

// The vectors of adc_rows with the row tile's role and the epilogue fixed at compile time.
template <bool kFirst, bool kEpi, bool kShift, OutputEpilogue::Act kAct>
inline __attribute__((always_inline)) void adc_vectors(
    float* part, const float* z, int64_t rows, int64_t N, int64_t t, int64_t T, const float* scale,
    const float* norm, float sigma_n, int64_t tile_cols, bool fixed, float full_scale, int bits,
    double gamma, float* y, const OutputEpilogue* epi, int32_t* count) {
  for (int64_t b = 0; b < rows; ++b) {
    const float s = scale[b * T + t];
    float* out = y + b * N;
    if (s == 0.0f) {  // no input voltage: no current, no read noise
      // Zeros on the first row tile, then the epilogue (one pass: the bytes of a zero fill and
      // the separate epilogue; a frequent case, the blank margins of an image).
      if constexpr (kEpi) {
        const float* shift = kShift ? epi->shift.data() : nullptr;
        const float elo = epi->lo, ehi = epi->hi;
#pragma omp simd
        for (int64_t c = 0; c < N; ++c)
          out[c] = epilogue_value<kShift, kAct>(kFirst ? 0.0f : out[c], shift, c, elo, ehi);
      } else if constexpr (kFirst) {
#pragma omp simd
        for (int64_t c = 0; c < N; ++c) out[c] = 0.0f;
      }
      continue;
    }
    const float* zb = z != nullptr ? z + b * N : nullptr;
    const float sd = sigma_n * norm[b * T + t];
    const auto g = static_cast<float>(gamma * s);
    adc_accumulate<kFirst, kEpi, kShift, kAct>(part + b * N, zb, sd, N, tile_cols, fixed,
                                               full_scale, bits, g, out, epi, count);
  }
}

// Row tile t's noise, ADC and accumulation for a chunk's `rows` vectors (part: rows x N currents,
// z: their normals or null, y: the chunk's outputs, written on the first row tile and accumulated
// onto after; `epi`: the output epilogue, given on the last row tile). Returns the clipped
// conversions.
HETCIM_XBAR_CLONES
int64_t adc_rows(float* part, const float* z, int64_t rows, int64_t N, int64_t t, int64_t T,
                 const float* scale, const float* norm, float sigma_n, int64_t tile_cols,
                 bool fixed, float full_scale, int bits, double gamma, float* y,
                 const OutputEpilogue* epi) {
  using Act = OutputEpilogue::Act;
  int32_t count[16] = {};
#define HETCIM_ADC(first, has_epi, has_shift, act)                                               \
  adc_vectors<first, has_epi, has_shift, act>(part, z, rows, N, t, T, scale, norm, sigma_n,      \
                                              tile_cols, fixed, full_scale, bits, gamma, y, epi, \
                                              count)
  const bool first = t == 0;
  if (epi == nullptr) {
    if (first)
      HETCIM_ADC(true, false, false, Act::None);
    else
      HETCIM_ADC(false, false, false, Act::None);
  } else {
    const bool shift = !epi->shift.empty();
    // Every combination the chip's layers use; the last row tile only.
    switch (epi->act) {
      case Act::None:
        if (shift)
          first ? HETCIM_ADC(true, true, true, Act::None)
                : HETCIM_ADC(false, true, true, Act::None);
        else
          first ? HETCIM_ADC(true, true, false, Act::None)
                : HETCIM_ADC(false, true, false, Act::None);
        break;
      case Act::Relu:
        if (shift)
          first ? HETCIM_ADC(true, true, true, Act::Relu)
                : HETCIM_ADC(false, true, true, Act::Relu);
        else
          first ? HETCIM_ADC(true, true, false, Act::Relu)
                : HETCIM_ADC(false, true, false, Act::Relu);
        break;
      case Act::Clip:
        if (shift)
          first ? HETCIM_ADC(true, true, true, Act::Clip)
                : HETCIM_ADC(false, true, true, Act::Clip);
        else
          first ? HETCIM_ADC(true, true, false, Act::Clip)
                : HETCIM_ADC(false, true, false, Act::Clip);
        break;
    }
  }
#undef HETCIM_ADC
  int64_t clipped = 0;
  for (const int32_t k : count) clipped += k;
  return clipped;
}

}  // namespace

std::vector<float> ProgrammedLayer::effective_weights() const {
  std::vector<float> w(dg_.size());
  for (size_t i = 0; i < dg_.size(); ++i) w[i] = static_cast<float>(gamma_ * dg_[i]);
  return w;
}

void ProgrammedLayer::forward(const float* x, int64_t batch, float* y, Rng& read_rng,
                              ForwardStats* stats, const OutputEpilogue* epilogue) const {
  if (batch < 0) throw user_error("layer '", layer_id_, "': batch size must be >= 0, got ", batch);
  ForwardStats local;
  const uint64_t call_seed = read_rng.next_u64();
  if (batch > 0) {
    if (profile_.mode == SimMode::Reference) {
      forward_reference(x, batch, y, call_seed, local);
      if (epilogue != nullptr) {
        const float* shift = epilogue->shift.empty() ? nullptr : epilogue->shift.data();
        for (int64_t b = 0; b < batch; ++b) apply_epilogue(y + b * cols_, cols_, shift, *epilogue);
      }
    } else {
      forward_physical(x, nullptr, batch, y, call_seed, local, epilogue);
    }
  }
  if (stats != nullptr) {
    stats->dac_conversions += local.dac_conversions;
    stats->adc_conversions += local.adc_conversions;
    stats->adc_clipped += local.adc_clipped;
  }
}

void ProgrammedLayer::forward_rows(const RowSource& rows, int64_t batch, float* y, Rng& read_rng,
                                   ForwardStats* stats, const OutputEpilogue* epilogue) const {
  if (batch < 0) throw user_error("layer '", layer_id_, "': batch size must be >= 0, got ", batch);
  if (profile_.mode == SimMode::Reference) {
    // The reference mode reads every device once per call for the whole batch: the rows whole.
    std::vector<float> x(static_cast<size_t>(batch * rows_));
    if (batch > 0) rows(0, batch, x.data());
    forward(x.data(), batch, y, read_rng, stats, epilogue);
    return;
  }
  ForwardStats local;
  const uint64_t call_seed = read_rng.next_u64();
  if (batch > 0) forward_physical(nullptr, &rows, batch, y, call_seed, local, epilogue);
  if (stats != nullptr) {
    stats->dac_conversions += local.dac_conversions;
    stats->adc_conversions += local.adc_conversions;
    stats->adc_clipped += local.adc_clipped;
  }
}

void ProgrammedLayer::forward_physical(const float* x, const RowSource* source, int64_t batch,
                                       float* y, uint64_t call_seed, ForwardStats& stats,
                                       const OutputEpilogue* epilogue) const {
  const int64_t K = rows_;
  const int64_t N = cols_;
  const int64_t T = row_tiles_;
  const int64_t L = tile_rows_;
  const int64_t Kp = T * L;  // rows padded to whole tiles
  const ChipProfile& p = profile_;
  const auto sigma_n = static_cast<float>(std::sqrt(2.0) * p.read_noise / (p.g_max - p.g_min));
  const bool noisy = sigma_n > 0.0f;
  const bool fixed_adc = p.adc_ranging == AdcRanging::Fixed;
  const auto full_scale = static_cast<float>(p.adc_full_scale);
  const float* dg = dg_pad_.empty() ? dg_.data() : dg_pad_.data();
  const int64_t chunks = (batch + kChunkRows - 1) / kChunkRows;

  // One parallel region; each chunk of input vectors goes through DAC, one batched product over
  // the row tiles (oneDNN runs it on the calling thread inside the region) and the per-array
  // read noise, ADC and digital accumulation. Chunks are fixed, so the bytes do not depend on
  // the thread count.
  int64_t clipped = 0;
#pragma omp parallel for schedule(static) reduction(+ : clipped) if (chunks > 1 && batch * K * N > kParallelWork)
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const int64_t b0 = chunk * kChunkRows;
    const int64_t rows = std::min(kChunkRows, batch - b0);
    Scratch& work = scratch();
    float* v = sized(work.v, rows * Kp);
    float* scale = sized(work.scale, rows * T);
    float* norm = sized(work.norm, rows * T);
    float* part = sized(work.part, rows * N);
    float* z = sized(work.z, noisy ? rows * N : 0);
    // DAC: normalized input codes (zero padded to whole tiles), per tile its scale and the L2
    // norm of its codes. The input vectors come from the whole batch, or are produced now, a
    // block of them at a time, into a buffer small enough to stay in L2 until the DAC reads it
    // (a convolution's im2col rows: 512 rows of 576 inputs would be 1.2 MB).
    if (source == nullptr) {
      dac_rows(x + b0 * K, rows, K, T, L, Kp, p.dac_bits, v, scale, norm);
    } else {
      const int64_t block = std::max<int64_t>(1, std::min(rows, kSourceBlockFloats / K));
      float* buffer = sized(work.rows, block * K);
      for (int64_t r0 = 0; r0 < rows; r0 += block) {
        const int64_t n = std::min(block, rows - r0);
        (*source)(b0 + r0, n, buffer);
        dac_rows(buffer, n, K, T, L, Kp, p.dac_bits, v + r0 * Kp, scale + r0 * T, norm + r0 * T);
      }
    }
    // Per row tile t: its array currents part = v[:, tile t] * dG[tile t] (one 2-D product per
    // tile: oneDNN's brgemm kernels beat its batched-matmul path for these shapes), then read
    // noise, per-array ADC and the digital accumulation over the row tiles while part is still in
    // cache. The standard normals of row tile t and this chunk come from one stream (index
    // t * chunks + chunk): rows x N draws, vector b's at z + b * N (a vector with no input
    // voltage leaves its draws unused).
    for (int64_t t = 0; t < T; ++t) {
      sgemm(rows, N, L, v + t * L, Kp, dg + t * L * N, N, part, N, GemmThreads::Caller);
      if (noisy) {
        Rng rng(stream_seed(call_seed, static_cast<uint64_t>(t * chunks + chunk)));
        rng.fill_normal(z, rows * N);
      }
      clipped += adc_rows(part, noisy ? z : nullptr, rows, N, t, T, scale, norm, sigma_n,
                          tile_cols_, fixed_adc, full_scale, p.adc_bits, gamma_, y + b0 * N,
                          t == T - 1 ? epilogue : nullptr);
    }
  }
  stats.dac_conversions += batch * K * col_tiles_;
  stats.adc_conversions += batch * N * T;
  stats.adc_clipped += clipped;
}

void ProgrammedLayer::forward_reference(const float* x, int64_t batch, float* y, uint64_t call_seed,
                                        ForwardStats& stats) const {
  const int64_t K = rows_;
  const int64_t N = cols_;
  const ChipProfile& p = profile_;
  const bool noisy = p.read_noise > 0.0;
  const auto a = static_cast<float>(p.read_noise);
  const auto lo = static_cast<float>(p.g_min);
  const auto hi = static_cast<float>(p.g_max);
  const auto inv_range = static_cast<float>(1.0 / (p.g_max - p.g_min));
  const int64_t chunks = (batch + kChunkRows - 1) / kChunkRows;
  // The read conductances of this call (shared by the batch), filled by the team below; in the
  // calling thread's grow-only scratch (the team's own buffers are v, scale and z).
  float* dg_call = noisy ? sized(scratch().part, K * N) : nullptr;
  const float* dg = noisy ? dg_call : dg_.data();

#pragma omp parallel if (batch * K * N > kParallelWork)
  {
    if (noisy) {
      // One uniform draw per device in [-a, a], clamped read, per row of devices its own stream
      // (eight rows' streams generated side by side).
      constexpr int kGroup = Rng::kUniformStreams;
      const int64_t groups = (K + kGroup - 1) / kGroup;
#pragma omp for schedule(static)
      for (int64_t group = 0; group < groups; ++group) {
        const int64_t r0 = group * kGroup;
        const int count = static_cast<int>(std::min<int64_t>(kGroup, K - r0));
        uint64_t seeds[kGroup];
        for (int l = 0; l < count; ++l)
          seeds[l] = stream_seed(call_seed, static_cast<uint64_t>(r0 + l));
        float* u_rows = sized(scratch().z, kGroup * 2 * N);
        Rng::fill_uniform_streams(seeds, count, u_rows, 2 * N, -a, a);
        for (int l = 0; l < count; ++l) {
          const int64_t r = r0 + l;
          const float* u = u_rows + l * 2 * N;
          for (int64_t c = 0; c < N; ++c) {
            const auto k = static_cast<size_t>(r * N + c);
            const float gp = std::clamp(g_plus_[k] + u[2 * c], lo, hi);
            const float gm = std::clamp(g_minus_[k] + u[2 * c + 1], lo, hi);
            dg_call[k] = (gp - gm) * inv_range;
          }
        }
      }
    }
#pragma omp for schedule(static)
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      const int64_t b0 = chunk * kChunkRows;
      const int64_t rows = std::min(kChunkRows, batch - b0);
      Scratch& work = scratch();
      float* v = sized(work.v, rows * K);
      float* scale = sized(work.scale, rows);
      float* norm = sized(work.norm, rows);  // unused here (no per-vector noise)
      dac_rows(x + b0 * K, rows, K, 1, K, K, p.dac_bits, v, scale, norm);
      float* out = y + b0 * N;
      sgemm(rows, N, K, v, K, dg, N, out, N, GemmThreads::Caller);
      for (int64_t b = 0; b < rows; ++b) {
        float* row = out + b * N;
        (void)quantize_signed(row, N, max_abs(row, N), p.adc_bits);
        const auto g = static_cast<float>(gamma_ * scale[b]);
        for (int64_t c = 0; c < N; ++c) row[c] *= g;
      }
    }
  }
  stats.dac_conversions += batch * K;
  stats.adc_conversions += batch * N;
}

}  // namespace hetcim::xbar
