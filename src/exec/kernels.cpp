#include "exec/kernels.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__x86_64__)
// GCC 12 reports false -Wuninitialized positives inside its own AVX-512 headers at -O3
// (_mm512_undefined_* used as "don't care" operands).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#endif

#include "exec/quantize.h"

// Multi-versioned hot loops: GCC builds each for the listed targets and dispatches at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define HETCIM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HETCIM_CLONES
#endif

namespace hetcim::exec::kernels {
namespace {

constexpr int64_t kParallelMin = int64_t{1} << 15;

// The per-operator constants of qbinary_value, in one place for the scalar and vector kernels:
// add: v = a ra + (b rb + k), mul: v = (a - za)(b - zb) r + zy.
struct QBinaryCoeffs {
  float ra, rb, r, k;
};
QBinaryCoeffs qbinary_coeffs(const QBinary& p) {
  const float ra = p.sa / p.sy, rb = p.sb / p.sy;
  return {ra, rb, (p.sa * p.sb) / p.sy,
          static_cast<float>(p.zy) -
              std::fma(ra, static_cast<float>(p.za), rb * static_cast<float>(p.zb))};
}

// Scalar versions: exactly quantize.h and qbinary_value.
void qbinary_scalar(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n, const QBinary& p) {
  QBinary q = p;
  q.a_broadcast = false;
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<uint8_t>(qbinary_round(qbinary_value(a[i], b[i], q), q));
}

template <typename T>
void quantize_scalar(const float* x, T* y, int64_t n, float s, int32_t zp, QRange r) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(quantize_value(x[i], s, zp, r));
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HETCIM_AVX512 1
// AVX-512 versions. _mm512_cvtps_epi32 rounds half to even (the default MXCSR mode, which hetcim
// never changes) and the value is clamped to +-2^22 first, exactly as round_half_even does; the
// arithmetic is the same sequence of IEEE operations (fused multiply-adds exactly where the scalar
// version calls std::fma), so the results are bit-identical to the scalar versions.
__attribute__((target("avx512f,avx512bw"))) void qbinary_avx512(const uint8_t* a, const uint8_t* b,
                                                                uint8_t* y, int64_t n,
                                                                const QBinary& p) {
  const auto [ra, rb, r, k] = qbinary_coeffs(p);
  const __m512 vra = _mm512_set1_ps(ra), vrb = _mm512_set1_ps(rb), vr = _mm512_set1_ps(r);
  const __m512 vk = _mm512_set1_ps(k), fzy = _mm512_set1_ps(static_cast<float>(p.zy));
  const __m512i za = _mm512_set1_epi32(p.za), zb = _mm512_set1_epi32(p.zb);
  const __m512i lo = _mm512_set1_epi32(p.lo), hi = _mm512_set1_epi32(p.hi);
  const __m512 big = _mm512_set1_ps(4194304.0f), nbig = _mm512_set1_ps(-4194304.0f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i ai =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m512i bi =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    __m512 v;
    if (p.mul) {
      const __m512i prod = _mm512_mullo_epi32(_mm512_sub_epi32(ai, za), _mm512_sub_epi32(bi, zb));
      v = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(prod), vr), fzy);
    } else {
      v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(ai), vra,
                          _mm512_fmadd_ps(_mm512_cvtepi32_ps(bi), vrb, vk));
    }
    v = _mm512_min_ps(_mm512_max_ps(v, nbig), big);
    __m512i q = _mm512_cvtps_epi32(v);
    q = _mm512_min_epi32(_mm512_max_epi32(q, lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(q));
  }
  qbinary_scalar(a + i, b + i, y + i, n - i, p);
}

__attribute__((target("avx512f,avx512bw"))) void quantize_avx512(const float* x, void* y, bool s8,
                                                                 int64_t n, float s, int32_t zp) {
  const __m512 sv = _mm512_set1_ps(s);
  const __m512 big = _mm512_set1_ps(4194304.0f), nbig = _mm512_set1_ps(-4194304.0f);
  const __m512i z = _mm512_set1_epi32(zp);
  const __m512i lo = _mm512_set1_epi32(s8 ? -128 : 0), hi = _mm512_set1_epi32(s8 ? 127 : 255);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 xv = _mm512_loadu_ps(x + i);
    const __mmask16 nan = _mm512_cmp_ps_mask(xv, xv, _CMP_UNORD_Q);
    __m512 v = _mm512_div_ps(_mm512_mask_blend_ps(nan, xv, _mm512_setzero_ps()), sv);
    v = _mm512_min_ps(_mm512_max_ps(v, nbig), big);
    __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), z);
    q = _mm512_min_epi32(_mm512_max_epi32(q, lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(y) + i),
                     _mm512_cvtepi32_epi8(q));
  }
  if (s8)
    quantize_scalar(x + i, static_cast<int8_t*>(y) + i, n - i, s, zp, {-128, 127});
  else
    quantize_scalar(x + i, static_cast<uint8_t*>(y) + i, n - i, s, zp, {0, 255});
}

// The two kernels above on 8 lanes with AVX2 + FMA: the same IEEE operations in the same order
// (so the same bytes as the AVX-512 and scalar versions), the int32 results narrowed by saturating
// packs, which change nothing once they are clamped to the output type's range.
__attribute__((target("avx2,fma"))) void qbinary_avx2(const uint8_t* a, const uint8_t* b,
                                                      uint8_t* y, int64_t n, const QBinary& p) {
  const auto [ra, rb, r, k] = qbinary_coeffs(p);
  const __m256 vra = _mm256_set1_ps(ra), vrb = _mm256_set1_ps(rb), vr = _mm256_set1_ps(r);
  const __m256 vk = _mm256_set1_ps(k), fzy = _mm256_set1_ps(static_cast<float>(p.zy));
  const __m256i za = _mm256_set1_epi32(p.za), zb = _mm256_set1_epi32(p.zb);
  const __m256i lo = _mm256_set1_epi32(p.lo), hi = _mm256_set1_epi32(p.hi);
  const __m256 big = _mm256_set1_ps(4194304.0f), nbig = _mm256_set1_ps(-4194304.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i ai =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i)));
    const __m256i bi =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + i)));
    __m256 v;
    if (p.mul) {
      const __m256i prod = _mm256_mullo_epi32(_mm256_sub_epi32(ai, za), _mm256_sub_epi32(bi, zb));
      v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(prod), vr), fzy);
    } else {
      v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(ai), vra,
                          _mm256_fmadd_ps(_mm256_cvtepi32_ps(bi), vrb, vk));
    }
    v = _mm256_min_ps(_mm256_max_ps(v, nbig), big);
    __m256i q = _mm256_cvtps_epi32(v);
    q = _mm256_min_epi32(_mm256_max_epi32(q, lo), hi);
    const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y + i), _mm_packus_epi16(w, w));
  }
  qbinary_scalar(a + i, b + i, y + i, n - i, p);
}

__attribute__((target("avx2,fma"))) void quantize_avx2(const float* x, void* y, bool s8, int64_t n,
                                                       float s, int32_t zp) {
  const __m256 sv = _mm256_set1_ps(s);
  const __m256 big = _mm256_set1_ps(4194304.0f), nbig = _mm256_set1_ps(-4194304.0f);
  const __m256i z = _mm256_set1_epi32(zp);
  const __m256i lo = _mm256_set1_epi32(s8 ? -128 : 0), hi = _mm256_set1_epi32(s8 ? 127 : 255);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 xv = _mm256_loadu_ps(x + i);
    const __m256 nan = _mm256_cmp_ps(xv, xv, _CMP_UNORD_Q);
    __m256 v = _mm256_div_ps(_mm256_blendv_ps(xv, _mm256_setzero_ps(), nan), sv);
    v = _mm256_min_ps(_mm256_max_ps(v, nbig), big);
    __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), z);
    q = _mm256_min_epi32(_mm256_max_epi32(q, lo), hi);
    const __m128i q0 = _mm256_castsi256_si128(q), q1 = _mm256_extracti128_si256(q, 1);
    const __m128i w = _mm_packs_epi32(q0, q1);  // within int16: exact
    const __m128i bytes = s8 ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(y) + i), bytes);
  }
  if (s8)
    quantize_scalar(x + i, static_cast<int8_t*>(y) + i, n - i, s, zp, {-128, 127});
  else
    quantize_scalar(x + i, static_cast<uint8_t*>(y) + i, n - i, s, zp, {0, 255});
}

// times_x: y = x * sigmoid(x) (SiLU), the product of x and the float sigmoid, as a separate Mul
// computes it.
__attribute__((target("avx512f"))) void sigmoid_avx512(const float* x, float* y, int64_t n,
                                                       bool times_x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 lo = _mm512_set1_ps(-88.0f), hi = _mm512_set1_ps(88.0f);
  const __m512 log2e = _mm512_set1_ps(1.44269504088896341f);
  const __m512 ln2hi = _mm512_set1_ps(0.693359375f), ln2lo = _mm512_set1_ps(-2.12194440e-4f);
  const __m512 p0 = _mm512_set1_ps(1.9875691500e-4f), p1 = _mm512_set1_ps(1.3981999507e-3f);
  const __m512 p2 = _mm512_set1_ps(8.3334519073e-3f), p3 = _mm512_set1_ps(4.1665795894e-2f);
  const __m512 p4 = _mm512_set1_ps(1.6666665459e-1f), p5 = _mm512_set1_ps(5.0000001201e-1f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    // e = exp(-x): -x = k ln2 + r, |r| <= ln2 / 2, exp(r) = 1 + r + r^2 P(r), e = exp(r) 2^k.
    const __m512 v = _mm512_min_ps(
        _mm512_max_ps(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_loadu_ps(x + i)), lo), hi);
    const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(v, log2e),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, ln2hi, v);
    r = _mm512_fnmadd_ps(k, ln2lo, r);
    __m512 p = _mm512_fmadd_ps(p0, r, p1);
    p = _mm512_fmadd_ps(p, r, p2);
    p = _mm512_fmadd_ps(p, r, p3);
    p = _mm512_fmadd_ps(p, r, p4);
    p = _mm512_fmadd_ps(p, r, p5);
    const __m512 r2 = _mm512_mul_ps(r, r);
    const __m512 er = _mm512_add_ps(_mm512_fmadd_ps(p, r2, r), one);
    const __m512 e = _mm512_scalef_ps(er, k);
    const __m512 sig = _mm512_div_ps(one, _mm512_add_ps(one, e));
    _mm512_storeu_ps(y + i, times_x ? _mm512_mul_ps(_mm512_loadu_ps(x + i), sig) : sig);
  }
  for (; i < n; ++i) {
    const float sig = 1.0f / (1.0f + std::exp(-x[i]));
    y[i] = times_x ? x[i] * sig : sig;
  }
}

// The AVX-512 kernel's arithmetic on 8 lanes (AVX2 + FMA: the same IEEE operations in the same
// order, so the same bytes per element; 2^k as two exact power-of-two products, which round as
// _mm512_scalef_ps does where e is subnormal). A scalar tail of n % 8 elements.
__attribute__((target("avx2,fma"))) void sigmoid_avx2(const float* x, float* y, int64_t n,
                                                      bool times_x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 lo = _mm256_set1_ps(-88.0f), hi = _mm256_set1_ps(88.0f);
  const __m256 log2e = _mm256_set1_ps(1.44269504088896341f);
  const __m256 ln2hi = _mm256_set1_ps(0.693359375f), ln2lo = _mm256_set1_ps(-2.12194440e-4f);
  const __m256 p0 = _mm256_set1_ps(1.9875691500e-4f), p1 = _mm256_set1_ps(1.3981999507e-3f);
  const __m256 p2 = _mm256_set1_ps(8.3334519073e-3f), p3 = _mm256_set1_ps(4.1665795894e-2f);
  const __m256 p4 = _mm256_set1_ps(1.6666665459e-1f), p5 = _mm256_set1_ps(5.0000001201e-1f);
  const __m256i bias = _mm256_set1_epi32(127);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_min_ps(
        _mm256_max_ps(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_loadu_ps(x + i)), lo), hi);
    const __m256 k =
        _mm256_round_ps(_mm256_mul_ps(v, log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(k, ln2hi, v);
    r = _mm256_fnmadd_ps(k, ln2lo, r);
    __m256 p = _mm256_fmadd_ps(p0, r, p1);
    p = _mm256_fmadd_ps(p, r, p2);
    p = _mm256_fmadd_ps(p, r, p3);
    p = _mm256_fmadd_ps(p, r, p4);
    p = _mm256_fmadd_ps(p, r, p5);
    const __m256 r2 = _mm256_mul_ps(r, r);
    const __m256 er = _mm256_add_ps(_mm256_fmadd_ps(p, r2, r), one);
    // k in [-127, 127]: 2^k = 2^k1 2^k2 with k1 = floor(k / 2), both factors normal floats.
    const __m256i ki = _mm256_cvtps_epi32(k);
    const __m256i k1 = _mm256_srai_epi32(ki, 1), k2 = _mm256_sub_epi32(ki, k1);
    const __m256 f1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
    const __m256 f2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, bias), 23));
    const __m256 e = _mm256_mul_ps(_mm256_mul_ps(er, f1), f2);
    const __m256 sig = _mm256_div_ps(one, _mm256_add_ps(one, e));
    _mm256_storeu_ps(y + i, times_x ? _mm256_mul_ps(_mm256_loadu_ps(x + i), sig) : sig);
  }
  for (; i < n; ++i) {
    const float sig = 1.0f / (1.0f + std::exp(-x[i]));
    y[i] = times_x ? x[i] * sig : sig;
  }
}

// 256-entry byte tables over `rows` runs of `len` bytes (table_u8 is one row, copy_rows_u8 many):
// AVX-512 VBMI: two 128-byte permutes and a blend on bit 7, a masked load and store for each
// row's last bytes.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void table_rows_avx512(
    int64_t rows, int64_t len, const uint8_t* src, int64_t ss, uint8_t* dst, int64_t ds,
    const uint8_t* table) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  for (int64_t r = 0; r < rows; ++r, src += ss, dst += ds)
    for (int64_t i = 0; i < len; i += 64) {
      const __mmask64 m = len - i >= 64 ? ~__mmask64{0} : (__mmask64{1} << (len - i)) - 1;
      const __m512i idx = _mm512_maskz_loadu_epi8(m, src + i);
      const __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1);
      const __m512i hi = _mm512_permutex2var_epi8(t2, idx, t3);
      _mm512_mask_storeu_epi8(dst + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi));
    }
}

// AVX2: the bytes widened to a 256-entry int32 table once per call, then 8 entries per gather
// (a scalar lookup per byte took 20 of YOLOv5n int8's 106 ms on Zen 3); a row's last bytes one by
// one.
__attribute__((target("avx2"))) void table_rows_avx2(int64_t rows, int64_t len, const uint8_t* src,
                                                     int64_t ss, uint8_t* dst, int64_t ds,
                                                     const uint8_t* table) {
  alignas(32) int32_t wide[256];
  for (int i = 0; i < 256; ++i) wide[i] = table[i];
  for (int64_t r = 0; r < rows; ++r, src += ss, dst += ds) {
    int64_t i = 0;
    for (; i + 8 <= len; i += 8) {
      const __m256i idx =
          _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i)));
      const __m256i v = _mm256_i32gather_epi32(wide, idx, 4);  // each within [0, 255]
      const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + i), _mm_packus_epi16(w, w));
    }
    for (; i < len; ++i) dst[i] = table[src[i]];
  }
}

// The widest vector kernels allowed: oneDNN's effective ISA (the CPU's, no wider than its cap
// DNNL_MAX_CPU_ISA) holds for hetcim's own kernels too, so that a run capped at AVX2 on an AVX-512
// CPU runs an AVX2 CPU's code throughout (the AVX2-capped tests and benchmarks). 3: AVX-512,
// 2: AVX2, 1: neither.
int isa_cap() {
  static const int cap = [] {
    const auto isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const auto has = [isa](dnnl_cpu_isa_t want) {
      return (isa & static_cast<unsigned>(want)) == static_cast<unsigned>(want);
    };
    return has(dnnl_cpu_isa_avx512_core) ? 3 : has(dnnl_cpu_isa_avx2) ? 2 : 1;
  }();
  return cap;
}

bool has_avx2_fma() {
  static const bool yes =
      isa_cap() >= 2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

bool has_vbmi() {
  static const bool yes =
      isa_cap() >= 3 && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  return yes;
}

bool has_avx512() {
  static const bool yes =
      isa_cap() >= 3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return yes;
}
#endif
#if defined(__x86_64__)
#pragma GCC diagnostic pop
#endif

void qbinary_block(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n, const QBinary& p) {
#ifdef HETCIM_AVX512
  if (has_avx512()) return qbinary_avx512(a, b, y, n, p);
  if (has_avx2_fma()) return qbinary_avx2(a, b, y, n, p);
#endif
  qbinary_scalar(a, b, y, n, p);
}

void quantize_block(const float* x, void* y, bool s8, int64_t n, float s, int32_t zp) {
#ifdef HETCIM_AVX512
  if (has_avx512()) return quantize_avx512(x, y, s8, n, s, zp);
  if (has_avx2_fma()) return quantize_avx2(x, y, s8, n, s, zp);
#endif
  if (s8)
    quantize_scalar(x, static_cast<int8_t*>(y), n, s, zp, {-128, 127});
  else
    quantize_scalar(x, static_cast<uint8_t*>(y), n, s, zp, {0, 255});
}

HETCIM_CLONES void dequantize_block_u8(const uint8_t* x, float* y, int64_t n, float s, int32_t zp) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zp) * s;
}

HETCIM_CLONES void dequantize_block_s8(const int8_t* x, float* y, int64_t n, float s, int32_t zp) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zp) * s;
}

HETCIM_CLONES void hardsigmoid_block(const float* x, float* y, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = alpha * x[i] + beta;
    y[i] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
  }
}

HETCIM_CLONES void affine_rows(const float* x, float* y, int64_t rows, int64_t c, const float* a,
                               const float* b, bool relu) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < c; ++k) {
      const float v = x[r * c + k] * a[k] + b[k];
      y[r * c + k] = relu ? (v > 0.0f ? v : 0.0f) : v;
    }
}

HETCIM_CLONES void affine_plane(const float* x, float* y, int64_t hw, float a, float b, bool relu) {
  for (int64_t i = 0; i < hw; ++i) {
    const float v = x[i] * a + b;
    y[i] = relu ? (v > 0.0f ? v : 0.0f) : v;
  }
}

HETCIM_CLONES void sum_rows_u8(const uint8_t* x, int64_t rows, int64_t c, int32_t* acc) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < c; ++k) acc[k] += x[r * c + k];
}

// Splits [0, n) into blocks and runs f(begin, count) on each, in parallel when n is large.
template <typename F>
void blocks(int64_t n, F f) {
  if (n < kParallelMin) {
    f(int64_t{0}, n);
    return;
  }
  constexpr int64_t kBlock = 16384;
  const int64_t nb = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t begin = b * kBlock;
    f(begin, std::min(kBlock, n - begin));
  }
}

}  // namespace

void qbinary_u8(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n, const QBinary& p) {
  blocks(n, [&](int64_t s, int64_t c) { qbinary_block(a + s, b + s, y + s, c, p); });
}

float qbinary_value(int32_t a, int32_t b, const QBinary& p) {
  const auto [ra, rb, r, k] = qbinary_coeffs(p);
  if (p.mul) return static_cast<float>((a - p.za) * (b - p.zb)) * r + static_cast<float>(p.zy);
  const float fa = static_cast<float>(a), fb = static_cast<float>(b);
  return p.a_broadcast ? std::fma(fb, rb, std::fma(fa, ra, k))
                       : std::fma(fa, ra, std::fma(fb, rb, k));
}

int32_t qbinary_round(float v, const QBinary& p) {
  return saturate(round_half_even(v), p.lo, p.hi);
}

void qbinary_u8_scalar(const uint8_t* x, uint8_t s, uint8_t* y, int64_t n, const QBinary& p) {
  // A 256-entry table is exact here: the result depends on x[i] only.
  uint8_t table[256];
  for (int i = 0; i < 256; ++i)
    table[i] = static_cast<uint8_t>(
        qbinary_round(p.a_broadcast ? qbinary_value(s, i, p) : qbinary_value(i, s, p), p));
  table_u8(x, y, n, table);
}

void sigmoid_f32(const float* x, float* y, int64_t n) {
  blocks(n, [&](int64_t s, int64_t c) {
#ifdef HETCIM_AVX512
    if (has_avx512()) return sigmoid_avx512(x + s, y + s, c, false);
    if (has_avx2_fma()) return sigmoid_avx2(x + s, y + s, c, false);
#endif
    for (int64_t i = s; i < s + c; ++i) y[i] = 1.0f / (1.0f + std::exp(-x[i]));
  });
}

void silu_f32(const float* x, float* y, int64_t n) {
  blocks(n, [&](int64_t s, int64_t c) {
#ifdef HETCIM_AVX512
    if (has_avx512()) return sigmoid_avx512(x + s, y + s, c, true);
    if (has_avx2_fma()) return sigmoid_avx2(x + s, y + s, c, true);
#endif
    for (int64_t i = s; i < s + c; ++i) {
      const float sig = 1.0f / (1.0f + std::exp(-x[i]));
      y[i] = x[i] * sig;
    }
  });
}

void hardsigmoid_f32(const float* x, float* y, int64_t n, float alpha, float beta) {
  blocks(n, [&](int64_t s, int64_t c) { hardsigmoid_block(x + s, y + s, c, alpha, beta); });
}

void channel_affine_f32(const float* x, float* y, bool channels_last, int64_t n, int64_t c,
                        int64_t hw, const float* a, const float* b, bool relu) {
  if (channels_last) return affine_rows(x, y, n * hw, c, a, b, relu);
  for (int64_t p = 0; p < n * c; ++p)
    affine_plane(x + p * hw, y + p * hw, hw, a[p % c], b[p % c], relu);
}

void table_u8(const uint8_t* x, uint8_t* y, int64_t n, const uint8_t* table) {
  blocks(n, [&](int64_t s, int64_t c) {
#ifdef HETCIM_AVX512
    if (has_vbmi()) return table_rows_avx512(1, c, x + s, c, y + s, c, table);
    if (c >= 256 && has_avx2_fma()) return table_rows_avx2(1, c, x + s, c, y + s, c, table);
#endif
    for (int64_t i = s; i < s + c; ++i) y[i] = table[x[i]];
  });
}

void copy_rows_u8(int64_t rows, int64_t len, const uint8_t* src, int64_t src_stride, uint8_t* dst,
                  int64_t dst_stride, const uint8_t* table) {
  if (rows <= 0 || len <= 0) return;
  const auto some = [&](int64_t r0, int64_t n) {
    const uint8_t* s = src + r0 * src_stride;
    uint8_t* d = dst + r0 * dst_stride;
#ifdef HETCIM_AVX512
    if (table && has_vbmi()) return table_rows_avx512(n, len, s, src_stride, d, dst_stride, table);
    if (table && has_avx2_fma())
      return table_rows_avx2(n, len, s, src_stride, d, dst_stride, table);
#endif
    for (int64_t r = 0; r < n; ++r, s += src_stride, d += dst_stride) {
      if (!table) {
        std::memcpy(d, s, static_cast<size_t>(len));
        continue;
      }
      for (int64_t i = 0; i < len; ++i) d[i] = table[s[i]];
    }
  };
  // Inside any parallel region (for_each_rows' outer loop, active or not) the rows stay on this
  // thread: a nested region would start new threads on every call.
  if (rows == 1 || rows * len < kParallelMin || omp_get_level() != 0) return some(0, rows);
  const int64_t chunks = std::min<int64_t>(rows, 64);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = rows * c / chunks, end = rows * (c + 1) / chunks;
    some(begin, end - begin);
  }
}

void flip_sign_bits(const uint8_t* x, uint8_t* y, size_t n) {
  blocks(static_cast<int64_t>(n), [&](int64_t s, int64_t c) {
    for (int64_t i = s; i < s + c; ++i) y[i] = static_cast<uint8_t>(x[i] ^ 0x80u);
  });
}

void int8_halves(const int8_t* w, int8_t* lo, int8_t* hi, size_t n) {
  blocks(static_cast<int64_t>(n), [&](int64_t s, int64_t c) {
    for (int64_t i = s; i < s + c; ++i) {
      const int v = w[i];
      const int l = v >= 0 ? v / 2 : -((1 - v) / 2);  // floor(v / 2)
      lo[i] = static_cast<int8_t>(l);
      hi[i] = static_cast<int8_t>(v - l);
    }
  });
}

void quantize_f32(const float* x, void* y, bool int8_out, int64_t n, float scale, int32_t zp) {
  blocks(n, [&](int64_t s, int64_t c) {
    quantize_block(x + s, static_cast<uint8_t*>(y) + s, int8_out, c, scale, zp);
  });
}

void dequantize_x8(const void* x, bool int8_in, float* y, int64_t n, float scale, int32_t zp) {
  blocks(n, [&](int64_t s, int64_t c) {
    if (int8_in)
      dequantize_block_s8(static_cast<const int8_t*>(x) + s, y + s, c, scale, zp);
    else
      dequantize_block_u8(static_cast<const uint8_t*>(x) + s, y + s, c, scale, zp);
  });
}

void channel_sums_u8(const uint8_t* x, bool channels_last, int64_t n, int64_t c, int64_t hw,
                     int32_t zp, int32_t* acc) {
  std::fill(acc, acc + n * c, 0);
  if (channels_last) {
    for (int64_t b = 0; b < n; ++b) sum_rows_u8(x + b * hw * c, hw, c, acc + b * c);
  } else {
#pragma omp parallel for schedule(static) if (n * c * hw >= kParallelMin)
    for (int64_t k = 0; k < n * c; ++k) {
      int32_t s = 0;
      const uint8_t* p = x + k * hw;
      for (int64_t i = 0; i < hw; ++i) s += p[i];
      acc[k] = s;
    }
  }
  const int32_t off = zp * static_cast<int32_t>(hw);
  for (int64_t k = 0; k < n * c; ++k) acc[k] -= off;
}

void strided_copy(const std::vector<int64_t>& shape, const uint8_t* src,
                  const std::vector<int64_t>& src_strides, uint8_t* dst,
                  const std::vector<int64_t>& dst_strides, size_t es) {
  const auto e = static_cast<int64_t>(es);
  for_each_rows(
      shape, {dst_strides, src_strides},
      [&](int64_t rows, int64_t len, const int64_t* off, const int64_t* st, const int64_t* row) {
        if (st[0] == 1 && st[1] == 1)  // contiguous runs: rows of len * es bytes
          return copy_rows_u8(rows, len * e, src + off[1] * e, row[1] * e, dst + off[0] * e,
                              row[0] * e, nullptr);
        const int64_t ds = st[0] * e, ss = st[1] * e;
        for (int64_t r = 0; r < rows; ++r) {
          uint8_t* d = dst + (off[0] + r * row[0]) * e;
          const uint8_t* s = src + (off[1] + r * row[1]) * e;
          if (es == 1) {
            for (int64_t i = 0; i < len; ++i) d[i * ds] = s[i * ss];
          } else if (es == 4) {
            for (int64_t i = 0; i < len; ++i) std::memcpy(d + i * ds, s + i * ss, 4);
          } else {
            for (int64_t i = 0; i < len; ++i) std::memcpy(d + i * ds, s + i * ss, es);
          }
        }
      });
}

}  // namespace hetcim::exec::kernels
