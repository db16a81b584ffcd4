// Hand-written kernels of the oneDNN engine (internal to exec): the quantized element-wise ops,
// QuantizeLinear/DequantizeLinear, quantized average pooling, and strided data movement. The hot
// flat loops are compiled for AVX-512, AVX2 and baseline x86-64 and picked at load time (no wider
// than oneDNN's DNNL_MAX_CPU_ISA allows, for the hand-dispatched ones); all of them parallelize
// with OpenMP over large tensors. Each computes exactly what reference.cpp does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace hetcim::exec::kernels {

// QLinearAdd / QLinearMul of uint8 a, b into y, with ONNX Runtime's x86 arithmetic (ORT 1.30,
// MLAS: MlasQLinearAddKernelAvx2Helper in lib/intrinsics/avx2/qladd_avx2.cpp and
// MlasQLinearMulKernel in lib/qlmul.cpp). ONNX defines both as Q(op(DQ(a), DQ(b))); ORT folds the
// scales into ratios and adds the output zero point before it rounds, so on a tie (a value
// exactly halfway between two integers before the zero point) it can differ from
// round(x / sy) + zy by one step. hetcim follows ORT (decided on issue #10; checked bit for bit
// against onnxruntime-node 1.30 on every (a, b) pair of 52 scale/zero-point sets, see
// tests/corpus/README.md). In float32, fma = one rounding:
//   add: ra = sa / sy, rb = sb / sy, k = zy - fma(ra, za, rb * zb),
//        v = fma(a, ra, fma(b, rb, k)); when `a_broadcast` (a is constant along the innermost run
//        and b is not: ORT's "input 0 scalar" span) v = fma(b, rb, fma(a, ra, k)) instead
//   mul: v = float((a - za) (b - zb)) * ((sa * sb) / sy) + zy      (no fma)
//   y = clamp(round_half_to_even(v), lo, hi)
struct QBinary {
  float sa = 1, sb = 1, sy = 1;
  int32_t za = 0, zb = 0, zy = 0;
  int32_t lo = 0, hi = 255;  // output clamp: the type's range, narrowed by a fused activation
  bool mul = false;
  bool a_broadcast = false;
};
// The value v above for one pair (before rounding and clamping).
float qbinary_value(int32_t a, int32_t b, const QBinary& p);
// clamp(round_half_to_even(v), lo, hi)
int32_t qbinary_round(float v, const QBinary& p);
// Contiguous a, b, y of n elements (a_broadcast is ignored: neither operand is broadcast).
void qbinary_u8(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n, const QBinary& p);
// One operand a single value `s` (a scalar or per-tensor broadcast), the other `x` of n elements:
// b = s when !p.a_broadcast, else a = s. Exact through a 256-entry table.
void qbinary_u8_scalar(const uint8_t* x, uint8_t s, uint8_t* y, int64_t n, const QBinary& p);

// y = 1 / (1 + exp(-x)) in float (AVX-512, and AVX2 with FMA: exp by range reduction and a
// degree-6 polynomial, relative error about 1e-7, the same bytes on both but for the scalar tail of
// n % 16 or n % 8 elements; otherwise, and in that tail, std::exp). n elements, contiguous.
void sigmoid_f32(const float* x, float* y, int64_t n);
// y = x * sigmoid_f32(x) (SiLU): the same float sigmoid, then one float product, so equal bit for
// bit to a Sigmoid followed by a Mul. y may not alias x.
void silu_f32(const float* x, float* y, int64_t n);

// y = min(max(alpha x + beta, 0), 1) (HardSigmoid; torch exports Hardswish as x * HardSigmoid(x)),
// n elements, contiguous. oneDNN 2.6 has no HardSigmoid and runs its linear + clip post-op with
// the reference implementation (about 17 ns per element).
void hardsigmoid_f32(const float* x, float* y, int64_t n, float alpha, float beta);

// y = x * a[c] + b[c] per channel c (inference BatchNormalization); x, y are [n][hw][c]
// (channels last) or [n][c][hw]. relu: y = max(y, 0) (a Relu after it, +0 for v <= 0).
// Single-threaded.
void channel_affine_f32(const float* x, float* y, bool channels_last, int64_t n, int64_t c,
                        int64_t hw, const float* a, const float* b, bool relu = false);

// y[i] = table[x[i]]
void table_u8(const uint8_t* x, uint8_t* y, int64_t n, const uint8_t* table);
// Rows of bytes: `rows` runs of `len` contiguous bytes, src_stride and dst_stride bytes apart,
// copied (a memcpy per row: as fast as hand-written moves from 16 bytes up, measured) or mapped
// through the 256-entry `table` when it is not null (dst = table[src]: the vector table kernels
// without a call per row). One call moves a whole channels-last concat part or split (runs of
// 16-128 bytes per pixel). Parallel over rows when large, unless called inside a parallel region.
void copy_rows_u8(int64_t rows, int64_t len, const uint8_t* src, int64_t src_stride, uint8_t* dst,
                  int64_t dst_stride, const uint8_t* table);
// y[i] = x[i] ^ 0x80 over n bytes: int8 x as uint8 x + 128.
void flip_sign_bits(const uint8_t* x, uint8_t* y, size_t n);
// w = lo + hi over n values, lo = floor(w / 2) in [-64, 63], hi = w - lo in [-64, 64].
void int8_halves(const int8_t* w, int8_t* lo, int8_t* hi, size_t n);

// QuantizeLinear / DequantizeLinear, per tensor.
void quantize_f32(const float* x, void* y, bool int8_out, int64_t n, float scale, int32_t zp);
void dequantize_x8(const void* x, bool int8_in, float* y, int64_t n, float scale, int32_t zp);

// Channel sums of uint8 minus zero point, for global average pooling: x is [n][hw][c] (channels
// last) or [n][c][hw]; acc is n*c int32.
void channel_sums_u8(const uint8_t* x, bool channels_last, int64_t n, int64_t c, int64_t hw,
                     int32_t zp, int32_t* acc);

// Generic strided iteration over a logical shape with several operands, each with its own element
// strides; calls inner(len, offsets, inner_strides) for runs along the innermost dimension (the
// one with the smallest stride of operand 0, the output). Parallel over the outer index when the
// total is large.
// Merges adjacent dimensions that every operand traverses contiguously (stride[k] ==
// stride[k+1] * shape[k+1]) and drops size-1 dimensions, so row-major slabs become single runs.
inline void merge_dims(std::vector<int64_t>& shape, std::vector<std::vector<int64_t>>& strides) {
  std::vector<int64_t> s;
  std::vector<std::vector<int64_t>> st(strides.size());
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    bool merge = !s.empty();
    for (size_t o = 0; merge && o < strides.size(); ++o)
      merge = st[o].back() == strides[o][k] * shape[k];
    if (merge) {
      s.back() *= shape[k];
      for (size_t o = 0; o < strides.size(); ++o) st[o].back() = strides[o][k];
    } else {
      s.push_back(shape[k]);
      for (size_t o = 0; o < strides.size(); ++o) st[o].push_back(strides[o][k]);
    }
  }
  shape = s;
  strides = st;
}

template <typename F>
void for_each_run(std::vector<int64_t> shape, std::vector<std::vector<int64_t>> strides, F inner) {
  merge_dims(shape, strides);
  const size_t rank = shape.size(), ops = strides.size();
  if (rank == 0) {
    std::vector<int64_t> off(ops, 0), st(ops, 0);
    inner(int64_t{1}, off.data(), st.data());
    return;
  }
  size_t innermost = rank - 1;
  for (size_t k = 0; k < rank; ++k)
    if (shape[k] > 1 && strides[0][k] < strides[0][innermost]) innermost = k;
  if (shape[innermost] <= 1) innermost = rank - 1;
  std::vector<size_t> outer_dims;
  for (size_t k = 0; k < rank; ++k)
    if (k != innermost) outer_dims.push_back(k);
  int64_t outer = 1;
  for (size_t k : outer_dims) outer *= shape[k];
  const int64_t len = shape[innermost];
  std::vector<int64_t> inner_st(ops);
  for (size_t o = 0; o < ops; ++o) inner_st[o] = strides[o][innermost];
  // One long run: split it into chunks so that the threads share it.
  if (outer == 1 && len >= (int64_t{1} << 17)) {
    constexpr int64_t kChunk = int64_t{1} << 15;
    const int64_t chunks = (len + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
      int64_t off[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (size_t o = 0; o < ops; ++o) off[o] = c * kChunk * inner_st[o];
      inner(std::min(kChunk, len - c * kChunk), off, inner_st.data());
    }
    return;
  }
  // Outer runs in contiguous ranges per thread; offsets advance like an odometer.
  // Small work runs outside any parallel region (an inactive one would still keep inner kernels,
  // copy_rows_u8, from using the threads).
  const bool parallel = outer * len >= (int64_t{1} << 16) && outer > 1;
  const int64_t nchunks = parallel ? std::min<int64_t>(outer, 64) : 1;
  const auto chunk = [&](int64_t c) {
    const int64_t begin = outer * c / nchunks, end = outer * (c + 1) / nchunks;
    int64_t off[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::vector<int64_t> idx(outer_dims.size(), 0);
    int64_t rem = begin;
    for (size_t k = outer_dims.size(); k-- > 0;) {
      const size_t d = outer_dims[k];
      idx[k] = rem % shape[d];
      rem /= shape[d];
      for (size_t o = 0; o < ops; ++o) off[o] += idx[k] * strides[o][d];
    }
    for (int64_t r = begin; r < end; ++r) {
      inner(len, off, inner_st.data());
      for (size_t k = outer_dims.size(); k-- > 0;) {
        const size_t d = outer_dims[k];
        for (size_t o = 0; o < ops; ++o) off[o] += strides[o][d];
        if (++idx[k] < shape[d]) break;
        for (size_t o = 0; o < ops; ++o) off[o] -= strides[o][d] * shape[d];
        idx[k] = 0;
      }
    }
  };
  if (!parallel) return chunk(0);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < nchunks; ++c) chunk(c);
}

// for_each_run with the runs of one more dimension at once: block(rows, len, offsets,
// inner_strides, row_strides) covers the runs at offsets + r * row_strides for r < rows. When the
// runs are contiguous in every operand, the row dimension is the outer one with the most elements
// (a channels-last tensor's pixels), so that short runs go to one kernel call by the thousand
// (which then parallelizes over rows itself); otherwise rows = 1 and the iteration is
// for_each_run's.
template <typename F>
void for_each_rows(std::vector<int64_t> shape, std::vector<std::vector<int64_t>> strides, F block) {
  merge_dims(shape, strides);
  const size_t rank = shape.size(), ops = strides.size();
  std::vector<int64_t> row(ops, 0);
  size_t innermost = rank - 1;
  for (size_t k = 0; k < rank; ++k)
    if (shape[k] > 1 && strides[0][k] < strides[0][innermost]) innermost = k;
  bool contiguous = rank >= 2;
  for (size_t o = 0; contiguous && o < ops; ++o) contiguous = strides[o][innermost] == 1;
  if (contiguous) {
    size_t r = rank;
    for (size_t k = 0; k < rank; ++k)
      if (k != innermost && (r == rank || shape[k] > shape[r])) r = k;
    const int64_t rows = shape[r];
    for (size_t o = 0; o < ops; ++o) row[o] = strides[o][r];
    shape[r] = 1;
    for_each_run(shape, strides, [&](int64_t len, const int64_t* off, const int64_t* st) {
      block(rows, len, off, st, row.data());
    });
    return;
  }
  for_each_run(shape, strides, [&](int64_t len, const int64_t* off, const int64_t* st) {
    block(int64_t{1}, len, off, st, row.data());
  });
}

// Strided copy of `es`-byte elements (slices, splits, concat parts, transposes, layout changes).
void strided_copy(const std::vector<int64_t>& shape, const uint8_t* src,
                  const std::vector<int64_t>& src_strides, uint8_t* dst,
                  const std::vector<int64_t>& dst_strides, size_t es);

}  // namespace hetcim::exec::kernels
