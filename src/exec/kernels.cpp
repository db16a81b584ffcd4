#include "exec/kernels.h"

#include <algorithm>

#include "exec/quantize.h"

// Multi-versioned hot loops: GCC builds each for the listed targets and dispatches at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define HETCIM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HETCIM_CLONES
#endif

namespace hetcim::exec::kernels {
namespace {

constexpr int64_t kParallelMin = int64_t{1} << 15;

inline float rnd(float v) { return round_half_even(v); }

HETCIM_CLONES void qbinary_block(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n,
                                 QBinary p) {
  const float flo = static_cast<float>(p.lo), fhi = static_cast<float>(p.hi);
  const float fzy = static_cast<float>(p.zy);
  if (p.mul) {
    for (int64_t i = 0; i < n; ++i) {
      const float da = static_cast<float>(static_cast<int32_t>(a[i]) - p.za) * p.sa;
      const float db = static_cast<float>(static_cast<int32_t>(b[i]) - p.zb) * p.sb;
      float v = rnd((da * db) / p.sy) + fzy;
      v = v < flo ? flo : (v > fhi ? fhi : v);
      y[i] = static_cast<uint8_t>(static_cast<int32_t>(v));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const float da = static_cast<float>(static_cast<int32_t>(a[i]) - p.za) * p.sa;
      const float db = static_cast<float>(static_cast<int32_t>(b[i]) - p.zb) * p.sb;
      float v = rnd((da + db) / p.sy) + fzy;
      v = v < flo ? flo : (v > fhi ? fhi : v);
      y[i] = static_cast<uint8_t>(static_cast<int32_t>(v));
    }
  }
}

HETCIM_CLONES void quantize_block_u8(const float* x, uint8_t* y, int64_t n, float s, float zp) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] != x[i] ? 0.0f : rnd(x[i] / s);  // NaN -> zero point
    v += zp;
    v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
    y[i] = static_cast<uint8_t>(static_cast<int32_t>(v));
  }
}

HETCIM_CLONES void quantize_block_s8(const float* x, int8_t* y, int64_t n, float s, float zp) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] != x[i] ? 0.0f : rnd(x[i] / s);
    v += zp;
    v = v < -128.0f ? -128.0f : (v > 127.0f ? 127.0f : v);
    y[i] = static_cast<int8_t>(static_cast<int32_t>(v));
  }
}

HETCIM_CLONES void dequantize_block_u8(const uint8_t* x, float* y, int64_t n, float s, int32_t zp) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zp) * s;
}

HETCIM_CLONES void dequantize_block_s8(const int8_t* x, float* y, int64_t n, float s, int32_t zp) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zp) * s;
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

void qbinary_u8_scalar_b(const uint8_t* a, uint8_t b, uint8_t* y, int64_t n, const QBinary& p) {
  // A 256-entry table is exact here: the result depends on a[i] only.
  uint8_t table[256], av[256], bv[256];
  for (int i = 0; i < 256; ++i) {
    av[i] = static_cast<uint8_t>(i);
    bv[i] = b;
  }
  qbinary_block(av, bv, table, 256, p);
  table_u8(a, y, n, table);
}

void table_u8(const uint8_t* x, uint8_t* y, int64_t n, const uint8_t* table) {
  blocks(n, [&](int64_t s, int64_t c) {
    for (int64_t i = s; i < s + c; ++i) y[i] = table[x[i]];
  });
}

void quantize_f32(const float* x, void* y, bool int8_out, int64_t n, float scale, int32_t zp) {
  const float fzp = static_cast<float>(zp);
  blocks(n, [&](int64_t s, int64_t c) {
    if (int8_out) quantize_block_s8(x + s, static_cast<int8_t*>(y) + s, c, scale, fzp);
    else quantize_block_u8(x + s, static_cast<uint8_t*>(y) + s, c, scale, fzp);
  });
}

void dequantize_x8(const void* x, bool int8_in, float* y, int64_t n, float scale, int32_t zp) {
  blocks(n, [&](int64_t s, int64_t c) {
    if (int8_in) dequantize_block_s8(static_cast<const int8_t*>(x) + s, y + s, c, scale, zp);
    else dequantize_block_u8(static_cast<const uint8_t*>(x) + s, y + s, c, scale, zp);
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
  for_each_run(shape, {dst_strides, src_strides},
               [&](int64_t len, const int64_t* off, const int64_t* st) {
                 uint8_t* d = dst + off[0] * static_cast<int64_t>(es);
                 const uint8_t* s = src + off[1] * static_cast<int64_t>(es);
                 if (st[0] == 1 && st[1] == 1) {
                   std::memcpy(d, s, static_cast<size_t>(len) * es);
                   return;
                 }
                 const int64_t ds = st[0] * static_cast<int64_t>(es), ss = st[1] * static_cast<int64_t>(es);
                 if (es == 1) {
                   for (int64_t i = 0; i < len; ++i) d[i * ds] = s[i * ss];
                 } else if (es == 4) {
                   for (int64_t i = 0; i < len; ++i) std::memcpy(d + i * ds, s + i * ss, 4);
                 } else {
                   for (int64_t i = 0; i < len; ++i) std::memcpy(d + i * ds, s + i * ss, es);
                 }
               });
}

}  // namespace hetcim::exec::kernels
