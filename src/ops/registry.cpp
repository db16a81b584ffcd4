#include "ops/registry.h"

#include "ops/families.h"
#include "util/error.h"

namespace hetcim::ops {
namespace {

// The union of the family files' rows (families.h), in this order: executed operators keep the
// order `operators()` lists them in.
const std::vector<Family>& table() {
  static const std::vector<Family> kTable = [] {
    std::vector<Family> t;
    for (auto rows :
         {conv_family,       matmul_family,     binary_family,        eltwise_family,
          pool_family,       concat_family,     slice_split_family,   resize_family,
          layout_family,     quantize_family,   normalization_family, softmax_family,
          reduce_family,     layer_norm_family, gelu_family,          pad_family,
          unary_math_family, gather_family,     logical_family,       shape_ops_family}) {
      for (Family& f : rows()) {
        for (const Family& seen : t)
          if (seen.op == f.op) throw internal_error("operator ", f.op, " has two registry rows");
        // The oracle must not be the kernel it checks.
        if (f.reference && f.reference == f.compile)
          throw internal_error("operator ", f.op, ": its reference kernel is its engine kernel");
        t.push_back(std::move(f));
      }
    }
    return t;
  }();
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
