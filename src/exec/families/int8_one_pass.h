// Exact int8 convolutions and products in one pass where oneDNN's int8 kernels are not exact
// (int8_weight_halves(), engine.h: no VNNI): hetcim's AVX2 kernels of exec/int8_gemm.h replace the
// two weight-half kernels (int8_halves.h) of QLinearConv (depthwise excepted: oneDNN's depthwise
// kernels are exact and run once), QLinearMatMul with a constant B and QGemm with an int8 output.
// The conv and matmul families call these before they build an int8 primitive.
//
// HETCIM_INT8_HALVES=1 in the environment keeps the weight halves (A/B comparisons, and the test
// exec_int8_halves_path that runs the int8 tests on that path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec/engine_context.h"

namespace hetcim::exec::native {

// Whether the one-pass kernels run here: int8_weight_halves(), the AVX2 kernels available
// (int8_gemm::available()) and HETCIM_INT8_HALVES not set to 1.
[[nodiscard]] bool int8_one_pass();

// The operands of an int8 product as the families read them: weights minus their zero points,
// the output multipliers per output channel, the int32 bias (empty: none).
struct Int8Product {
  DType xtype = DType::UInt8, ytype = DType::UInt8;
  int32_t zx = 0, zy = 0;
  float sy = 1.0f;
  std::vector<float> scales;
  std::vector<int32_t> bias;
  Activation act;
};

// QLinearConv (not depthwise) on channels-last tensors: x read in NHWC, y written in NHWC.
// w8: OIHW weights minus their zero points.
void conv_one_pass(EngineContext& e, const graph::Node& n, const Window2d& w, const Tensor& w8,
                   const Int8Product& p);

// y (rows x N, row-major) = A (rows x K, row-major: every row of tensor a) times constant B,
// b8(k, j) = b8[k * stride_k + j * stride_n] (minus its zero points); y has the shape the graph
// gives it.
void gemm_one_pass(EngineContext& e, const std::string& a, const std::string& y, int64_t rows,
                   int64_t K, int64_t N, const Tensor& b8, int64_t stride_k, int64_t stride_n,
                   const Int8Product& p);

}  // namespace hetcim::exec::native
