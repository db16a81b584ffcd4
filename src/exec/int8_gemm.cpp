#include "exec/int8_gemm.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HETCIM_INT8_AVX2 1
#define AVX2 __attribute__((target("avx2")))
#define AVX2_INLINE __attribute__((target("avx2"), always_inline)) inline
#endif

namespace hetcim::exec::int8_gemm {
namespace {

constexpr int64_t kNr = 16;  // columns per panel (two AVX2 vectors of int32 sums)
constexpr int kMr = 6;       // rows per micro-kernel call (12 accumulators + 2 B + 1 A vectors)

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Rows of widened A per block: at most ~192 kB of int16 (the block stays in L2 while every panel
// of B passes over it), a multiple of kMr, and with several threads at most a thread's share.
int64_t block_rows(int64_t m, int64_t kp, int threads) {
  int64_t mc = std::clamp<int64_t>((int64_t{192} << 10) / (kp * 2), kMr, 240) / kMr * kMr;
  if (threads > 1) mc = std::min(mc, ceil_div(ceil_div(m, threads), kMr) * kMr);
  return std::max<int64_t>(mc, kMr);
}

// ---- portable kernels -----------------------------------------------------------------------
void widen_scalar(const uint8_t* src, int64_t n, bool is_signed, int16_t* dst) {
  if (is_signed)
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<int8_t>(src[i]);
  else
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

int32_t finish(const Gemm& g, uint32_t sum, int64_t col) {
  const auto acc = static_cast<int32_t>(sum + static_cast<uint32_t>(g.offset[col]));
  const int32_t v = requantize(acc, g.scale[col], g.zy, QRange{g.lo, g.hi});
  return std::clamp(v, g.act_lo, g.act_hi);
}

void store(const Gemm& g, int32_t v, uint8_t* y) {
  *y = g.y_signed ? static_cast<uint8_t>(static_cast<int8_t>(v)) : static_cast<uint8_t>(v);
}

// rows x (up to) 16 columns of panel `panel` from widened rows a (stride kp).
void micro_scalar(const Gemm& g, int rows, const int16_t* a, const int16_t* panel, int64_t n0,
                  int cols, uint8_t* y, int64_t ldy) {
  const int64_t pairs = g.kp / 2;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      uint32_t sum = 0;  // wraps like the reference's int64 sum cast to int32
      for (int64_t p = 0; p < pairs; ++p) {
        const int16_t* b = panel + (p * kNr + c) * 2;
        const int32_t pair = a[r * g.kp + 2 * p] * b[0] + a[r * g.kp + 2 * p + 1] * b[1];
        sum += static_cast<uint32_t>(pair);
      }
      store(g, finish(g, sum, n0 + c), y + r * ldy + c);
    }
}

#if HETCIM_INT8_AVX2
// ---- AVX2 kernels ---------------------------------------------------------------------------
AVX2_INLINE void widen16(const uint8_t* src, bool is_signed, int16_t* dst) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                      is_signed ? _mm256_cvtepi8_epi16(b) : _mm256_cvtepu8_epi16(b));
}

AVX2 void widen_avx2(const uint8_t* src, int64_t n, bool is_signed, int16_t* dst) {
  if (n < 16) return widen_scalar(src, n, is_signed, dst);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) widen16(src + i, is_signed, dst + i);
  // the tail as a last, overlapping vector (a stem row: 21 = 16 + 5)
  if (i < n) widen16(src + n - 16, is_signed, dst + n - 16);
}

// 16 int32 sums of one row -> 16 output bytes: exactly quantize.h's requantize followed by the
// fused activation's std::clamp (finish()), in fewer steps:
// - round_half_even's clamp to +-2^22 is left out: a product beyond it rounds to a value of the
//   same sign and magnitude above 2^22 - 2, which saturates to the same bound (|zy| <= 255);
// - saturation and the activation's clamp are one clamp to [max(lo, act_lo), min(hi, act_hi)]
//   (equal while act_lo <= act_hi; prepare() leaves the other case to the portable kernel), and
//   max_ps(v, bound) returns the bound for a NaN, as saturate() does.
AVX2_INLINE void requantize_row(const Gemm& g, __m256i s0, __m256i s1, int64_t n0, int cols,
                                uint8_t* y) {
  const __m256 magic = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23
  const __m256 zy = _mm256_set1_ps(static_cast<float>(g.zy));
  const __m256 lo = _mm256_set1_ps(static_cast<float>(std::max(g.lo, g.act_lo)));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(std::min(g.hi, g.act_hi)));
  __m256i q[2];
  const __m256i s[2] = {s0, s1};
  for (int h = 0; h < 2; ++h) {
    const __m256i acc = _mm256_add_epi32(
        s[h], _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.offset.data() + n0 + 8 * h)));
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(g.scale.data() + n0 + 8 * h));
    v = _mm256_add_ps(_mm256_sub_ps(_mm256_add_ps(v, magic), magic), zy);
    q[h] = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(v, lo), hi));
  }
  const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xD8);
  const __m128i l = _mm256_castsi256_si128(w), u = _mm256_extracti128_si256(w, 1);
  const __m128i b = g.y_signed ? _mm_packs_epi16(l, u) : _mm_packus_epi16(l, u);
  if (cols == kNr) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y), b);
  } else {
    alignas(16) uint8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), b);
    std::memcpy(y, tmp, static_cast<size_t>(cols));
  }
}

template <int MR>
AVX2_INLINE void micro_avx2(const Gemm& g, const int16_t* a, const int16_t* panel, int64_t n0,
                            int cols, uint8_t* y, int64_t ldy) {
  __m256i c0[MR], c1[MR];
  const int32_t* ar[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    c0[r] = _mm256_setzero_si256();
    c1[r] = _mm256_setzero_si256();
    ar[r] = reinterpret_cast<const int32_t*>(a + r * g.kp);
  }
  const int64_t pairs = g.kp / 2;
  const __m256i* b = reinterpret_cast<const __m256i*>(panel);
  for (int64_t p = 0; p < pairs; ++p) {
    const __m256i b0 = _mm256_loadu_si256(b + 2 * p), b1 = _mm256_loadu_si256(b + 2 * p + 1);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m256i av = _mm256_set1_epi32(ar[r][p]);
      c0[r] = _mm256_add_epi32(c0[r], _mm256_madd_epi16(av, b0));
      c1[r] = _mm256_add_epi32(c1[r], _mm256_madd_epi16(av, b1));
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) requantize_row(g, c0[r], c1[r], n0, cols, y + r * ldy);
}

// Every panel of B over one block of widened rows a (rows x kp int16).
AVX2 void block_avx2(const Gemm& g, const int16_t* a, int64_t rows, uint8_t* y, int64_t ldy) {
  const int64_t panels = ceil_div(g.n, kNr), pairs = g.kp / 2;
  for (int64_t j = 0; j < panels; ++j) {
    const int16_t* panel = g.panels.data() + j * pairs * kNr * 2;
    const int64_t n0 = j * kNr;
    const int cols = static_cast<int>(std::min(kNr, g.n - n0));
    // Tiles of 6 rows; a remainder of 1 or 2 rows joins the last full tile as two tiles of 3-4
    // rows (a 1-row tile loads as much of B as a 6-row one for a sixth of the work).
    const int64_t rem = rows % kMr, full = rows / kMr - ((rem == 1 || rem == 2) && rows > kMr);
    int64_t i = 0;
    for (; i < full * kMr; i += kMr)
      micro_avx2<kMr>(g, a + i * g.kp, panel, n0, cols, y + i * ldy + n0, ldy);
    int64_t left = rows - i;
    const int16_t* ai = a + i * g.kp;
    uint8_t* yi = y + i * ldy + n0;
    if (left >= 7) {  // 7 or 8: 4 rows, then 3 or 4
      micro_avx2<4>(g, ai, panel, n0, cols, yi, ldy);
      ai += 4 * g.kp;
      yi += 4 * ldy;
      left -= 4;
    }
    if (left == 5) micro_avx2<5>(g, ai, panel, n0, cols, yi, ldy);
    if (left == 4) micro_avx2<4>(g, ai, panel, n0, cols, yi, ldy);
    if (left == 3) micro_avx2<3>(g, ai, panel, n0, cols, yi, ldy);
    if (left == 2) micro_avx2<2>(g, ai, panel, n0, cols, yi, ldy);
    if (left == 1) micro_avx2<1>(g, ai, panel, n0, cols, yi, ldy);
  }
}
#endif

void widen(const uint8_t* src, int64_t n, bool is_signed, int16_t* dst, bool vector) {
#if HETCIM_INT8_AVX2
  if (vector) return widen_avx2(src, n, is_signed, dst);
#endif
  (void)vector;
  widen_scalar(src, n, is_signed, dst);
}

// Every panel of B over one block of widened rows a (rows x kp int16).
void block(const Gemm& g, const int16_t* a, int64_t rows, uint8_t* y, int64_t ldy) {
#if HETCIM_INT8_AVX2
  if (g.vector) return block_avx2(g, a, rows, y, ldy);
#endif
  const int64_t panels = ceil_div(g.n, kNr), pairs = g.kp / 2;
  for (int64_t j = 0; j < panels; ++j) {
    const int16_t* panel = g.panels.data() + j * pairs * kNr * 2;
    const int64_t n0 = j * kNr;
    const int cols = static_cast<int>(std::min(kNr, g.n - n0));
    for (int64_t i = 0; i < rows; i += kMr) {
      const int mr = static_cast<int>(std::min<int64_t>(kMr, rows - i));
      micro_scalar(g, mr, a + i * g.kp, panel, n0, cols, y + i * ldy + n0, ldy);
    }
  }
}

// C = A B over M rows; rows(m, dst) writes row m of A widened to int16 (kp values, the last one
// 0 when k is odd).
template <class Rows>
void drive(const Gemm& g, int64_t m, Rows rows, uint8_t* y, int64_t ldy, int threads) {
  if (m <= 0 || g.n <= 0) return;
  const int64_t mc = block_rows(m, g.kp, threads), blocks = ceil_div(m, mc);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && blocks > 1)
  for (int64_t bi = 0; bi < blocks; ++bi) {
    thread_local std::vector<int16_t> buf;
    const int64_t m0 = bi * mc, count = std::min(mc, m - m0);
    if (buf.size() < static_cast<size_t>(count * g.kp))
      buf.resize(static_cast<size_t>(count * g.kp));
    for (int64_t r = 0; r < count; ++r) rows(m0 + r, buf.data() + r * g.kp);
    block(g, buf.data(), count, y + m0 * ldy, ldy);
  }
}

}  // namespace

bool available() {
#if HETCIM_INT8_AVX2
  static const bool yes = [] {
    const auto isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const auto avx2 = static_cast<unsigned>(dnnl_cpu_isa_avx2);
    return (isa & avx2) == avx2 && __builtin_cpu_supports("avx2");
  }();
  return yes;
#else
  return false;
#endif
}

Output make_output(std::vector<float> scale, std::vector<int32_t> bias, int32_t zy, bool is_signed,
                   const Activation& act, float sy) {
  Output o;
  o.scale = std::move(scale);
  o.bias = std::move(bias);
  o.zy = zy;
  o.is_signed = is_signed;
  const QRange r = is_signed ? QRange{-128, 127} : QRange{0, 255};
  o.act_lo = r.lo;
  o.act_hi = r.hi;
  if (act.kind == Activation::Relu) o.act_lo = zy;
  if (act.kind == Activation::Clip) {
    o.act_lo = quantize_value(act.lo, sy, zy, r);
    o.act_hi = quantize_value(act.hi, sy, zy, r);
  }
  return o;
}

Gemm prepare(const int8_t* b, int64_t k, int64_t n, int64_t stride_k, int64_t stride_n,
             bool a_signed, int32_t za, const Output& out) {
  if (k <= 0 || n <= 0 || out.scale.size() != static_cast<size_t>(n) ||
      (!out.bias.empty() && out.bias.size() != static_cast<size_t>(n)))
    throw std::logic_error("int8_gemm::prepare: inconsistent sizes");
  Gemm g;
  g.k = k;
  g.n = n;
  g.kp = k + (k & 1);
  const int64_t panels = ceil_div(n, kNr), pairs = g.kp / 2, np = panels * kNr;
  g.panels.assign(static_cast<size_t>(panels * pairs * kNr * 2), 0);
  g.offset.assign(static_cast<size_t>(np), 0);
  g.scale.assign(static_cast<size_t>(np), 0.0f);
  for (int64_t col = 0; col < n; ++col) {
    int64_t sum = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      const int8_t v = b[kk * stride_k + col * stride_n];
      sum += v;
      const int64_t j = col / kNr, c = col % kNr, p = kk / 2;
      g.panels[static_cast<size_t>(((j * pairs + p) * kNr + c) * 2 + kk % 2)] = v;
    }
    const int64_t bias = out.bias.empty() ? 0 : out.bias[static_cast<size_t>(col)];
    // bias - za * sum b, modulo 2^32 (the reference's int64 sum is cast to int32 at the end)
    g.offset[static_cast<size_t>(col)] =
        static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(bias - za * sum)));
    g.scale[static_cast<size_t>(col)] = out.scale[static_cast<size_t>(col)];
  }
  g.za = za;
  g.zy = out.zy;
  g.a_signed = a_signed;
  g.y_signed = out.is_signed;
  g.lo = out.is_signed ? -128 : 0;
  g.hi = out.is_signed ? 127 : 255;
  g.act_lo = out.act_lo;
  g.act_hi = out.act_hi;
  // (the AVX2 epilogue folds the activation's clamp into saturation, which needs act_lo <= act_hi)
  g.vector = available() && g.act_lo <= g.act_hi;
  return g;
}

void run(const Gemm& g, int64_t m, const uint8_t* a, int64_t lda, uint8_t* y, int64_t ldy,
         int threads) {
  drive(
      g, m,
      [&](int64_t row, int16_t* dst) {
        widen(a + row * lda, g.k, g.a_signed, dst, g.vector);
        if (g.kp != g.k) dst[g.k] = 0;
      },
      y, ldy, threads);
}

Conv prepare_conv(const Window2d& w, const int8_t* w8, bool x_signed, int32_t zx,
                  const Output& out) {
  Conv cv;
  cv.w = w;
  const int64_t icg = w.c / w.group, ocg = w.oc / w.group, k = w.kh * w.kw * icg;
  std::vector<int8_t> b(static_cast<size_t>(k * ocg));
  for (int64_t gi = 0; gi < w.group; ++gi) {
    // b[(kh, kw, ic)][oc]: the NHWC im2col order of a row
    for (int64_t oc = 0; oc < ocg; ++oc)
      for (int64_t ic = 0; ic < icg; ++ic)
        for (int64_t kh = 0; kh < w.kh; ++kh)
          for (int64_t kw = 0; kw < w.kw; ++kw)
            b[static_cast<size_t>(((kh * w.kw + kw) * icg + ic) * ocg + oc)] =
                w8[(((gi * ocg + oc) * icg + ic) * w.kh + kh) * w.kw + kw];
    Output o = out;
    const auto first = static_cast<std::ptrdiff_t>(gi * ocg);
    o.scale.assign(out.scale.begin() + first, out.scale.begin() + first + ocg);
    if (!out.bias.empty()) o.bias.assign(out.bias.begin() + first, out.bias.begin() + first + ocg);
    cv.groups.push_back(prepare(b.data(), k, ocg, ocg, 1, x_signed, zx, o));
  }
  return cv;
}

void run_conv(const Conv& cv, const uint8_t* x, uint8_t* y, int threads) {
  const Window2d& w = cv.w;
  const int64_t icg = w.c / w.group, ocg = w.oc / w.group;
  for (int64_t gi = 0; gi < w.group; ++gi) {
    const Gemm& g = cv.groups[static_cast<size_t>(gi)];
    const auto pad = static_cast<int16_t>(g.za);
    drive(
        g, w.n * w.oh * w.ow,
        [&](int64_t row, int16_t* dst) {
          const int64_t ow = row % w.ow, oh = (row / w.ow) % w.oh, img = row / (w.ow * w.oh);
          const int64_t iw0 = ow * w.sw - w.pl;
          for (int64_t kh = 0; kh < w.kh; ++kh) {
            const int64_t ih = oh * w.sh - w.pt + kh * w.dh;
            // A whole kernel row inside the image with groups of 1 and no dilation: kw * c
            // contiguous bytes, widened in one call (the stem's 7 x 3 instead of 7 runs of 3).
            if (w.group == 1 && w.dw == 1 && ih >= 0 && ih < w.h && iw0 >= 0 && iw0 + w.kw <= w.w) {
              widen(x + ((img * w.h + ih) * w.w + iw0) * w.c, w.kw * icg, g.a_signed, dst,
                    g.vector);
              dst += w.kw * icg;
              continue;
            }
            for (int64_t kw = 0; kw < w.kw; ++kw, dst += icg) {
              const int64_t iw = ow * w.sw - w.pl + kw * w.dw;
              if (ih < 0 || ih >= w.h || iw < 0 || iw >= w.w) {
                std::fill(dst, dst + icg, pad);  // padding reads as the zero point
                continue;
              }
              widen(x + ((img * w.h + ih) * w.w + iw) * w.c + gi * icg, icg, g.a_signed, dst,
                    g.vector);
            }
          }
          if (g.kp != g.k) *dst = 0;
        },
        y + gi * ocg, w.oc, threads);
  }
}

}  // namespace hetcim::exec::int8_gemm
