#include "passes/quantized_ops.h"

#include "ops/registry.h"

namespace hetcim::passes {
namespace {

bool quantized_dtype(graph::DType t) {
  return t == graph::DType::Int8 || t == graph::DType::UInt8;
}

}  // namespace

// The registry rows say (ops/registry.h: int8_runs, int8_passthrough, nhwc).
bool has_int8_kernel(const std::string& op) {
  const ops::Family* f = ops::row(op);
  return f && f->int8_runs;
}
bool is_int8_passthrough(const std::string& op) {
  const ops::Family* f = ops::row(op);
  return f && f->int8_passthrough;
}
bool is_nhwc_capable(const std::string& op) {
  const ops::Family* f = ops::row(op);
  return f && f->nhwc;
}

bool is_quantized(const graph::Graph& g, const graph::Node& n) {
  if (const ops::Family* f = ops::row(n.op_type); f && f->quantized) return true;  // QLinear*
  if (n.attr_string("precision", "") == "int8") return true;
  if (ops::qdq_of(n.op_type) != ops::Qdq::None) return false;
  // Data movement on int8 data (runs in int8 without a QLinear form: MaxPool, Reshape, Split, ...).
  const ops::Family* f = ops::row(n.op_type);
  if (!f || !f->int8_runs || f->qlayout != ops::QLayout::None) return false;
  const graph::TensorInfo* ti = n.inputs.empty() ? nullptr : g.info(n.inputs[0]);
  return ti && quantized_dtype(ti->dtype);
}

}  // namespace hetcim::passes
