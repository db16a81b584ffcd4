#include "exec/reference.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exec/reference/context.h"
#include "ops/registry.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

using reference::Context;
using reference::KernelRow;

// The reference kernels by operator: the union of the family files' rows (exec/reference/), and
// the registry rows that hold their own (ops::Family::reference, run by run_row_reference).
const std::map<std::string_view, KernelRow>& kernels() {
  static const std::map<std::string_view, KernelRow> kTable = [] {
    std::map<std::string_view, KernelRow> t;
    for (auto rows :
         {reference::matmul_conv_kernels, reference::elementwise_kernels,
          reference::pool_reduce_kernels, reference::normalization_kernels,
          reference::layout_kernels, reference::resize_kernels, reference::quantize_kernels})
      for (const KernelRow& r : rows()) {
        const ops::Family* f = ops::row(r.op);
        if (!t.emplace(r.op, r).second || (f && f->reference))
          throw internal_error("reference kernel of ", r.op, " registered twice");
      }
    return t;
  }();
  return kTable;
}

// A registry row's own reference kernel (ops/kernel.h's interface, as the engine runs a portable
// kernel): the inputs the row reads at run time as float32 buffers, every initializer handed over
// as a constant, float32 outputs of the shapes shape inference gave.
void run_row_reference(Context& c, const graph::Node& n, const ops::Family& f) {
  ops::KernelInput k{n, c.graph().opset, {}, {}, {}};
  std::vector<bool> activation(n.inputs.size(), false);
  for (size_t i : f.activations.empty() ? std::vector<size_t>{0} : f.activations)
    if (i < activation.size()) activation[i] = true;
  std::vector<ops::Constant> constants(n.inputs.size());
  std::vector<const float*> in(n.inputs.size(), nullptr);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    k.shapes.emplace_back();
    k.constants.push_back(nullptr);
    if (n.inputs[i].empty()) continue;
    const Tensor& t = c.get(n.inputs[i]);
    k.shapes.back() = t.shape;
    if (c.graph().is_initializer(n.inputs[i])) {
      constants[i].shape = t.shape;
      for (int64_t e = 0; e < t.numel(); ++e) constants[i].values.push_back(t.at(e));
      k.constants.back() = &constants[i];
    } else if (!activation[i]) {
      c.fail("input " + std::to_string(i) + " '" + n.inputs[i] + "' must be a constant");
    }
    if (activation[i]) in[i] = c.float_in(i).data<float>();
  }
  for (size_t o = 0; o < n.outputs.size(); ++o)
    k.out_shapes.push_back(n.outputs[o].empty() ? graph::Shape{} : c.out_shape(o));
  const ops::Run run = f.reference(k);
  std::vector<Tensor> outs(n.outputs.size());
  std::vector<float*> out(n.outputs.size(), nullptr);
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    if (n.outputs[o].empty()) continue;
    outs[o] = Tensor::zeros(graph::DType::Float32, k.out_shapes[o]);
    out[o] = outs[o].data<float>();
  }
  run(in, out);
  for (size_t o = 0; o < n.outputs.size(); ++o)
    if (!n.outputs[o].empty()) c.set(o, std::move(outs[o]));
}

// n's kernel row of exec/reference/, or nullptr.
const KernelRow* kernel_row(const graph::Node& n) {
  const auto& table = kernels();
  const auto it = table.find(n.op_type);
  return it != table.end() && (it->second.any_domain || n.domain.empty()) ? &it->second : nullptr;
}

// n's registry row when it holds n's reference kernel (default domain only), or nullptr.
const ops::Family* row_with_reference(const graph::Node& n) {
  const ops::Family* f = ops::find(n.op_type);
  return f && f->reference && n.domain.empty() ? f : nullptr;
}

void run_node(Context& c, const graph::Node& n) {
  c.start(n);
  if (const KernelRow* r = kernel_row(n)) return r->run(c);
  if (const ops::Family* f = row_with_reference(n)) return run_row_reference(c, n, *f);
  c.fail("unsupported operator '" + n.op_type + "'" +
         (n.domain.empty() ? "" : " (domain " + n.domain + ")") + " at opset " +
         std::to_string(c.graph().opset));
}

}  // namespace

bool reference_runs(const graph::Node& n) {
  return kernel_row(n) || row_with_reference(n);
}

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
