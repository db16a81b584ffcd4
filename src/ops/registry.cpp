#include "ops/registry.h"

#include "ops/families.h"

namespace hetcim::ops {
namespace {

// Operand positions of the weighted operators (ONNX and com.microsoft schemas).
QLinearOperands float_weighted(std::optional<size_t> bias) {
  QLinearOperands o;
  o.bias = bias;
  return o;
}
// QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B; QLinearMatMul: the same
// without B; QGemm (com.microsoft): A, a_scale, a_zp, B, b_scale, b_zp, C, y_scale, y_zp.
QLinearOperands qlinear_weighted(std::optional<size_t> bias, size_t y_scale) {
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

constexpr std::string_view kMs = "com.microsoft";
using F = Fill;

const std::vector<Family>& table() {
  // op, family, portable kernel (this folder), run-time inputs, then the operator's facts. Rows
  // without a kernel are engine-native families (exec/engine.cpp); a family with both (binary,
  // batchnorm) runs the engine's oneDNN or fused kernel when it takes the node and the portable
  // one otherwise.
  static const std::vector<Family> kTable = {
      {.op = "Conv",
       .family = "conv",
       .operands = float_weighted(2),
       .gemm = GemmView::Conv,
       .params = {1, 2},
       .fill = {F::Generic, F::Weight, F::Zero},
       .qform = "QLinearConv",
       .qlayout = QLayout::Weighted,
       .takes_activation = true,
       .int8_runs = true,
       .nhwc = true},
      {.op = "QLinearConv",
       .family = "qconv",
       .operands = qlinear_weighted(8, 6),
       .gemm = GemmView::Conv,
       .params = {3, 8},
       .qform = "Conv",
       .qlayout = QLayout::Weighted,
       .quantized = true,
       .takes_activation = true,
       .nhwc = true},
      {.op = "Gemm",
       .family = "gemm",
       .operands = float_weighted(2),
       .gemm = GemmView::Gemm,
       .params = {1, 2},
       .fill = {F::Generic, F::Weight, F::Zero},
       .qform = "QGemm",
       .qlayout = QLayout::Weighted,
       .takes_activation = true,
       .int8_runs = true},
      {.op = "QGemm",
       .family = "qgemm",
       .domain = kMs,
       .operands = qlinear_weighted(6, 7),
       .gemm = GemmView::Gemm,
       .params = {3, 6},
       .qform = "Gemm",
       .qlayout = QLayout::Weighted,
       .quantized = true,
       .takes_activation = true},
      {.op = "MatMul",
       .family = "matmul",
       .operands = float_weighted(std::nullopt),
       .gemm = GemmView::MatMul,
       .params = {0, 1},
       .fill = {F::Generic, F::Weight},
       .qform = "QLinearMatMul",
       .qlayout = QLayout::Weighted,
       .takes_activation = true,
       .int8_runs = true},
      {.op = "QLinearMatMul",
       .family = "qmatmul",
       .operands = qlinear_weighted(std::nullopt, 6),
       .gemm = GemmView::MatMul,
       .params = {0, 3},
       .qform = "MatMul",
       .qlayout = QLayout::Weighted,
       .quantized = true,
       .takes_activation = true},
      {.op = "Add",
       .family = "binary",
       .compile = compile_binary,
       .activations = {0, 1},
       .qform = "QLinearAdd",
       .qlayout = QLayout::Binary,
       .takes_activation = true,
       .int8_runs = true,
       .nhwc = true},
      {"Sub", "binary", compile_binary, {0, 1}},
      {.op = "Mul",
       .family = "binary",
       .compile = compile_binary,
       .activations = {0, 1},
       .qform = "QLinearMul",
       .qlayout = QLayout::Binary,
       .int8_runs = true,
       .nhwc = true},
      {"Div", "binary", compile_binary, {0, 1}},
      {"Pow", "binary", compile_binary, {0, 1}},
      {.op = "QLinearAdd",
       .family = "qbinary",
       .domain = kMs,
       .qform = "Add",
       .qlayout = QLayout::Binary,
       .quantized = true,
       .takes_activation = true,
       .nhwc = true},
      {.op = "QLinearMul",
       .family = "qbinary",
       .domain = kMs,
       .qform = "Mul",
       .qlayout = QLayout::Binary,
       .quantized = true,
       .nhwc = true},
      {.op = "Relu",
       .family = "eltwise",
       .is_activation = true,
       .int8_runs = true,
       .int8_passthrough = true,
       .nhwc = true},
      {.op = "LeakyRelu",
       .family = "eltwise",
       .qform = "QLinearLeakyRelu",
       .qlayout = QLayout::Unary,
       .int8_runs = true,
       .nhwc = true},
      {.op = "Sigmoid",
       .family = "eltwise",
       .qform = "QLinearSigmoid",
       .qlayout = QLayout::Unary,
       .int8_runs = true,
       .nhwc = true},
      {"Tanh", "eltwise"},
      {.op = "Clip",
       .family = "eltwise",
       .is_activation = true,
       .int8_runs = true,
       .int8_passthrough = true,
       .nhwc = true},
      {"HardSigmoid", "eltwise"},
      {"HardSwish", "eltwise"},
      {.op = "QLinearSigmoid",
       .family = "qunary",
       .domain = kMs,
       .qform = "Sigmoid",
       .qlayout = QLayout::Unary,
       .quantized = true,
       .nhwc = true},
      {.op = "QLinearLeakyRelu",
       .family = "qunary",
       .domain = kMs,
       .qform = "LeakyRelu",
       .qlayout = QLayout::Unary,
       .quantized = true,
       .nhwc = true},
      {.op = "MaxPool",
       .family = "pool",
       .int8_runs = true,
       .int8_passthrough = true,
       .nhwc = true},
      {.op = "AveragePool",
       .family = "pool",
       .qform = "QLinearAveragePool",
       .qlayout = QLayout::Unary,
       .int8_runs = true,
       .nhwc = true},
      {.op = "GlobalAveragePool",
       .family = "pool",
       .qform = "QLinearGlobalAveragePool",
       .qlayout = QLayout::Unary,
       .global_pool = true,
       .int8_runs = true,
       .nhwc = true},
      {.op = "GlobalMaxPool", .family = "pool", .global_pool = true},
      {.op = "QLinearGlobalAveragePool",
       .family = "qgap",
       .domain = kMs,
       .qform = "GlobalAveragePool",
       .qlayout = QLayout::Unary,
       .quantized = true,
       .global_pool = true,
       .nhwc = true},
      {.op = "QLinearAveragePool",
       .family = "qavgpool",
       .domain = kMs,
       .qform = "AveragePool",
       .qlayout = QLayout::Unary,
       .quantized = true,
       .nhwc = true},
      {.op = "Concat",
       .family = "concat",
       .qform = "QLinearConcat",
       .qlayout = QLayout::Concat,
       .int8_runs = true,
       .nhwc = true},
      {.op = "QLinearConcat",
       .family = "qconcat",
       .domain = kMs,
       .qform = "Concat",
       .qlayout = QLayout::Concat,
       .quantized = true,
       .nhwc = true},
      {.op = "Split", .family = "slice_split", .int8_runs = true},
      {.op = "Slice", .family = "slice_split", .int8_runs = true, .int8_passthrough = true},
      {.op = "Resize",
       .family = "resize",
       .int8_runs = true,
       .int8_passthrough = true,
       .nhwc = true},
      {.op = "Upsample", .family = "resize", .legacy_resize = true},
      {.op = "Reshape", .family = "reshape", .int8_runs = true, .int8_passthrough = true},
      {"Flatten", "reshape"},
      {.op = "Squeeze", .family = "reshape", .int8_runs = true, .int8_passthrough = true},
      {.op = "Unsqueeze", .family = "reshape", .int8_runs = true, .int8_passthrough = true},
      {"Identity", "reshape"},
      {"Dropout", "reshape"},
      {.op = "Transpose", .family = "transpose", .int8_runs = true, .int8_passthrough = true},
      {.op = "QuantizeLinear",
       .family = "quantize",
       .fill = {F::Generic, F::Scale, F::Zero},
       .qdq = Qdq::Quantize},
      {.op = "DequantizeLinear",
       .family = "dequantize",
       .fill = {F::Quantized, F::Scale, F::Zero},
       .qdq = Qdq::Dequantize},
      {.op = "BatchNormalization",
       .family = "batchnorm",
       .compile = compile_batch_normalization,
       .params = {1, 2},
       .fill = {F::Generic, F::One, F::Zero, F::Zero, F::One}},
      {"Softmax", "softmax", compile_softmax},
      {"ReduceMean", "reduce", compile_reduce_mean},
      {"LayerNormalization", "layer_norm", compile_layer_normalization},
      {"Gelu", "gelu", compile_gelu},
      {"Pad", "pad", compile_pad},
      {"Erf", "unary_math", compile_erf},
      {"Sqrt", "unary_math", compile_sqrt},
      {"Gather", "gather", compile_gather},
      // Facts only: operators of imported models that the workload and the weight filler know.
      {.op = "ConvTranspose",
       .family = "conv_transpose",
       .runs = false,
       .no_crossbar = "ConvTranspose is not mapped onto crossbars",
       .params = {1, 2},
       .fill = {F::Generic, F::Weight, F::Zero}},
      {.op = "PRelu", .family = "eltwise", .runs = false, .params = {1}},
  };
  return kTable;
}

}  // namespace

const Family* row(std::string_view op_type) {
  for (const Family& f : table())
    if (f.op == op_type) return &f;
  return nullptr;
}

const Family* find(std::string_view op_type) {
  const Family* f = row(op_type);
  return f && f->runs ? f : nullptr;
}

std::vector<std::string_view> operators() {
  std::vector<std::string_view> out;
  for (const Family& f : table())
    if (f.runs) out.push_back(f.op);
  return out;
}

std::optional<QLinearOperands> weighted_operands(std::string_view op_type) {
  const Family* f = row(op_type);
  return f ? f->operands : std::nullopt;
}

GemmView gemm_view(const graph::Node& n) {
  const Family* f = row(n.op_type);
  return f ? f->gemm : GemmView::None;
}

std::optional<OutputQuantization> output_quantization(const Family& f) {
  if (!f.quantized) return std::nullopt;
  switch (f.qlayout) {
    case QLayout::Weighted:
      return OutputQuantization{*f.operands->y_scale, *f.operands->y_zero_point};
    case QLayout::Binary:
      return OutputQuantization{6, 7};
    case QLayout::Unary:
      return OutputQuantization{3, 4};
    case QLayout::Concat:
      return OutputQuantization{0, 1};
    case QLayout::None:
      break;
  }
  return std::nullopt;
}

std::vector<std::string> qlinear_weighted_inputs(const QLinearOperands& to,
                                                 const std::array<std::string, 3>& x,
                                                 const std::array<std::string, 3>& w,
                                                 const std::array<std::string, 2>& y,
                                                 const std::string& bias) {
  const std::pair<std::optional<size_t>, const std::string*> placed[] = {
      {to.x, &x[0]},       {to.x_scale, &x[1]},      {to.x_zero_point, &x[2]},
      {to.w, &w[0]},       {to.w_scale, &w[1]},      {to.w_zero_point, &w[2]},
      {to.y_scale, &y[0]}, {to.y_zero_point, &y[1]}, {to.bias, &bias}};
  std::vector<std::string> ins;
  for (const auto& [at, t] : placed) {
    if (!at) continue;
    if (ins.size() <= *at) ins.resize(*at + 1);
    ins[*at] = *t;
  }
  while (!ins.empty() && ins.back().empty()) ins.pop_back();
  return ins;
}

Qdq qdq_of(std::string_view op_type) {
  const Family* f = row(op_type);
  return f ? f->qdq : Qdq::None;
}

bool computes_int8(std::string_view op_type) {
  if (const Family* f = row(op_type)) return f->quantized;
  return op_type.substr(0, 7) == "QLinear";
}

}  // namespace hetcim::ops
