// Exact int8 matrix products and convolutions in one pass on x86 CPUs without VNNI (issue 37).
//
// There oneDNN's int8 kernels add adjacent u8 x s8 products in a saturating int16
// (vpmaddubsw), so the engine used to run each int8 convolution or matmul as two kernels over
// weight halves (engine.h, int8_weight_halves). These kernels widen both operands to int16 and
// multiply-add pairs into int32 (vpmaddwd: every pair sum fits, |a b + a' b'| <= 2 * 255 * 128),
// as ONNX Runtime's u8 x u8 AVX2 kernels do; the int32 sums wrap like the reference's int64 sum
// cast to int32, so the result is the reference interpreter's bit for bit:
//
//   acc[m][n] = sum_k (a[m][k] - za) b[k][n] + bias[n]           (int32)
//   y[m][n]   = clamp(requantize(acc, scale[n], zy, range), act_lo, act_hi)
//
// with quantize.h's requantize (float(acc) * scale rounded half to even, + zy, saturated) and the
// reference's fused Relu/Clip clamp in the quantized domain (act_lo/act_hi, make_output).
//
// Layout: B (the constant weights, already minus their zero points) is packed once into panels of
// 16 columns, pairs of k interleaved as int16 (k, k+1) per column; A (activations) is widened to
// int16 rows per block of rows (a convolution gathers its rows by im2col in NHWC order, padding
// read as the zero point); the micro-kernel keeps 6 rows x 16 columns of int32 sums in registers
// (one broadcast of a row's (k, k+1) pair, two vpmaddwd per pair) and requantizes them on the way
// out. za is folded into a per-column offset: sum (a - za) b = sum a b - za * sum b.
//
// The AVX2 kernels run when the CPU and oneDNN's effective ISA (DNNL_MAX_CPU_ISA caps it) allow
// AVX2 (available()); a portable kernel with the same arithmetic runs otherwise (Gemm::vector
// false; tests run both).
#pragma once

#include <cstdint>
#include <vector>

#include "exec/op_params.h"
#include "exec/quantize.h"

namespace hetcim::exec::int8_gemm {

// Whether the AVX2 kernels may run here.
[[nodiscard]] bool available();

// The requantization of one product's outputs, per output column n.
struct Output {
  std::vector<float> scale;   // N multipliers, sx * sw[n] / sy as the operator computes them
  std::vector<int32_t> bias;  // N values or empty
  int32_t zy = 0;
  bool is_signed = false;            // int8 output (else uint8)
  int32_t act_lo = 0, act_hi = 255;  // clamp after saturation (the type's range: no activation)
};
// act_lo / act_hi of a fused activation as the reference applies it: Relu max(y, zy), Clip
// clamp(y, Q(lo), Q(hi)) with Q quantize_value at (sy, zy).
[[nodiscard]] Output make_output(std::vector<float> scale, std::vector<int32_t> bias, int32_t zy,
                                 bool is_signed, const Activation& act, float sy);

// A prepared product C = A B for a constant K x N B; A is M x K 8-bit (u8 or s8, zero point za).
struct Gemm {
  int64_t k = 0, n = 0;
  int64_t kp = 0;               // k rounded up to even
  std::vector<int16_t> panels;  // ceil(n / 16) panels of kp / 2 pairs x 16 columns x 2
  std::vector<int32_t> offset;  // per column (padded to 16): bias - za * sum_k b (wrapping)
  std::vector<float> scale;     // per column (padded to 16)
  int32_t za = 0, zy = 0;
  bool a_signed = false, y_signed = false;
  int32_t lo = 0, hi = 255;          // the output type's range
  int32_t act_lo = 0, act_hi = 255;  // Output::act_lo / act_hi
  bool vector = false;  // run the AVX2 kernels (available() when prepared; tests may clear it)
};
// b(k, n) = b[k * stride_k + n * stride_n], K x N int8 (the weights minus their zero points).
[[nodiscard]] Gemm prepare(const int8_t* b, int64_t k, int64_t n, int64_t stride_k,
                           int64_t stride_n, bool a_signed, int32_t za, const Output& out);

// y[m * ldy + n] for m < M, n < N from a[m * lda + k] (bytes, u8 or s8 as prepared). `threads`
// OpenMP threads over blocks of rows.
void run(const Gemm& g, int64_t m, const uint8_t* a, int64_t lda, uint8_t* y, int64_t ldy,
         int threads = 1);

// A convolution (not depthwise: those stay oneDNN's exact kernels) on NHWC tensors: input
// n x h x w x c, output n x oh x ow x oc, one product per group.
struct Conv {
  Window2d w;
  std::vector<Gemm> groups;
};
// w8: OIHW weights minus their zero points (oc x c/group x kh x kw); x has zero point zx (also
// the value of padding).
[[nodiscard]] Conv prepare_conv(const Window2d& w, const int8_t* w8, bool x_signed, int32_t zx,
                                const Output& out);
void run_conv(const Conv& cv, const uint8_t* x, uint8_t* y, int threads = 1);

}  // namespace hetcim::exec::int8_gemm
