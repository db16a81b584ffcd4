// The operator families of this folder, one file each: a family's file holds its registry rows
// (ops/registry.h) and the functions they name: its shape rule and constant evaluator
// (ops/shape_rule.h) and, where the family's kernel is portable, its kernel compiler (a oneDNN
// kernel sits in exec/families/<family>.cpp). registry.cpp's table is the union of these lists.
#pragma once

#include <optional>
#include <vector>

#include "ops/registry.h"
#include "ops/shape_rule.h"

namespace hetcim::ops {

// Each family's rows, in the order registry.cpp lists them.
std::vector<Family> conv_family();           // conv.cpp: Conv, QLinearConv, ConvTranspose
std::vector<Family> matmul_family();         // matmul.cpp: Gemm, QGemm, MatMul, QLinearMatMul
std::vector<Family> binary_family();         // binary.cpp: Add, Sub, Mul, Div, Pow, Mod, QLinear*
std::vector<Family> eltwise_family();        // eltwise.cpp: Relu, Clip, Sigmoid, ..., PRelu
std::vector<Family> pool_family();           // pool.cpp: MaxPool, AveragePool, global pools
std::vector<Family> concat_family();         // concat.cpp: Concat, QLinearConcat
std::vector<Family> slice_split_family();    // slice_split.cpp: Split, Slice
std::vector<Family> resize_family();         // resize.cpp: Resize, Upsample
std::vector<Family> layout_family();         // layout.cpp: Reshape, Flatten, ..., Transpose
std::vector<Family> quantize_family();       // quantize.cpp: QuantizeLinear, DequantizeLinear
std::vector<Family> normalization_family();  // normalization.cpp: BatchNormalization
std::vector<Family> softmax_family();        // softmax.cpp
std::vector<Family> reduce_family();         // reduce.cpp: ReduceMean, ReduceProd
std::vector<Family> layer_norm_family();     // layer_norm.cpp: LayerNormalization
std::vector<Family> gelu_family();           // gelu.cpp
std::vector<Family> pad_family();            // pad.cpp
std::vector<Family> unary_math_family();     // unary_math.cpp: Erf, Sqrt, Neg, Abs
std::vector<Family> gather_family();         // gather.cpp
std::vector<Family> logical_family();        // logical.cpp: Equal, Less, ..., And, Not, Where
std::vector<Family> shape_ops_family();      // shape_ops.cpp: Shape, Size, Cast, Range, ...

// Operand positions of the weighted operators (ONNX and com.microsoft schemas): the float form
// (x 0, w 1, an optional bias) and the QLinear form (QLinearConv: x, x_scale, x_zp, w, w_scale,
// w_zp, y_scale, y_zp, B; QLinearMatMul: the same without B; QGemm (com.microsoft): A, a_scale,
// a_zp, B, b_scale, b_zp, C, y_scale, y_zp).
inline QLinearOperands float_weighted(std::optional<size_t> bias) {
  QLinearOperands o;
  o.bias = bias;
  return o;
}
inline QLinearOperands qlinear_weighted(std::optional<size_t> bias, size_t y_scale) {
  QLinearOperands o;
  o.quantized = true;
  o.x_scale = 1;
  o.x_zero_point = 2;
  o.w = 3;
  o.w_scale = 4;
  o.w_zero_point = 5;
  o.bias = bias;
  o.y_scale = y_scale;
  o.y_zero_point = y_scale + 1;
  return o;
}

inline constexpr std::string_view kMicrosoft = "com.microsoft";

}  // namespace hetcim::ops
