// Where the operands of a weighted operator sit, in its float form and in its QLinear form, in one
// place (shape inference, the passes, both executors and the workload used to spell them as
// `q ? 3 : 1`): Conv / QLinearConv, Gemm / QGemm (com.microsoft), MatMul / QLinearMatMul.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace hetcim::graph {

struct QLinearOperands {
  bool quantized = false;
  size_t x = 0;  // the activation (A of a MatMul)
  size_t w = 1;  // the weight (B of a MatMul)
  std::optional<size_t> bias;
  // QLinear forms only: scales and zero points of x, w and the output.
  std::optional<size_t> x_scale, x_zero_point, w_scale, w_zero_point, y_scale, y_zero_point;
};

// nullopt for operators that are none of the six above.
[[nodiscard]] inline std::optional<QLinearOperands> weighted_operands(std::string_view op) {
  QLinearOperands o;
  if (op == "Conv" || op == "Gemm") {
    o.bias = 2;
    return o;
  }
  if (op == "MatMul") return o;
  if (op != "QLinearConv" && op != "QGemm" && op != "QLinearMatMul") return std::nullopt;
  o.quantized = true;
  o.x_scale = 1;
  o.x_zero_point = 2;
  o.w = 3;
  o.w_scale = 4;
  o.w_zero_point = 5;
  if (op == "QGemm") {  // com.microsoft: A, a_scale, a_zp, B, b_scale, b_zp, C, y_scale, y_zp
    o.bias = 6;
    o.y_scale = 7;
    o.y_zero_point = 8;
  } else {  // QLinearConv: ..., y_scale, y_zp, B; QLinearMatMul: ..., y_scale, y_zp
    o.y_scale = 6;
    o.y_zero_point = 7;
    if (op == "QLinearConv") o.bias = 8;
  }
  return o;
}

}  // namespace hetcim::graph
