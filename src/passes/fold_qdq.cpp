#include "passes/fold_qdq.h"

#include <algorithm>
#include <map>
#include <utility>

#include "ops/registry.h"
#include "passes/quantized_ops.h"
#include "passes/rewrite.h"
#include "util/error.h"

namespace hetcim::passes {
namespace {

// A float operator's QLinear form (ops/registry.h: `qform`, `qlayout`), or Passthrough for
// int8 data movement.
struct QForm {
  const ops::Family* to = nullptr;  // nullptr: data movement, the op stays as it is
  ops::QLayout layout = ops::QLayout::None;
};

// (quantized tensor, scale, zero point) read through a DequantizeLinear or written by a
// QuantizeLinear.
struct QTensor {
  std::string data, scale, zero_point;
};

bool same_constant(const graph::Graph& g, const std::string& a, const std::string& b) {
  if (a == b) return true;
  auto ia = g.initializers.find(a), ib = g.initializers.find(b);
  if (ia == g.initializers.end() || ib == g.initializers.end()) return false;
  return ia->second.has_values() && ia->second.raw == ib->second.raw &&
         ia->second.info.dtype == ib->second.info.dtype;
}

}  // namespace

graph::Graph fold_qdq(graph::Graph in) {
  graph::Graph g = std::move(in);
  auto uses = consumers(g);
  std::set<size_t> dead;
  // A zero point left out means 0 of the quantized tensor's type; QLinear ops need it explicit.
  auto zero_point = [&](const graph::Node& qdq, const std::string& quantized) {
    if (qdq.inputs.size() > 2 && !qdq.inputs[2].empty()) return qdq.inputs[2];
    const graph::TensorInfo* ti = g.info(quantized);
    const graph::DType t = ti ? ti->dtype : graph::DType::UInt8;
    const std::string name = fresh_name(g, quantized + ".zero_point");
    graph::Initializer z;
    z.info = {t, graph::Shape{}};
    z.raw.assign(1, 0);
    g.initializers[name] = z;
    return name;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& n = g.nodes[i];
    QForm form;
    const ops::Family* f = ops::row(n.op_type);
    if (f && !f->quantized && f->qlayout != ops::QLayout::None) {
      form = {ops::row(f->qform), f->qlayout};
    } else if (!is_int8_passthrough(n.op_type)) {
      continue;
    }
    if (n.outputs.size() != 1 || !single_use(g, uses, n.outputs[0])) continue;
    const size_t qi = uses.at(n.outputs[0]).front();
    const graph::Node& q = g.nodes[qi];
    if (ops::qdq_of(q.op_type) != ops::Qdq::Quantize || q.inputs.size() < 2) continue;
    const QTensor out{q.outputs.at(0), q.inputs[1], zero_point(q, q.outputs[0])};
    // Data inputs: all of them, except the shape/scale operands of data-movement ops.
    std::vector<size_t> data_inputs;
    if (!form.to) {
      data_inputs = {0};
    } else {
      for (size_t k = 0; k < n.inputs.size(); ++k)
        if (!n.inputs[k].empty()) data_inputs.push_back(k);
    }
    std::vector<QTensor> qin(n.inputs.size());
    bool all_dq = true;
    for (size_t k : data_inputs) {
      const int p = producer(g, n.inputs[k]);
      if (p < 0 || ops::qdq_of(g.nodes[static_cast<size_t>(p)].op_type) != ops::Qdq::Dequantize) {
        all_dq = false;
        break;
      }
      const graph::Node& dq = g.nodes[static_cast<size_t>(p)];
      qin[k] = {dq.inputs.at(0), dq.inputs.at(1), zero_point(dq, dq.inputs[0])};
    }
    if (!all_dq) continue;
    graph::Node r = n;
    r.outputs = {out.data};
    if (!form.to) {
      // Data movement: exact on int8 data only when input and output share their quantization.
      if (!same_constant(g, qin[0].scale, out.scale) ||
          !same_constant(g, qin[0].zero_point, out.zero_point))
        continue;
      r.inputs[0] = qin[0].data;
    }
    switch (form.layout) {
      case ops::QLayout::Weighted: {
        const ops::QLinearOperands& from = *f->operands;
        const bool bias =
            from.bias && n.inputs.size() > *from.bias && !n.inputs[*from.bias].empty();
        const QTensor& x = qin[from.x];
        const QTensor& w = qin[from.w];
        r.inputs = ops::qlinear_weighted_inputs(
            *form.to->operands, {x.data, x.scale, x.zero_point}, {w.data, w.scale, w.zero_point},
            {out.scale, out.zero_point}, bias ? qin[*from.bias].data : "");
        break;
      }
      case ops::QLayout::Binary:
        r.inputs = {qin[0].data,  qin[0].scale,      qin[0].zero_point, qin[1].data,
                    qin[1].scale, qin[1].zero_point, out.scale,         out.zero_point};
        break;
      case ops::QLayout::Unary:
        r.inputs = {qin[0].data, qin[0].scale, qin[0].zero_point, out.scale, out.zero_point};
        break;
      case ops::QLayout::Concat:
        r.inputs = {out.scale, out.zero_point};
        for (size_t k : data_inputs) {
          r.inputs.push_back(qin[k].data);
          r.inputs.push_back(qin[k].scale);
          r.inputs.push_back(qin[k].zero_point);
        }
        break;
      case ops::QLayout::None:
        break;
    }
    if (form.to) {
      r.op_type = std::string(form.to->op);
      r.domain = std::string(form.to->domain);
    }
    g.nodes[i] = std::move(r);
    dead.insert(qi);
    uses = consumers(g);
  }
  // DequantizeLinear nodes nobody reads any more (their op was folded) go too.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& n = g.nodes[i];
    if (ops::qdq_of(n.op_type) == ops::Qdq::Dequantize && !uses.count(n.outputs.at(0)) &&
        std::find(g.outputs.begin(), g.outputs.end(), n.outputs[0]) == g.outputs.end())
      dead.insert(i);
  }
  erase_nodes(g, dead);
  graph::validate(g);
  return g;
}

}  // namespace hetcim::passes
