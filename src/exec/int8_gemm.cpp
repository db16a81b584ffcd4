#include "exec/int8_gemm.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

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
constexpr int kLowBits = 7;  // the split kernel's lo = a & 127 (a pair sum fits: 2 * 127 * 128)

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Rows of A per block: a multiple of kMr, and with several threads at most a thread's share.
// Every block streams all of B, so where B is larger than all of A (ResNet's 7x7 layers: B 4.7 MB
// of int16, A 49 rows) one block takes every row (B then streams once: 0.88-0.91x the time of
// 3 blocks of 18 rows in an interleaved microbenchmark, K = 4608, N = 512); else at most ~192 kB
// of widened rows, so that the block stays in L2 while the panels of B pass over it.
int64_t block_rows(int64_t m, int64_t kp, int64_t n, int threads) {
  const int64_t a_bytes = m * kp * 2, b_bytes = kp * ceil_div(n, 16) * 16 * 2;
  int64_t mc = b_bytes >= a_bytes
                   ? ceil_div(m, kMr) * kMr
                   : std::clamp<int64_t>((int64_t{192} << 10) / (kp * 2), kMr, 240) / kMr * kMr;
  if (threads > 1) mc = std::min(mc, ceil_div(ceil_div(m, threads), kMr) * kMr);
  return std::max<int64_t>(mc, kMr);
}

// One block of A as the kernels read it. bytes: rows x kq u8 (the k..kq tail zero). Split kernel:
// bytes hold lo (a & 127), and high[first[r] .. first[r + 1]) the k where row r's a >= 128.
// Wide kernel: wide holds rows x kp int16.
struct Scratch {
  std::vector<uint8_t> bytes;  // (+ 32 bytes of slack: list_bits reads a row in 32-byte vectors)
  std::vector<int32_t> high;
  std::vector<int32_t> corr;          // rows x np: offset + the hi term, for rows with a list
  std::vector<const int32_t*> start;  // per row: its corr row, or g.offset (no a >= 128)
  std::vector<int64_t> first;
  std::vector<int16_t> wide;
};

// ---- portable kernels -----------------------------------------------------------------------
void widen_scalar(const uint8_t* src, int64_t n, int16_t* dst) {
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

// How a block's rows split into micro-kernel tiles: `full` tiles of kMr rows, then up to two
// smaller ones (rows tail[0], tail[1]; 0: none). A remainder of 1 or 2 rows joins the last full
// tile as two tiles of 3-4 rows (a 1-row tile loads as much of B as a 6-row one for a sixth of
// the work).
struct Tiles {
  int64_t full = 0;
  int tail[2] = {0, 0};
};
Tiles tiles_of(int64_t rows) {
  Tiles t;
  const int64_t rem = rows % kMr;
  t.full = rows / kMr - ((rem == 1 || rem == 2) && rows > kMr);
  int64_t left = rows - t.full * kMr;
  if (left >= 7) {  // 7 or 8: 4 rows, then 3 or 4
    t.tail[0] = 4;
    left -= 4;
  }
  t.tail[t.tail[0] != 0] = static_cast<int>(left);
  return t;
}

#if HETCIM_INT8_AVX2
// ---- AVX2 kernels ---------------------------------------------------------------------------
AVX2_INLINE void widen16(const uint8_t* src, int16_t* dst) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_cvtepu8_epi16(b));
}

AVX2 void widen_avx2(const uint8_t* src, int64_t n, int16_t* dst) {
  if (n < 16) return widen_scalar(src, n, dst);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) widen16(src + i, dst + i);
  if (i < n) widen16(src + n - 16, dst + n - 16);  // the tail as a last, overlapping vector
}

// 16 int32 sums of one row (offset included) -> 16 output bytes: exactly quantize.h's requantize
// followed by the fused activation's std::clamp (finish()), in fewer steps:
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
    __m256 v =
        _mm256_mul_ps(_mm256_cvtepi32_ps(s[h]), _mm256_loadu_ps(g.scale.data() + n0 + 8 * h));
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

AVX2_INLINE __m256i load8(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// Wide kernel: MR rows x 16 columns of panel (pairs of k as int16) from widened rows a.
template <int MR>
AVX2_INLINE void micro_wide(const Gemm& g, const int16_t* a, const int16_t* panel, int64_t n0,
                            int cols, uint8_t* y, int64_t ldy) {
  __m256i c0[MR], c1[MR];
  const int32_t* ar[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    c0[r] = load8(g.offset.data() + n0);
    c1[r] = load8(g.offset.data() + n0 + 8);
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

// corr[n0 .. n0 + 8 V) of one row: offset + 128 * (sum over the row's listed k of b[k][n]).
// The listed rows of B are read 8 V columns at a time, the sums kept in registers; after the
// first chunk those rows are in L1 (a chunk per panel instead read each row's 16 bytes from a
// B too large for L2: 25 % of the kernel's time at 2 % of a >= 128 on K = 4608).
template <int V>
AVX2_INLINE void high_chunk(const Gemm& g, const int32_t* k, const int32_t* end, int64_t n0,
                            int32_t* corr) {
  const int64_t np = ceil_div(g.n, kNr) * kNr;
  __m256i sum[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) sum[v] = _mm256_setzero_si256();
  for (; k < end; ++k) {
    const int8_t* w = g.rows.data() + int64_t{*k} * np + n0;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      sum[v] = _mm256_add_epi32(
          sum[v],
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w + 8 * v))));
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    // modulo 2^32 like every other sum here: (s << 7) is 128 s
    const __m256i t =
        _mm256_add_epi32(load8(g.offset.data() + n0 + 8 * v), _mm256_slli_epi32(sum[v], kLowBits));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(corr + n0 + 8 * v), t);
  }
}

// s.start[r] for every row of the block: g.offset, or its corr row with the hi term.
AVX2_INLINE void high_terms(const Gemm& g, Scratch& s, int64_t rows) {
  const int64_t np = ceil_div(g.n, kNr) * kNr;
  if (s.corr.size() < static_cast<size_t>(rows * np)) s.corr.resize(static_cast<size_t>(rows * np));
  s.start.resize(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* k = s.high.data() + s.first[static_cast<size_t>(r)];
    const int32_t* end = s.high.data() + s.first[static_cast<size_t>(r + 1)];
    if (k == end) {
      s.start[static_cast<size_t>(r)] = g.offset.data();
      continue;
    }
    int32_t* corr = s.corr.data() + r * np;
    int64_t n0 = 0;
    for (; n0 + 32 <= np; n0 += 32) high_chunk<4>(g, k, end, n0, corr);
    if (n0 < np) high_chunk<2>(g, k, end, n0, corr);  // np is a multiple of 16
    s.start[static_cast<size_t>(r)] = corr;
  }
}

// Split kernel: MR rows (from row r0 of the block) x 16 columns of panel j.
template <int MR>
AVX2_INLINE void micro_split(const Gemm& g, const Scratch& s, int64_t r0, int64_t j, int cols,
                             uint8_t* y, int64_t ldy) {
  const int64_t n0 = j * kNr, quads = g.kq / 4;
  __m256i c0[MR], c1[MR];
  const uint8_t* ar[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    c0[r] = load8(s.start[static_cast<size_t>(r0 + r)] + n0);
    c1[r] = load8(s.start[static_cast<size_t>(r0 + r)] + n0 + 8);
    ar[r] = s.bytes.data() + (r0 + r) * g.kq;
  }
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i* b = reinterpret_cast<const __m256i*>(g.quads.data() + j * quads * kNr * 4);
  for (int64_t q = 0; q < quads; ++q, b += 2) {
    // b[0], b[1]: quad q, columns 0-7 and 8-15
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      // 12 sums, the ones, a broadcast and a product fill 15 of the 16 registers: B is read from
      // memory by every row (L1 hits), which the empty asm keeps the compiler from hoisting into
      // registers (it would then spill sums)
      const __m256i* br = b;
      asm("" : "+r"(br));
      int32_t x;
      std::memcpy(&x, ar[r] + 4 * q, 4);
      const __m256i a = _mm256_set1_epi32(x);
      // u8 x s8 pairs of lo bytes into int16: |lo b + lo' b'| <= 2 * 127 * 128 = 32512
      const __m256i t0 = _mm256_maddubs_epi16(a, _mm256_loadu_si256(br));
      c0[r] = _mm256_add_epi32(c0[r], _mm256_madd_epi16(t0, ones));
      const __m256i t1 = _mm256_maddubs_epi16(a, _mm256_loadu_si256(br + 1));
      c1[r] = _mm256_add_epi32(c1[r], _mm256_madd_epi16(t1, ones));
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) requantize_row(g, c0[r], c1[r], n0, cols, y + r * ldy);
}

// The positions of the set bits of every byte value, padded to 8 (kBitPositions[m][i], i <
// popcount(m)).
struct BitPositions {
  uint8_t at[256][8] = {};
  constexpr BitPositions() {
    for (int m = 0; m < 256; ++m)
      for (int b = 0, i = 0; b < 8; ++b)
        if (m >> b & 1) at[m][i++] = static_cast<uint8_t>(b);
  }
};
constexpr BitPositions kBitPositions;

// Writes k0 + the positions of the set bits of the 32-bit mask m at out (8 int32 per byte of m
// are stored, the pointer advances by the bits' count: no branch per bit, whose count is random).
AVX2_INLINE int32_t* push_bits(uint32_t m, int64_t k0, int32_t* out) {
  for (int byte = 0; byte < 4; ++byte, m >>= 8) {
    const uint32_t b = m & 0xFF;
    const __m128i pos = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kBitPositions.at[b]));
    const __m256i k = _mm256_add_epi32(_mm256_cvtepu8_epi32(pos),
                                       _mm256_set1_epi32(static_cast<int32_t>(k0 + 8 * byte)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), k);
    out += __builtin_popcount(b);
  }
  return out;
}

// Writes the k < kq where row[k] >= 128 at out (room for kq + 32 values); returns the end.
AVX2_INLINE int32_t* list_high(const uint8_t* row, int64_t kq, int32_t* out) {
  for (int64_t k = 0; k < kq; k += 32) {
    // (a tail of 4-28 bytes is read as a 32-byte vector with the rest masked off: bytes past kq
    // of this row belong to the next row or the buffer's slack)
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + k));
    const uint32_t valid = kq - k >= 32 ? ~0u : (1u << (kq - k)) - 1;
    const uint32_t m = static_cast<uint32_t>(_mm256_movemask_epi8(v)) & valid;  // top bits
    out = push_bits(m, k, out);  // (no test for m == 0: at 1-6 % of a >= 128 it mispredicts)
  }
  return out;
}

// Prepares a gathered block for the split kernel: lists its bytes >= 128 and keeps lo (a & 127)
// in the bytes. False (bytes untouched) as soon as the list passes g.split_limit of rows x k.
AVX2 bool split_block(const Gemm& g, Scratch& s, int64_t rows) {
  const auto limit = static_cast<int64_t>(static_cast<double>(g.split_limit) * rows * g.k);
  if (limit < 0) return false;
  // room for the limit plus one row's worst case
  const int64_t room = std::min(limit, rows * g.kq) + g.kq + 32;
  if (s.high.size() < static_cast<size_t>(room)) s.high.resize(static_cast<size_t>(room));
  s.first.resize(static_cast<size_t>(rows + 1));
  s.first[0] = 0;
  int32_t* out = s.high.data();
  for (int64_t r = 0; r < rows; ++r) {
    out = list_high(s.bytes.data() + r * g.kq, g.kq, out);
    const int64_t used = out - s.high.data();
    s.first[static_cast<size_t>(r + 1)] = used;
    if (used > limit) return false;
  }
  const __m256i lo = _mm256_set1_epi8((1 << kLowBits) - 1);
  const int64_t n = rows * g.kq;  // a multiple of 4
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    auto* p = reinterpret_cast<__m256i*>(s.bytes.data() + i);
    _mm256_storeu_si256(p, _mm256_and_si256(_mm256_loadu_si256(p), lo));
  }
  for (; i < n; ++i) s.bytes[static_cast<size_t>(i)] &= (1 << kLowBits) - 1;
  return true;
}

// One tile of mr rows (1..kMr) from row i of the block, for panel j.
AVX2_INLINE void split_tile(const Gemm& g, const Scratch& s, int64_t i, int mr, int64_t j, int cols,
                            uint8_t* y, int64_t ldy) {
  switch (mr) {
    case 6:
      return micro_split<6>(g, s, i, j, cols, y, ldy);
    case 5:
      return micro_split<5>(g, s, i, j, cols, y, ldy);
    case 4:
      return micro_split<4>(g, s, i, j, cols, y, ldy);
    case 3:
      return micro_split<3>(g, s, i, j, cols, y, ldy);
    case 2:
      return micro_split<2>(g, s, i, j, cols, y, ldy);
    case 1:
      return micro_split<1>(g, s, i, j, cols, y, ldy);
    default:
      return;
  }
}

AVX2_INLINE void wide_tile(const Gemm& g, const int16_t* a, int mr, const int16_t* panel,
                           int64_t n0, int cols, uint8_t* y, int64_t ldy) {
  switch (mr) {
    case 6:
      return micro_wide<6>(g, a, panel, n0, cols, y, ldy);
    case 5:
      return micro_wide<5>(g, a, panel, n0, cols, y, ldy);
    case 4:
      return micro_wide<4>(g, a, panel, n0, cols, y, ldy);
    case 3:
      return micro_wide<3>(g, a, panel, n0, cols, y, ldy);
    case 2:
      return micro_wide<2>(g, a, panel, n0, cols, y, ldy);
    case 1:
      return micro_wide<1>(g, a, panel, n0, cols, y, ldy);
    default:
      return;
  }
}

AVX2 void split_block_avx2(const Gemm& g, Scratch& s, int64_t rows, uint8_t* y, int64_t ldy) {
  high_terms(g, s, rows);
  const Tiles t = tiles_of(rows);
  for (int64_t j = 0; j < ceil_div(g.n, kNr); ++j) {
    const int cols = static_cast<int>(std::min(kNr, g.n - j * kNr));
    uint8_t* yj = y + j * kNr;
    int64_t i = 0;
    for (; i < t.full * kMr; i += kMr) split_tile(g, s, i, kMr, j, cols, yj + i * ldy, ldy);
    for (const int mr : t.tail) {
      split_tile(g, s, i, mr, j, cols, yj + i * ldy, ldy);
      i += mr;
    }
  }
}

AVX2 void wide_block_avx2(const Gemm& g, const int16_t* a, int64_t rows, uint8_t* y, int64_t ldy) {
  const Tiles t = tiles_of(rows);
  const int64_t pairs = g.kp / 2;
  for (int64_t j = 0; j < ceil_div(g.n, kNr); ++j) {
    const int16_t* panel = g.panels.data() + j * pairs * kNr * 2;
    const int64_t n0 = j * kNr;
    const int cols = static_cast<int>(std::min(kNr, g.n - n0));
    int64_t i = 0;
    for (; i < t.full * kMr; i += kMr)
      wide_tile(g, a + i * g.kp, kMr, panel, n0, cols, y + i * ldy + n0, ldy);
    for (const int mr : t.tail) {
      wide_tile(g, a + i * g.kp, mr, panel, n0, cols, y + i * ldy + n0, ldy);
      i += mr;
    }
  }
}
#endif

// Every panel of B over one gathered block of rows (s.bytes: rows x kq).
void block(const Gemm& g, Scratch& s, int64_t rows, uint8_t* y, int64_t ldy) {
#if HETCIM_INT8_AVX2
  if (g.vector && split_block(g, s, rows)) return split_block_avx2(g, s, rows, y, ldy);
#endif
  if (s.wide.size() < static_cast<size_t>(rows * g.kp))
    s.wide.resize(static_cast<size_t>(rows * g.kp));
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* src = s.bytes.data() + r * g.kq;
    int16_t* dst = s.wide.data() + r * g.kp;
#if HETCIM_INT8_AVX2
    if (g.vector) {
      widen_avx2(src, g.kp, dst);
      continue;
    }
#endif
    widen_scalar(src, g.kp, dst);
  }
#if HETCIM_INT8_AVX2
  if (g.vector) return wide_block_avx2(g, s.wide.data(), rows, y, ldy);
#endif
  const int64_t panels = ceil_div(g.n, kNr), pairs = g.kp / 2;
  for (int64_t j = 0; j < panels; ++j) {
    const int16_t* panel = g.panels.data() + j * pairs * kNr * 2;
    const int64_t n0 = j * kNr;
    const int cols = static_cast<int>(std::min(kNr, g.n - n0));
    for (int64_t i = 0; i < rows; i += kMr) {
      const int mr = static_cast<int>(std::min<int64_t>(kMr, rows - i));
      micro_scalar(g, mr, s.wide.data() + i * g.kp, panel, n0, cols, y + i * ldy + n0, ldy);
    }
  }
}

// C = A B over M rows; rows(m, dst) writes the k bytes of row m of A in the unsigned domain (an
// s8 source shifted by +128: its byte ^ 0x80).
template <class Rows>
void drive(const Gemm& g, int64_t m, Rows rows, uint8_t* y, int64_t ldy, int threads) {
  if (m <= 0 || g.n <= 0) return;
  const int64_t mc = block_rows(m, g.kp, g.n, threads), blocks = ceil_div(m, mc);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && blocks > 1)
  for (int64_t bi = 0; bi < blocks; ++bi) {
    thread_local Scratch s;
    const int64_t m0 = bi * mc, count = std::min(mc, m - m0);
    if (s.bytes.size() < static_cast<size_t>(count * g.kq + 32))
      s.bytes.resize(static_cast<size_t>(count * g.kq + 32));
    for (int64_t r = 0; r < count; ++r) {
      uint8_t* dst = s.bytes.data() + r * g.kq;
      rows(m0 + r, dst);
      std::fill(dst + g.k, dst + g.kq, uint8_t{0});
    }
    block(g, s, count, y + m0 * ldy, ldy);
  }
}

// n bytes of an 8-bit source in the unsigned domain.
void copy_unsigned(const uint8_t* src, int64_t n, bool is_signed, uint8_t* dst) {
  if (!is_signed) {
    std::memcpy(dst, src, static_cast<size_t>(n));
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] ^ 0x80;
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
  g.kq = ceil_div(k, 4) * 4;
  const int64_t panels = ceil_div(n, kNr), pairs = g.kp / 2, np = panels * kNr;
  g.panels.assign(static_cast<size_t>(panels * pairs * kNr * 2), 0);
  g.quads.assign(static_cast<size_t>(panels * g.kq * kNr), 0);
  g.rows.assign(static_cast<size_t>(g.kq * np), 0);
  g.offset.assign(static_cast<size_t>(np), 0);
  g.scale.assign(static_cast<size_t>(np), 0.0f);
  // the kernels read an s8 source as u8 (+128), with za moved by as much
  g.zu = a_signed ? za + 128 : za;
  for (int64_t col = 0; col < n; ++col) {
    int64_t sum = 0;
    const int64_t j = col / kNr, c = col % kNr;
    for (int64_t kk = 0; kk < k; ++kk) {
      const int8_t v = b[kk * stride_k + col * stride_n];
      sum += v;
      g.panels[static_cast<size_t>(((j * pairs + kk / 2) * kNr + c) * 2 + kk % 2)] = v;
      // quad q = kk / 4: columns 0-7 then 8-15, each column's 4 k adjacent
      g.quads[static_cast<size_t>((j * g.kq / 4 + kk / 4) * kNr * 4 + c * 4 + kk % 4)] = v;
      g.rows[static_cast<size_t>(kk * np + col)] = v;
    }
    const int64_t bias = out.bias.empty() ? 0 : out.bias[static_cast<size_t>(col)];
    // bias - zu * sum b, modulo 2^32 (the reference's int64 sum is cast to int32 at the end)
    g.offset[static_cast<size_t>(col)] =
        static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(bias - g.zu * sum)));
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
      g, m, [&](int64_t row, uint8_t* dst) { copy_unsigned(a + row * lda, g.k, g.a_signed, dst); },
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
    const auto pad = static_cast<uint8_t>(g.zu);  // padding reads as the zero point
    drive(
        g, w.n * w.oh * w.ow,
        [&](int64_t row, uint8_t* dst) {
          const int64_t ow = row % w.ow, oh = (row / w.ow) % w.oh, img = row / (w.ow * w.oh);
          const int64_t iw0 = ow * w.sw - w.pl;
          for (int64_t kh = 0; kh < w.kh; ++kh) {
            const int64_t ih = oh * w.sh - w.pt + kh * w.dh;
            // A whole kernel row inside the image with groups of 1 and no dilation: kw * c
            // contiguous bytes in one copy (the stem's 7 x 3 instead of 7 runs of 3).
            if (w.group == 1 && w.dw == 1 && ih >= 0 && ih < w.h && iw0 >= 0 && iw0 + w.kw <= w.w) {
              copy_unsigned(x + ((img * w.h + ih) * w.w + iw0) * w.c, w.kw * icg, g.a_signed, dst);
              dst += w.kw * icg;
              continue;
            }
            for (int64_t kw = 0; kw < w.kw; ++kw, dst += icg) {
              const int64_t iw = ow * w.sw - w.pl + kw * w.dw;
              if (ih < 0 || ih >= w.h || iw < 0 || iw >= w.w) {
                std::memset(dst, pad, static_cast<size_t>(icg));
                continue;
              }
              copy_unsigned(x + ((img * w.h + ih) * w.w + iw) * w.c + gi * icg, icg, g.a_signed,
                            dst);
            }
          }
        },
        y + gi * ocg, w.oc, threads);
  }
}

}  // namespace hetcim::exec::int8_gemm
