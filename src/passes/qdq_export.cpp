#include "passes/qdq_export.h"

#include <set>

#include "ops/registry.h"
#include "passes/layout_nhwc.h"
#include "passes/rewrite.h"
#include "util/error.h"

namespace hetcim::passes {
namespace {

using graph::DType;

class QdqWriter {
 public:
  explicit QdqWriter(const graph::Graph& in) : src_(in), g_(in) {}

  graph::Graph run() {
    g_.nodes.clear();
    g_.opset = std::max<int64_t>(g_.opset, 13);
    // Layout transposes are identities: readers use their input instead.
    std::map<std::string, std::string> alias;
    auto resolve = [&](std::string t) {
      while (alias.count(t)) t = alias[t];
      return t;
    };
    for (const graph::Node& n : src_.nodes)
      if (is_layout_transpose(n)) alias[n.outputs.at(0)] = n.inputs.at(0);
    for (graph::Node n : src_.nodes) {
      if (is_layout_transpose(n)) continue;
      for (std::string& t : n.inputs)
        if (!t.empty()) t = resolve(t);
      node_ = &n;
      expand(n);
    }
    for (std::string& o : g_.outputs) {
      const std::string r = resolve(o);
      if (r != o) {
        // Keep the graph output's name: an Identity from the aliased tensor.
        g_.nodes.push_back({fresh_name(g_, o + "/Identity"), "Identity", "", {r}, {o}, {}});
      }
    }
    // Drop value infos and initializers nobody uses any more.
    std::set<std::string> used(g_.inputs.begin(), g_.inputs.end());
    for (const graph::Node& n : g_.nodes) {
      used.insert(n.inputs.begin(), n.inputs.end());
      used.insert(n.outputs.begin(), n.outputs.end());
    }
    for (auto it = g_.initializers.begin(); it != g_.initializers.end();)
      it = used.count(it->first) ? std::next(it) : g_.initializers.erase(it);
    for (auto it = g_.values.begin(); it != g_.values.end();)
      it = used.count(it->first) ? std::next(it) : g_.values.erase(it);
    graph::validate(g_);
    return g_;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw user_error("node '", node_->name, "' (", node_->op_type, "): ", what);
  }
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int k = 1; taken(name); ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }
  bool taken(const std::string& s) {
    return names_.count(s) || src_.values.count(s) || src_.initializers.count(s) ||
           g_.initializers.count(s) || src_.node_index(s) >= 0;
  }
  const graph::Shape& shape_of(const std::string& t) { return src_.shape_of(t, node_->name); }

  // DequantizeLinear of (t, s, z) for the node being expanded; returns the float tensor.
  std::string dq(const std::string& t, const std::string& s, const std::string& z,
                 int64_t axis = -1) {
    const std::string out = fresh(t + "_dq");
    graph::Node d{
        fresh(node_->name + "/DequantizeLinear_" + t), "DequantizeLinear", "", {t, s}, {out}, {}};
    if (!z.empty()) d.inputs.push_back(z);
    if (axis >= 0) d.attrs["axis"] = axis;
    g_.nodes.push_back(d);
    const graph::TensorInfo* ti = src_.info(t);
    g_.values[out] = {DType::Float32, ti ? ti->shape : std::nullopt};
    return out;
  }
  // A zero point of `dtype` with the same number of values as scale `s`.
  std::string zeros_like(const std::string& s, DType dtype) {
    const graph::Initializer& sc = g_.initializers.at(s);
    graph::Initializer z = graph::Initializer::shape_only(dtype, *sc.info.shape);
    z.raw.assign(static_cast<size_t>(std::max<int64_t>(1, graph::element_count(*sc.info.shape))) *
                     graph::dtype_size(dtype),
                 0);
    return add_init(s + "_zero", z);
  }
  std::string add_init(const std::string& base, graph::Initializer init) {
    const std::string name = fresh(base);
    g_.initializers[name] = std::move(init);
    return name;
  }
  // Per-channel scale tensor `s` (1 value or N) -> axis for DQ, or -1 when per tensor.
  int64_t axis_for(const std::string& s, int64_t axis) {
    return graph::element_count(*g_.initializers.at(s).info.shape) > 1 ||
                   !g_.initializers.at(s).info.shape->empty()
               ? axis
               : -1;
  }
  // Float op output, then the fused activation, then QuantizeLinear into the original tensor.
  void finish(graph::Node op, const std::string& y, const std::string& sy, const std::string& zy) {
    const std::string act = op.attr_string("activation", "");
    const double lo = op.attr_float("activation_min", 0), hi = op.attr_float("activation_max", 0);
    op.attrs.erase("activation");
    op.attrs.erase("activation_min");
    op.attrs.erase("activation_max");
    op.attrs.erase("channels_last");
    const graph::TensorInfo* yi = src_.info(y);
    std::string f = fresh(y + "_float");
    g_.values[f] = {DType::Float32, yi ? yi->shape : std::nullopt};
    op.outputs = {f};
    g_.nodes.push_back(op);
    if (!act.empty()) {
      const std::string a = fresh(y + "_activated");
      g_.values[a] = {DType::Float32, yi ? yi->shape : std::nullopt};
      graph::Node an{fresh(op.name + "/" + act), act, "", {f}, {a}, {}};
      if (act == "Clip") {
        an.inputs.push_back(add_init(
            op.name + "/clip_min", graph::Initializer::from_floats({}, {static_cast<float>(lo)})));
        an.inputs.push_back(add_init(
            op.name + "/clip_max", graph::Initializer::from_floats({}, {static_cast<float>(hi)})));
      }
      g_.nodes.push_back(an);
      f = a;
    }
    g_.nodes.push_back(
        {fresh(op.name + "/QuantizeLinear"), "QuantizeLinear", "", {f, sy, zy}, {y}, {}});
  }
  std::string bias_dq(const std::string& b, float sx, const std::string& sw) {
    const std::vector<float> w = g_.initializers.at(sw).floats();
    std::vector<float> s(w.size());
    for (size_t c = 0; c < w.size(); ++c) s[c] = sx * w[c];
    const std::string sname = add_init(
        b + "_scale", graph::Initializer::from_floats({static_cast<int64_t>(s.size())}, s));
    return dq(b, sname, zeros_like(sname, DType::Int32), 0);
  }
  float scalar(const std::string& s) { return g_.initializers.at(s).floats().at(0); }

  // A QLinear operator -> its float form (the registry's `qform`) between DequantizeLinears of its
  // operands and a QuantizeLinear of its output; every other operator as it is.
  void expand(const graph::Node& n) {
    const auto& in = n.inputs;
    const ops::Family* q = ops::row(n.op_type);
    const auto yq = q ? ops::output_quantization(*q) : std::nullopt;
    if (!yq) {
      if (!n.domain.empty()) fail("no QDQ form for this operator");
      if (n.has_attr("activation"))
        fail("a fused activation on a float operator has no QDQ form here");
      g_.nodes.push_back(n);
      return;
    }
    if (in.size() <= yq->zero_point)
      fail(n.op_type + " without an output scale (float output) is not exported");
    graph::Node f = n;
    f.domain = "";
    f.op_type = std::string(q->qform);
    switch (q->qlayout) {
      case ops::QLayout::Weighted: {
        const ops::QLinearOperands& o = *q->operands;
        // The weight's output-channel axis: a convolution's first, a Gemm's by transB, a
        // MatMul's last.
        int64_t axis = 0;
        if (q->gemm == ops::GemmView::Gemm) axis = n.attr_int("transB", 0) != 0 ? 0 : 1;
        if (q->gemm == ops::GemmView::MatMul)
          axis = static_cast<int64_t>(shape_of(in[o.w]).size()) - 1;
        f.inputs = {
            dq(in[o.x], in[*o.x_scale], in[*o.x_zero_point]),
            dq(in[o.w], in[*o.w_scale], in[*o.w_zero_point], axis_for(in[*o.w_scale], axis))};
        if (o.bias && in.size() > *o.bias && !in[*o.bias].empty())
          f.inputs.push_back(bias_dq(in[*o.bias], scalar(in[*o.x_scale]), in[*o.w_scale]));
        break;
      }
      case ops::QLayout::Binary:
        f.inputs = {dq(in[0], in[1], in[2]), dq(in[3], in[4], in[5])};
        break;
      case ops::QLayout::Unary:
        f.inputs = {dq(in[0], in[1], in[2])};
        break;
      case ops::QLayout::Concat:
        f.inputs.clear();
        for (size_t i = 2; i + 2 < in.size(); i += 3)
          f.inputs.push_back(dq(in[i], in[i + 1], in[i + 2]));
        break;
      case ops::QLayout::None:
        fail("no QDQ form for this operator");
    }
    finish(f, n.outputs.at(0), in[yq->scale], in[yq->zero_point]);
  }

  const graph::Graph& src_;
  graph::Graph g_;
  std::set<std::string> names_;
  const graph::Node* node_ = nullptr;
};

}  // namespace

graph::Graph to_qdq(const graph::Graph& g) {
  return QdqWriter(g).run();
}

}  // namespace hetcim::passes
