#include "passes/quantized_ops.h"

#include <set>

#include "ops/registry.h"

namespace hetcim::passes {
namespace {

const std::set<std::string> kPassthrough = {"MaxPool", "Resize",    "Reshape", "Transpose", "Slice",
                                            "Squeeze", "Unsqueeze", "Relu",    "Clip"};
const std::set<std::string> kInt8Kernel = {"Conv",      "Gemm",        "MatMul",
                                           "Add",       "Mul",         "Sigmoid",
                                           "Concat",    "AveragePool", "GlobalAveragePool",
                                           "LeakyRelu", "MaxPool",     "Resize",
                                           "Reshape",   "Transpose",   "Slice",
                                           "Squeeze",   "Unsqueeze",   "Relu",
                                           "Clip",      "Split"};
const std::set<std::string> kNhwc = {"Conv",
                                     "QLinearConv",
                                     "MaxPool",
                                     "AveragePool",
                                     "QLinearAveragePool",
                                     "GlobalAveragePool",
                                     "QLinearGlobalAveragePool",
                                     "Add",
                                     "QLinearAdd",
                                     "Mul",
                                     "QLinearMul",
                                     "Sigmoid",
                                     "QLinearSigmoid",
                                     "Concat",
                                     "QLinearConcat",
                                     "Resize",
                                     "Relu",
                                     "Clip",
                                     "LeakyRelu",
                                     "QLinearLeakyRelu"};

bool quantized_dtype(graph::DType t) {
  return t == graph::DType::Int8 || t == graph::DType::UInt8;
}

}  // namespace

bool has_int8_kernel(const std::string& op) {
  return kInt8Kernel.count(op) != 0;
}
bool is_int8_passthrough(const std::string& op) {
  return kPassthrough.count(op) != 0;
}
bool is_nhwc_capable(const std::string& op) {
  return kNhwc.count(op) != 0;
}

bool is_quantized(const graph::Graph& g, const graph::Node& n) {
  if (const ops::Family* f = ops::row(n.op_type); f && f->quantized) return true;  // QLinear*
  if (n.attr_string("precision", "") == "int8") return true;
  if (ops::qdq_of(n.op_type) != ops::Qdq::None) return false;
  if (!is_int8_passthrough(n.op_type) && n.op_type != "Split") return false;
  const graph::TensorInfo* ti = n.inputs.empty() ? nullptr : g.info(n.inputs[0]);
  return ti && quantized_dtype(ti->dtype);
}

}  // namespace hetcim::passes
