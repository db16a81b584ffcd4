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
// Two AVX2 kernels, chosen per block of rows (A is first gathered as bytes, s8 sources shifted to
// u8 by +128, which folds into za):
// - split: a = lo + 128 * hi with lo = a & 127. The lo bytes go through vpmaddubsw (u8 x s8 pairs
//   into int16: |lo b + lo' b'| <= 2 * 127 * 128 = 32512, so no pair sum can saturate) and vpmaddwd
//   by ones into int32, as ONNX Runtime's AVX2 kernel does, which without the split saturates for
//   a >= 128. The hi term, 128 * sum b over the k where a >= 128, is added from a per-row list of
//   those k, built while the block is gathered: cheap where large activations are rare (ReLU
//   outputs: 1-6 % of the bytes of ResNet-18's layers after the first). Per 64 multiply-adds of a
//   row 4 vector multiplies and 3 adds and broadcasts, against 4 + 6 for the wide kernel.
// - wide (a block where a >= 128 is not rare, e.g. an image input): both operands widened to
//   int16, pairs multiply-added into int32 by vpmaddwd (every pair sum fits).
// Both keep 6 rows x 16 columns of int32 sums in registers, start them at bias - za * sum b (plus
// the hi term) and requantize them on the way out. B (the constant weights, already minus their
// zero points) is packed once into panels of 16 columns in three forms: quads of k as bytes
// (split), rows of 16 bytes (the hi term), pairs of k as int16 (wide; also the portable kernel's).
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
  int64_t kp = 0;               // k rounded up to even (wide kernel)
  int64_t kq = 0;               // k rounded up to a multiple of 4 (split kernel: quads of k)
  std::vector<int16_t> panels;  // ceil(n / 16) panels of kp / 2 pairs x 16 columns x 2
  std::vector<int8_t> quads;    // ceil(n / 16) panels of kq / 4 quads x 16 columns x 4
  std::vector<int8_t> rows;     // kq rows x ceil(n / 16) * 16 columns (the hi term)
  std::vector<int32_t> offset;  // per column (padded to 16): bias - zu * sum_k b (wrapping)
  std::vector<float> scale;     // per column (padded to 16)
  int32_t za = 0, zy = 0;
  int32_t zu = 0;  // za in the unsigned domain the kernels read: za + 128 for an s8 source
  bool a_signed = false, y_signed = false;
  int32_t lo = 0, hi = 255;          // the output type's range
  int32_t act_lo = 0, act_hi = 255;  // Output::act_lo / act_hi
  bool vector = false;  // run the AVX2 kernels (available() when prepared; tests may clear it)
  // A block runs the split kernel while its bytes >= 128 are at most this fraction of its rows x
  // k; else the wide one. Tests set 2 (always split) or -1 (never).
  float split_limit = 0.03f;
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
