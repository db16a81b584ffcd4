#include "ops/registry.h"

#include "ops/families.h"

namespace hetcim::ops {
namespace {

const std::vector<Family>& table() {
  // op, family, portable kernel (this folder), run-time inputs. Rows without a kernel are
  // engine-native families (exec/engine.cpp); a family with both (binary, batchnorm) runs the
  // engine's oneDNN or fused kernel when it takes the node and the portable one otherwise.
  static const std::vector<Family> kTable = {
      {"Conv", "conv"},
      {"QLinearConv", "qconv"},
      {"Gemm", "gemm"},
      {"QGemm", "qgemm"},
      {"MatMul", "matmul"},
      {"QLinearMatMul", "qmatmul"},
      {"Add", "binary", compile_binary, {0, 1}},
      {"Sub", "binary", compile_binary, {0, 1}},
      {"Mul", "binary", compile_binary, {0, 1}},
      {"Div", "binary", compile_binary, {0, 1}},
      {"Pow", "binary", compile_binary, {0, 1}},
      {"QLinearAdd", "qbinary"},
      {"QLinearMul", "qbinary"},
      {"Relu", "eltwise"},
      {"LeakyRelu", "eltwise"},
      {"Sigmoid", "eltwise"},
      {"Tanh", "eltwise"},
      {"Clip", "eltwise"},
      {"HardSigmoid", "eltwise"},
      {"HardSwish", "eltwise"},
      {"QLinearSigmoid", "qunary"},
      {"QLinearLeakyRelu", "qunary"},
      {"MaxPool", "pool"},
      {"AveragePool", "pool"},
      {"GlobalAveragePool", "pool"},
      {"GlobalMaxPool", "pool"},
      {"QLinearGlobalAveragePool", "qgap"},
      {"QLinearAveragePool", "qavgpool"},
      {"Concat", "concat"},
      {"QLinearConcat", "qconcat"},
      {"Split", "slice_split"},
      {"Slice", "slice_split"},
      {"Resize", "resize"},
      {"Upsample", "resize"},
      {"Reshape", "reshape"},
      {"Flatten", "reshape"},
      {"Squeeze", "reshape"},
      {"Unsqueeze", "reshape"},
      {"Identity", "reshape"},
      {"Dropout", "reshape"},
      {"Transpose", "transpose"},
      {"QuantizeLinear", "quantize"},
      {"DequantizeLinear", "dequantize"},
      {"BatchNormalization", "batchnorm", compile_batch_normalization},
      {"Softmax", "softmax", compile_softmax},
      {"ReduceMean", "reduce", compile_reduce_mean},
      {"LayerNormalization", "layer_norm", compile_layer_normalization},
      {"Gelu", "gelu", compile_gelu},
      {"Pad", "pad", compile_pad},
      {"Erf", "unary_math", compile_erf},
      {"Sqrt", "unary_math", compile_sqrt},
      {"Gather", "gather", compile_gather},
  };
  return kTable;
}

}  // namespace

const Family* find(std::string_view op_type) {
  for (const Family& f : table())
    if (f.op == op_type) return &f;
  return nullptr;
}

std::vector<std::string_view> operators() {
  std::vector<std::string_view> out;
  for (const Family& f : table()) out.push_back(f.op);
  return out;
}

}  // namespace hetcim::ops
