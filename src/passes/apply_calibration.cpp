#include "passes/apply_calibration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "graph/node_errors.h"
#include "ops/quantize.h"
#include "ops/registry.h"
#include "passes/quantized_ops.h"
#include "passes/rewrite.h"
#include "util/error.h"

namespace hetcim::passes {
namespace {

using graph::DType;
using ops::activation_params;
using ops::quantize_value;
using ops::QuantParams;
using ops::weight_params;

bool has_input(const graph::Node& n, size_t i) {
  return i < n.inputs.size() && !n.inputs[i].empty();
}

[[noreturn]] void fail(const graph::Node& n, const std::string& what) {
  throw graph::node_error(n, what);
}

graph::Initializer scalar_float(float v) {
  return graph::Initializer::from_floats({}, {v});
}
graph::Initializer scalar_u8(int32_t v) {
  graph::Initializer i = graph::Initializer::shape_only(DType::UInt8, {});
  i.raw = {static_cast<uint8_t>(v)};
  return i;
}

QuantParams read_params(const graph::Graph& g, const std::string& scale, const std::string& zp) {
  QuantParams p;
  auto s = g.initializers.find(scale);
  HETCIM_ASSERT(s != g.initializers.end() && s->second.has_values(), "scale '", scale,
                "' has no values");
  p.scale = s->second.floats().at(0);
  p.zero_point = 0;
  p.dtype = DType::UInt8;
  if (!zp.empty()) {
    auto z = g.initializers.find(zp);
    HETCIM_ASSERT(z != g.initializers.end(), "zero point '", zp, "' missing");
    p.dtype = z->second.info.dtype;
    if (z->second.has_values()) p.zero_point = static_cast<int32_t>(z->second.ints().at(0));
  }
  return p;
}

class Calibrator {
 public:
  Calibrator(const graph::Graph& in, const Ranges& r) : g_(in), ranges_(r) {}

  graph::Graph run() {
    for (graph::Node& n : g_.nodes) {
      node_ = &n;
      visit(n);
    }
    graph::validate(g_);
    return g_;
  }

 private:
  const TensorRange& range(const std::string& t) {
    auto it = ranges_.find(t);
    if (it == ranges_.end()) fail(*node_, "no calibration range for tensor '" + t + "'");
    return it->second;
  }
  QuantParams act_params(const std::string& t) {
    const TensorRange& r = range(t);
    return activation_params(r.lo, r.hi);
  }
  const QuantParams& qp(const std::string& t) {
    auto it = qp_.find(t);
    if (it == qp_.end())
      fail(*node_, "tensor '" + t + "' is quantized but its quantization is unknown");
    return it->second;
  }
  bool shape_only(const std::string& t) {
    auto it = g_.initializers.find(t);
    return it != g_.initializers.end() && !it->second.has_values();
  }
  std::string add_init(const std::string& base, graph::Initializer init) {
    const std::string name = fresh_name(g_, base);
    g_.initializers[name] = std::move(init);
    return name;
  }
  std::string scale_init(const std::string& base, float s) {
    return add_init(base, scalar_float(s));
  }
  std::string zp_init(const std::string& base, int32_t z) { return add_init(base, scalar_u8(z)); }
  // (tensor, scale, zero point) names of a quantized activation input; a float constant is
  // quantized to uint8 with its own range first.
  std::array<std::string, 3> qinput(const std::string& t) {
    auto it = g_.initializers.find(t);
    if (it != g_.initializers.end() && (it->second.info.dtype == DType::Float32)) {
      const std::vector<float> v = it->second.floats();
      if (v.empty()) fail(*node_, "constant '" + t + "' has no values");
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      const QuantParams p = activation_params(*lo, *hi);
      graph::Initializer q = graph::Initializer::shape_only(DType::UInt8, *it->second.info.shape);
      q.raw.resize(v.size());
      for (size_t i = 0; i < v.size(); ++i)
        q.raw[i] = static_cast<uint8_t>(quantize_value(v[i], p.scale, p.zero_point, {0, 255}));
      const std::string qt = add_init(t + "_quantized", q);
      return {qt, scale_init(t + "_scale", p.scale), zp_init(t + "_zero_point", p.zero_point)};
    }
    const QuantParams& p = qp(t);
    if (p.dtype != DType::UInt8) fail(*node_, "input '" + t + "' must be uint8");
    return {t, scale_init(t + "_scale", p.scale), zp_init(t + "_zero_point", p.zero_point)};
  }
  std::array<std::string, 2> qoutput(const std::string& t) {
    const QuantParams p = act_params(t);
    qp_[t] = p;
    return {scale_init(t + "_scale", p.scale), zp_init(t + "_zero_point", p.zero_point)};
  }

  // Symmetric int8 per output channel. `oc_axis`: 0 for Conv weights and Gemm with transB=1,
  // the last axis for a (K, N) B. Returns (weights, scales) names and the scales.
  std::vector<float> quantize_weight(const std::string& w, size_t oc_axis, std::string& wq_name,
                                     std::string& scale_name, std::string& zp_name) {
    auto it = g_.initializers.find(w);
    if (it == g_.initializers.end() || !it->second.has_values())
      fail(*node_, "the weight '" + w + "' must be a constant with values");
    const graph::Initializer& init = it->second;
    const graph::Shape& s = *init.info.shape;
    const std::vector<float> v = init.floats();
    const int64_t oc = s[oc_axis];
    int64_t inner = 1;
    for (size_t k = oc_axis + 1; k < s.size(); ++k) inner *= s[k];
    std::vector<float> maxabs(static_cast<size_t>(oc), 0.0f);
    for (size_t i = 0; i < v.size(); ++i) {
      const size_t c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % oc);
      maxabs[c] = std::max(maxabs[c], std::fabs(v[i]));
    }
    std::vector<float> scales(static_cast<size_t>(oc));
    for (size_t c = 0; c < scales.size(); ++c) scales[c] = weight_params(maxabs[c]).scale;
    graph::Initializer q = graph::Initializer::shape_only(DType::Int8, s);
    q.raw.resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const size_t c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % oc);
      q.raw[i] = static_cast<uint8_t>(
          static_cast<int8_t>(quantize_value(v[i], scales[c], 0, {-128, 127})));
    }
    wq_name = add_init(w + "_quantized", q);
    scale_name = add_init(w + "_scale", graph::Initializer::from_floats({oc}, scales));
    graph::Initializer z = graph::Initializer::shape_only(DType::Int8, {oc});
    z.raw.assign(static_cast<size_t>(oc), 0);
    zp_name = add_init(w + "_zero_point", z);
    return scales;
  }
  std::string quantize_bias(const std::string& b, float sx, const std::vector<float>& sw) {
    auto it = g_.initializers.find(b);
    if (it == g_.initializers.end() || !it->second.has_values())
      fail(*node_, "the bias '" + b + "' must be a constant with values");
    const std::vector<float> v = it->second.floats();
    if (v.size() != sw.size() && sw.size() != 1)
      fail(*node_, "bias length does not match the output channels");
    graph::Initializer q =
        graph::Initializer::shape_only(DType::Int32, {static_cast<int64_t>(v.size())});
    q.raw.resize(v.size() * 4);
    for (size_t c = 0; c < v.size(); ++c) {
      const double r = std::nearbyint(static_cast<double>(v[c]) /
                                      static_cast<double>(sx * sw[sw.size() == 1 ? 0 : c]));
      const int32_t qv = static_cast<int32_t>(std::clamp(r, -2147483648.0, 2147483647.0));
      std::memcpy(q.raw.data() + 4 * c, &qv, 4);
    }
    return add_init(b + "_quantized", q);
  }

  void visit(graph::Node& n) {
    // Boundary QuantizeLinear / DequantizeLinear: their own table (their scales are filled).
    static const std::map<std::string_view, void (Calibrator::*)(graph::Node&)> kBoundary = {
        {"QuantizeLinear", &Calibrator::quantize_linear},
        {"DequantizeLinear", &Calibrator::dequantize_linear}};
    if (auto it = kBoundary.find(n.op_type); it != kBoundary.end()) return (this->*it->second)(n);
    const bool annotated = n.attr_string("precision", "") == "int8";
    if (!annotated) {
      record_existing(n);
      return;
    }
    n.attrs.erase("precision");
    const std::string& op = n.op_type;
    const ops::Family* f = ops::row(op);
    if (has_int8_kernel(op) && (!f || f->qlayout == ops::QLayout::None)) {
      // Data movement in int8 (no QLinear form): the input's quantization passes on.
      if (f && f->is_activation)
        fail(n, "a standalone int8 " + op + " (not fused into its producer) is not supported");
      const QuantParams p = qp(n.inputs.at(0));
      for (const std::string& o : n.outputs) qp_[o] = p;
      return;
    }
    const ops::Family* q = f && !f->quantized ? ops::row(f->qform) : nullptr;
    if (!q) fail(n, "hetcim cannot quantize this operator to int8");
    const std::string y = n.outputs.at(0);
    switch (f->qlayout) {
      case ops::QLayout::Weighted:
        weighted(n, *f, *q);
        break;
      case ops::QLayout::Binary: {
        const auto a = qinput(n.inputs.at(0));
        const auto b = qinput(n.inputs.at(1));
        const auto out = qoutput(y);
        n.inputs = {a[0], a[1], a[2], b[0], b[1], b[2], out[0], out[1]};
        break;
      }
      case ops::QLayout::Unary: {
        const auto x = qinput(n.inputs.at(0));
        const auto out = qoutput(y);
        n.inputs = {x[0], x[1], x[2], out[0], out[1]};
        break;
      }
      case ops::QLayout::Concat: {
        const auto out = qoutput(y);
        std::vector<std::string> ins = {out[0], out[1]};
        for (const std::string& t : n.inputs) {
          const auto x = qinput(t);
          ins.insert(ins.end(), x.begin(), x.end());
        }
        n.inputs = ins;
        break;
      }
      case ops::QLayout::None:
        fail(n, "hetcim cannot quantize this operator to int8");
    }
    n.op_type = std::string(q->op);
    n.domain = std::string(q->domain);
  }

  void quantize_linear(graph::Node& n) {
    const std::string& x = n.inputs.at(0);
    QuantParams p;
    if (shape_only(n.inputs.at(1))) {
      p = act_params(x);
      g_.initializers[n.inputs[1]] = scalar_float(p.scale);
      if (n.inputs.size() > 2 && !n.inputs[2].empty())
        g_.initializers[n.inputs[2]] = scalar_u8(p.zero_point);
    } else {
      p = read_params(g_, n.inputs[1], n.inputs.size() > 2 ? n.inputs[2] : "");
    }
    qp_[n.outputs.at(0)] = p;
  }

  void dequantize_linear(graph::Node& n) {
    if (shape_only(n.inputs.at(1))) {
      const QuantParams& p = qp(n.inputs.at(0));
      g_.initializers[n.inputs[1]] = scalar_float(p.scale);
      if (n.inputs.size() > 2 && !n.inputs[2].empty())
        g_.initializers[n.inputs[2]] = scalar_u8(p.zero_point);
    }
  }

  // Conv -> QLinearConv, Gemm -> QGemm, MatMul -> QLinearMatMul: the weight quantized per output
  // channel (its axis by the GEMM view), the bias to int32, every operand placed where the QLinear
  // row's operand positions say.
  void weighted(graph::Node& n, const ops::Family& f, const ops::Family& q) {
    const ops::QLinearOperands& from = *f.operands;
    const bool gemm = f.gemm == ops::GemmView::Gemm;
    if (gemm && (n.attr_float("alpha", 1.0) != 1.0 || n.attr_float("beta", 1.0) != 1.0 ||
                 n.attr_int("transA", 0) != 0))
      fail(n, "int8 Gemm needs alpha = beta = 1 and transA = 0");
    const auto x = qinput(n.inputs.at(from.x));
    const std::string& wt = n.inputs.at(from.w);
    std::array<std::string, 3> w;
    std::vector<float> sw;
    switch (f.gemm) {
      case ops::GemmView::Conv:
        sw = quantize_weight(wt, 0, w[0], w[1], w[2]);
        break;
      case ops::GemmView::Gemm:
        sw = quantize_weight(wt, n.attr_int("transB", 0) != 0 ? 0 : 1, w[0], w[1], w[2]);
        break;
      case ops::GemmView::MatMul:
        if (g_.is_initializer(wt)) {
          const graph::Shape& bs = *g_.initializers.at(wt).info.shape;
          (void)quantize_weight(wt, bs.size() - 1, w[0], w[1], w[2]);
        } else {
          w = qinput(wt);
        }
        break;
      case ops::GemmView::None:
        fail(n, "hetcim cannot quantize this operator to int8");
    }
    std::string bq;
    if (from.bias) {
      const float sx = qp(n.inputs[from.x]).scale;
      if (has_input(n, *from.bias)) {
        if (gemm) {
          const graph::Shape& cs = *g_.initializers.at(n.inputs[*from.bias]).info.shape;
          if (graph::element_count(cs) != static_cast<int64_t>(sw.size()))
            fail(n, "int8 Gemm needs a bias of length N");
        }
        bq = quantize_bias(n.inputs[*from.bias], sx, sw);
      }
    }
    const auto out = qoutput(n.outputs.at(0));
    n.inputs = ops::qlinear_weighted_inputs(*q.operands, x, w, out, bq);
  }

  // An operator that was already quantized (a QDQ model): its output quantization is known.
  void record_existing(const graph::Node& n) {
    std::string s, z;
    const ops::Family* f = ops::row(n.op_type);
    if (const auto at = f && f->quantized ? ops::output_quantization(*f) : std::nullopt) {
      s = n.inputs.size() > at->scale ? n.inputs[at->scale] : "";
      z = n.inputs.size() > at->zero_point ? n.inputs[at->zero_point] : "";
    } else if (!n.inputs.empty() && qp_.count(n.inputs[0])) {
      // Data movement on a quantized tensor.
      for (const std::string& o : n.outputs) qp_[o] = qp_[n.inputs[0]];
      return;
    }
    if (!s.empty() && g_.is_initializer(s) && g_.initializers.at(s).has_values())
      qp_[n.outputs.at(0)] = read_params(g_, s, z);
  }

  graph::Graph g_;
  const Ranges& ranges_;
  std::map<std::string, QuantParams> qp_;
  graph::Node* node_ = nullptr;
};

}  // namespace

graph::Graph apply_calibration(const graph::Graph& int8_lowered, const Ranges& ranges) {
  return Calibrator(int8_lowered, ranges).run();
}

}  // namespace hetcim::passes
