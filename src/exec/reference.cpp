#include "exec/reference.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "exec/reference/context.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

using reference::Context;
using reference::KernelRow;

// The reference kernels by operator: the union of the family files' rows (exec/reference/).
const std::map<std::string_view, KernelRow>& kernels() {
  static const std::map<std::string_view, KernelRow> kTable = [] {
    std::map<std::string_view, KernelRow> t;
    for (auto rows :
         {reference::matmul_conv_kernels, reference::elementwise_kernels,
          reference::pool_reduce_kernels, reference::normalization_kernels,
          reference::layout_kernels, reference::resize_kernels, reference::quantize_kernels})
      for (const KernelRow& r : rows()) {
        if (!t.emplace(r.op, r).second)
          throw internal_error("reference kernel of ", r.op, " registered twice");
      }
    return t;
  }();
  return kTable;
}

void run_node(Context& c, const graph::Node& n) {
  c.start(n);
  const auto& table = kernels();
  if (auto it = table.find(n.op_type);
      it != table.end() && (it->second.any_domain || n.domain.empty()))
    return it->second.run(c);
  c.fail("unsupported operator '" + n.op_type + "'" +
         (n.domain.empty() ? "" : " (domain " + n.domain + ")") + " at opset " +
         std::to_string(c.graph().opset));
}

}  // namespace

void check_inputs(const graph::Graph& g, const TensorMap& inputs) {
  for (const std::string& name : g.inputs) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw user_error("input '", name, "' is missing");
    const graph::TensorInfo* ti = g.info(name);
    if (!ti || !ti->shape)
      throw user_error("input '", name, "' has no declared shape in the model");
    const Tensor& t = it->second;
    bool ok = t.dtype == ti->dtype && t.shape.size() == ti->shape->size();
    for (size_t k = 0; ok && k < t.shape.size(); ++k)
      ok = (*ti->shape)[k] < 0 || (*ti->shape)[k] == t.shape[k];
    if (!ok)
      throw user_error("input '", name, "': expected ", graph::dtype_name(ti->dtype), " ",
                       graph::shape_str(*ti->shape), ", got ", graph::dtype_name(t.dtype), " ",
                       graph::shape_str(t.shape));
    if (t.bytes.size() != static_cast<size_t>(t.numel()) * graph::dtype_size(t.dtype))
      throw user_error("input '", name, "': holds ", t.bytes.size(), " bytes for ",
                       graph::shape_str(t.shape));
  }
  for (const auto& [name, t] : inputs)
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end())
      throw user_error(
          "input '", name, "' is not an input of the model (its inputs: ",
          [&] {
            std::string s;
            for (const auto& i : g.inputs) s += (s.empty() ? "" : ", ") + i;
            return s;
          }(),
          ")");
}

TensorMap run_reference(const graph::Graph& g, const TensorMap& inputs, bool keep_all) {
  check_inputs(g, inputs);
  Context c(g);
  for (const auto& [k, v] : inputs) c.env()[k] = v;
  for (const graph::Node& n : g.nodes) run_node(c, n);
  TensorMap out;
  if (keep_all) {
    out = std::move(c.env());
  } else {
    for (const std::string& o : g.outputs) out[o] = c.get(o);
  }
  return out;
}

}  // namespace hetcim::exec
