#include "exec/reference.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "exec/op_params.h"
#include "exec/quantize.h"
#include "exec/resize.h"
#include "graph/node_errors.h"
#include "graph/qlinear_operands.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

using graph::DType;
using graph::Shape;

[[noreturn]] void fail(const graph::Node& n, const std::string& what) {
  throw graph::node_error(n, what);
}

float sigmoidf(float v) {
  return 1.0f / (1.0f + std::exp(-v));
}

// Row-major strides of a shape.
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Calls f(out_index, in_index_0, in_index_1) for every element of `out` with numpy broadcasting.
void broadcast2(const Shape& out, const Shape& a, const Shape& b,
                const std::function<void(int64_t, int64_t, int64_t)>& f) {
  const auto sa = broadcast_strides(a, out), sb = broadcast_strides(b, out);
  const int64_t total = graph::element_count(out);
  std::vector<int64_t> idx(out.size(), 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < total; ++i) {
    f(i, ia, ib);
    for (size_t k = out.size(); k-- > 0;) {
      ++idx[k];
      ia += sa[k];
      ib += sb[k];
      if (idx[k] < out[k]) break;
      ia -= sa[k] * out[k];
      ib -= sb[k] * out[k];
      idx[k] = 0;
    }
  }
}

class Interpreter {
 public:
  Interpreter(const graph::Graph& g) : g_(g) {}

  TensorMap run(const TensorMap& inputs, bool keep_all) {
    check_inputs(g_, inputs);
    for (const auto& [k, v] : inputs) env_[k] = v;
    for (const graph::Node& n : g_.nodes) {
      node_ = &n;
      exec(n);
    }
    TensorMap out;
    if (keep_all) {
      out = std::move(env_);
    } else {
      for (const std::string& o : g_.outputs) out[o] = get(o);
    }
    return out;
  }

 private:
  const Tensor& get(const std::string& t) {
    if (auto it = env_.find(t); it != env_.end()) return it->second;
    auto init = g_.initializers.find(t);
    if (init == g_.initializers.end()) fail(*node_, "tensor '" + t + "' has not been computed");
    return env_[t] = Tensor::from_initializer(init->second, t);
  }
  const Tensor& in(size_t i) {
    if (!has_input(*node_, i)) fail(*node_, "input " + std::to_string(i) + " is required");
    return get(node_->inputs[i]);
  }
  Shape out_shape(size_t i = 0) { return known_shape(g_, *node_, node_->outputs.at(i)); }
  DType out_dtype(size_t i, DType fallback) {
    const graph::TensorInfo* ti = g_.info(node_->outputs.at(i));
    return ti ? ti->dtype : fallback;
  }
  Tensor& set(size_t i, Tensor t) { return env_[node_->outputs.at(i)] = std::move(t); }
  float scalar_f(size_t i) {
    const Tensor& t = in(i);
    if (t.numel() != 1)
      fail(*node_, "input " + std::to_string(i) + " must be a scalar (per-tensor)");
    return static_cast<float>(t.at(0));
  }
  int32_t scalar_zp(size_t i) {
    if (!has_input(*node_, i)) return 0;
    const Tensor& t = in(i);
    if (t.numel() != 1)
      fail(*node_, "input " + std::to_string(i) + " must be a scalar (per-tensor)");
    return static_cast<int32_t>(t.at(0));
  }
  // Per-channel or per-tensor values of input i, expanded to `count`.
  std::vector<float> per_channel_f(size_t i, int64_t count) {
    const Tensor& t = in(i);
    if (t.numel() == 1)
      return std::vector<float>(static_cast<size_t>(count), static_cast<float>(t.at(0)));
    if (t.numel() != count)
      fail(*node_, "input " + std::to_string(i) + " has " + std::to_string(t.numel()) +
                       " values, expected 1 or " + std::to_string(count));
    return t.floats();
  }
  std::vector<int32_t> per_channel_zp(size_t i, int64_t count) {
    std::vector<int32_t> out(static_cast<size_t>(count), 0);
    if (!has_input(*node_, i)) return out;
    const Tensor& t = in(i);
    // Length first: a shorter zero point must not be read past its end.
    if (t.numel() != 1 && t.numel() != count)
      fail(*node_, "input " + std::to_string(i) + " (zero point) has " + std::to_string(t.numel()) +
                       " values, expected 1 or " + std::to_string(count));
    for (int64_t k = 0; k < count; ++k)
      out[static_cast<size_t>(k)] = static_cast<int32_t>(t.at(t.numel() == 1 ? 0 : k));
    return out;
  }

  void exec(const graph::Node& n) {
    const std::string& op = n.op_type;
    if (op == "Conv") return conv();
    if (op == "QLinearConv") return qconv();
    if (op == "Gemm") return gemm();
    if (op == "QGemm") return qgemm();
    if (op == "MatMul") return matmul(false);
    if (op == "QLinearMatMul") return matmul(true);
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow") return binary();
    if (op == "QLinearAdd" || op == "QLinearMul") return qbinary();
    if (op == "Relu" || op == "LeakyRelu" || op == "Sigmoid" || op == "Tanh" || op == "Clip" ||
        op == "HardSigmoid" || op == "HardSwish")
      return unary();
    if (op == "QLinearSigmoid" || op == "QLinearLeakyRelu") return qunary();
    if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
        op == "GlobalMaxPool")
      return pool();
    if (op == "QLinearAveragePool" || op == "QLinearGlobalAveragePool") return qpool();
    if (op == "Concat") return concat();
    if (op == "QLinearConcat") return qconcat();
    if (op == "Split") return split();
    if (op == "Slice") return slice();
    if (op == "Resize" || op == "Upsample") return resize();
    if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
        op == "Identity" || op == "Dropout")
      return reshape();
    if (op == "Transpose") return transpose();
    if (op == "Softmax") return softmax();
    if (op == "QuantizeLinear") return quantize_linear();
    if (op == "DequantizeLinear") return dequantize_linear();
    if (n.domain.empty()) {
      if (op == "ReduceMean") return reduce_mean();
      if (op == "BatchNormalization") return batch_normalization();
      if (op == "LayerNormalization") return layer_normalization();
      if (op == "Pad") return pad();
      if (op == "Erf" || op == "Sqrt") return unary_math();
      if (op == "Gelu") return gelu();
      if (op == "Gather") return gather();
    }
    fail(n, "unsupported operator '" + op + "'" +
                (n.domain.empty() ? "" : " (domain " + n.domain + ")") + " at opset " +
                std::to_string(g_.opset));
  }

  // ---- operators of the engine's host-kernel table, written independently ------------------
  // Row-major multi-index of flat index i.
  static std::vector<int64_t> unravel(int64_t i, const Shape& s) {
    std::vector<int64_t> idx(s.size());
    for (size_t d = s.size(); d-- > 0;) {
      idx[d] = s[d] == 0 ? 0 : i % s[d];
      i = s[d] == 0 ? 0 : i / s[d];
    }
    return idx;
  }
  static int64_t ravel(const std::vector<int64_t>& idx, const Shape& s) {
    int64_t f = 0;
    for (size_t d = 0; d < s.size(); ++d) f = f * s[d] + idx[d];
    return f;
  }
  std::vector<int64_t> const_ints(size_t i) {
    const Tensor& t = in(i);
    std::vector<int64_t> v;
    for (int64_t k = 0; k < t.numel(); ++k) v.push_back(static_cast<int64_t>(t.at(k)));
    return v;
  }
  const Tensor& float_in(size_t i) {
    const Tensor& t = in(i);
    if (t.dtype != DType::Float32) fail(*node_, "input " + std::to_string(i) + " must be float32");
    return t;
  }

  void reduce_mean() {
    const graph::Node& n = *node_;
    const Tensor& x = float_in(0);
    const auto r = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> axes = n.attr_ints("axes", {});
    if (has_input(n, 1)) axes = const_ints(1);
    std::vector<bool> red(x.shape.size(),
                          axes.empty() && n.attr_int("noop_with_empty_axes", 0) == 0);
    for (int64_t a : axes) red[static_cast<size_t>(norm_axis(n, a, r))] = true;
    Shape kept = x.shape;
    for (size_t d = 0; d < kept.size(); ++d)
      if (red[d]) kept[d] = 1;
    std::vector<double> sum(static_cast<size_t>(graph::element_count(kept)), 0.0);
    const int64_t count = x.numel() / std::max<int64_t>(1, graph::element_count(kept));
    for (int64_t i = 0; i < x.numel(); ++i) {
      std::vector<int64_t> idx = unravel(i, x.shape);
      for (size_t d = 0; d < idx.size(); ++d)
        if (red[d]) idx[d] = 0;
      sum[static_cast<size_t>(ravel(idx, kept))] += x.data<float>()[i];
    }
    Shape out = kept;
    if (n.attr_int("keepdims", 1) == 0) {
      out.clear();
      for (size_t d = 0; d < kept.size(); ++d)
        if (!red[d]) out.push_back(kept[d]);
    }
    Tensor y = Tensor::zeros(DType::Float32, out);
    for (size_t j = 0; j < sum.size(); ++j)
      y.data<float>()[j] = static_cast<float>(sum[j] / static_cast<double>(count));
    set(0, std::move(y));
  }

  void batch_normalization() {
    const graph::Node& n = *node_;
    const Tensor& x = float_in(0);
    const Tensor &scale = in(1), &b = in(2), &mean = in(3), &var = in(4);
    const double eps = n.attr_float("epsilon", 1e-5);
    const int64_t c = x.shape.at(1);
    for (const Tensor* t : {&scale, &b, &mean, &var})
      if (t->numel() != c) fail(n, "statistics must have one value per channel");
    Tensor y = Tensor::zeros(DType::Float32, x.shape);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t ch = unravel(i, x.shape)[1];
      const double v = (x.data<float>()[i] - mean.at(ch)) / std::sqrt(var.at(ch) + eps);
      y.data<float>()[i] = static_cast<float>(v * scale.at(ch) + b.at(ch));
    }
    set(0, std::move(y));
  }

  void layer_normalization() {
    const graph::Node& n = *node_;
    const Tensor& x = float_in(0);
    const auto r = static_cast<int64_t>(x.shape.size());
    const int64_t axis = norm_axis(n, n.attr_int("axis", -1), r);
    int64_t inner = 1;
    for (int64_t d = axis; d < r; ++d) inner *= x.shape[static_cast<size_t>(d)];
    const Tensor& scale = in(1);
    const double eps = n.attr_float("epsilon", 1e-5);
    Tensor y = Tensor::zeros(DType::Float32, x.shape);
    for (int64_t o = 0; o < x.numel() / inner; ++o) {
      double mean = 0, sq = 0;
      for (int64_t i = 0; i < inner; ++i) mean += x.data<float>()[o * inner + i];
      mean /= static_cast<double>(inner);
      for (int64_t i = 0; i < inner; ++i) {
        const double d = x.data<float>()[o * inner + i] - mean;
        sq += d * d;
      }
      const double sd = std::sqrt(sq / static_cast<double>(inner) + eps);
      for (int64_t i = 0; i < inner; ++i) {
        const double g = scale.at(scale.numel() == 1 ? 0 : i);
        const double b = has_input(n, 2) ? in(2).at(in(2).numel() == 1 ? 0 : i) : 0.0;
        y.data<float>()[o * inner + i] =
            static_cast<float>((x.data<float>()[o * inner + i] - mean) / sd * g + b);
      }
    }
    set(0, std::move(y));
  }

  void pad() {
    const graph::Node& n = *node_;
    if (n.attr_string("mode", "constant") != "constant")
      fail(n, "only mode 'constant' is supported");
    const Tensor& x = float_in(0);
    const auto r = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> pads = has_input(n, 1) ? const_ints(1) : n.attr_ints("pads", {});
    const double value = has_input(n, 2) ? in(2).at(0) : n.attr_float("value", 0.0);
    std::vector<int64_t> axes;
    if (has_input(n, 3)) {
      for (int64_t a : const_ints(3)) axes.push_back(norm_axis(n, a, r));
    } else {
      for (int64_t d = 0; d < r; ++d) axes.push_back(d);
    }
    if (pads.size() != 2 * axes.size()) fail(n, "pads has the wrong length");
    std::vector<int64_t> lo(x.shape.size(), 0), hi(x.shape.size(), 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      lo[static_cast<size_t>(axes[k])] = pads[k];
      hi[static_cast<size_t>(axes[k])] = pads[k + axes.size()];
    }
    Shape ys = x.shape;
    for (size_t d = 0; d < ys.size(); ++d) ys[d] += lo[d] + hi[d];
    Tensor y = Tensor::zeros(DType::Float32, ys);
    for (int64_t o = 0; o < y.numel(); ++o) {
      std::vector<int64_t> idx = unravel(o, ys);
      bool inside = true;
      for (size_t d = 0; d < idx.size(); ++d) {
        idx[d] -= lo[d];
        inside = inside && idx[d] >= 0 && idx[d] < x.shape[d];
      }
      y.data<float>()[o] =
          inside ? x.data<float>()[ravel(idx, x.shape)] : static_cast<float>(value);
    }
    set(0, std::move(y));
  }

  void unary_math() {
    const Tensor& x = float_in(0);
    const bool erf = node_->op_type == "Erf";
    Tensor y = Tensor::zeros(DType::Float32, x.shape);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double v = x.data<float>()[i];
      y.data<float>()[i] = static_cast<float>(erf ? std::erf(v) : std::sqrt(v));
    }
    set(0, std::move(y));
  }

  // Gelu (opset 20), in double: x/2 (1 + erf(x / sqrt 2)) or, approximate "tanh",
  // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  void gelu() {
    const Tensor& x = float_in(0);
    const std::string approximate = node_->attr_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
      fail(*node_, "approximate must be 'none' or 'tanh'");
    Tensor y = Tensor::zeros(DType::Float32, x.shape);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double v = x.data<float>()[i];
      const double inner = approximate == "tanh"
                               ? std::tanh(0.79788456080286536 * (v + 0.044715 * v * v * v))
                               : std::erf(v / std::sqrt(2.0));
      y.data<float>()[i] = static_cast<float>(0.5 * v * (1.0 + inner));
    }
    set(0, std::move(y));
  }

  void gather() {
    const graph::Node& n = *node_;
    const Tensor& x = float_in(0);
    const Tensor& ind = in(1);
    const auto r = static_cast<int64_t>(x.shape.size());
    const auto axis = static_cast<size_t>(norm_axis(n, n.attr_int("axis", 0), r));
    Shape ys(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    ys.insert(ys.end(), ind.shape.begin(), ind.shape.end());
    ys.insert(ys.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape.end());
    Tensor y = Tensor::zeros(DType::Float32, ys);
    for (int64_t o = 0; o < y.numel(); ++o) {
      const std::vector<int64_t> oi = unravel(o, ys);
      std::vector<int64_t> ii = unravel(0, ind.shape);
      for (size_t d = 0; d < ind.shape.size(); ++d) ii[d] = oi[axis + d];
      int64_t k = static_cast<int64_t>(ind.at(ravel(ii, ind.shape)));
      if (k < -x.shape[axis] || k >= x.shape[axis]) fail(n, "index out of range");
      if (k < 0) k += x.shape[axis];
      std::vector<int64_t> xi(oi.begin(), oi.begin() + static_cast<std::ptrdiff_t>(axis));
      xi.push_back(k);
      xi.insert(xi.end(), oi.begin() + static_cast<std::ptrdiff_t>(axis + ind.shape.size()),
                oi.end());
      y.data<float>()[o] = x.data<float>()[ravel(xi, x.shape)];
    }
    set(0, std::move(y));
  }

  // ---- float compute -----------------------------------------------------------------------
  void conv() {
    const graph::Node& n = *node_;
    const Window2d w = conv_window(g_, n, n.inputs[0], n.inputs.at(1), n.outputs[0]);
    const Tensor& x = in(0);
    const Tensor& wt = in(1);
    std::vector<float> bias(static_cast<size_t>(w.oc), 0.0f);
    if (has_input(n, 2)) bias = in(2).floats();
    const Activation act = fused_activation(n);
    Tensor y = Tensor::zeros(DType::Float32, out_shape());
    const float* xp = x.data<float>();
    const float* wp = wt.data<float>();
    float* yp = y.data<float>();
    const int64_t icg = w.c / w.group, ocg = w.oc / w.group;
    std::vector<double> plane(static_cast<size_t>(w.oh * w.ow));
    for (int64_t b = 0; b < w.n; ++b)
      for (int64_t oc = 0; oc < w.oc; ++oc) {
        const int64_t g = oc / ocg;
        std::fill(plane.begin(), plane.end(), static_cast<double>(bias[static_cast<size_t>(oc)]));
        for (int64_t ic = 0; ic < icg; ++ic) {
          const float* xc = xp + ((b * w.c) + g * icg + ic) * w.h * w.w;
          for (int64_t kh = 0; kh < w.kh; ++kh)
            for (int64_t kw = 0; kw < w.kw; ++kw) {
              const double wv = wp[((oc * icg + ic) * w.kh + kh) * w.kw + kw];
              for (int64_t oh = 0; oh < w.oh; ++oh) {
                const int64_t ih = oh * w.sh - w.pt + kh * w.dh;
                if (ih < 0 || ih >= w.h) continue;
                for (int64_t ow = 0; ow < w.ow; ++ow) {
                  const int64_t iw = ow * w.sw - w.pl + kw * w.dw;
                  if (iw < 0 || iw >= w.w) continue;
                  plane[static_cast<size_t>(oh * w.ow + ow)] += wv * xc[ih * w.w + iw];
                }
              }
            }
        }
        float* yc = yp + (b * w.oc + oc) * w.oh * w.ow;
        for (size_t i = 0; i < plane.size(); ++i) yc[i] = act.apply(static_cast<float>(plane[i]));
      }
    set(0, std::move(y));
  }

  void gemm() {
    const graph::Node& n = *node_;
    const Tensor& a = in(0);
    const Tensor& b = in(1);
    if (a.shape.size() != 2 || b.shape.size() != 2) fail(n, "A and B must be 2-D");
    const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
    const double alpha = n.attr_float("alpha", 1.0), beta = n.attr_float("beta", 1.0);
    const int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
    const int64_t N = tb ? b.shape[0] : b.shape[1];
    if ((tb ? b.shape[1] : b.shape[0]) != K) fail(n, "inner dimensions of A and B differ");
    const Shape out = {M, N};
    Tensor y = Tensor::zeros(DType::Float32, out);
    std::vector<float> c;
    std::vector<int64_t> cs;
    if (has_input(n, 2)) {
      c = in(2).floats();
      cs = broadcast_strides(in(2).shape, out);
    }
    const Activation act = fused_activation(n);
    const float* ap = a.data<float>();
    const float* bp = b.data<float>();
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc +=
              static_cast<double>(ap[ta ? k * M + i : i * K + k]) * bp[tb ? j * K + k : k * N + j];
        acc *= alpha;
        if (!c.empty()) acc += beta * c[static_cast<size_t>(i * cs[0] + j * cs[1])];
        y.data<float>()[i * N + j] = act.apply(static_cast<float>(acc));
      }
    set(0, std::move(y));
  }

  // MatMul / QLinearMatMul with numpy batch broadcasting.
  void matmul(bool quantized) {
    const graph::Node& n = *node_;
    const Tensor& a = in(0);
    const Tensor& b = in(graph::weighted_operands(n.op_type).value().w);
    Shape as = a.shape, bs = b.shape;
    if (as.empty() || bs.empty()) fail(n, "MatMul operands must have rank >= 1");
    const bool a1 = as.size() == 1, b1 = bs.size() == 1;
    if (a1) as.insert(as.begin(), 1);
    if (b1) bs.push_back(1);
    const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
    if (bs[bs.size() - 2] != K)
      fail(n, "inner dimensions differ: " + graph::shape_str(a.shape) + " x " +
                  graph::shape_str(b.shape));
    Shape abatch(as.begin(), as.end() - 2), bbatch(bs.begin(), bs.end() - 2);
    const Shape y_shape = out_shape();
    Shape batch(y_shape.begin(),
                y_shape.end() - static_cast<std::ptrdiff_t>((a1 ? 0 : 1) + (b1 ? 0 : 1)));
    const auto sa = broadcast_strides(abatch, batch), sb = broadcast_strides(bbatch, batch);
    const int64_t nb = graph::element_count(batch);
    const Activation act = fused_activation(n);
    std::vector<float> sbv;
    std::vector<int32_t> zbv;
    float sa_ = 0, sy = 0;
    int32_t za = 0, zy = 0;
    QRange yr;
    if (quantized) {
      sa_ = scalar_f(1);
      za = scalar_zp(2);
      sbv = per_channel_f(4, N);
      zbv = per_channel_zp(5, N);
      sy = scalar_f(6);
      zy = scalar_zp(7);
      yr = qrange(out_dtype(0, DType::UInt8));
    }
    Tensor y = Tensor::zeros(quantized ? out_dtype(0, DType::UInt8) : DType::Float32, y_shape);
    std::vector<int64_t> idx(batch.size(), 0);
    for (int64_t bi = 0; bi < nb; ++bi) {
      int64_t offa = 0, offb = 0, rem = bi;
      for (size_t k = batch.size(); k-- > 0;) {
        const int64_t v = rem % batch[k];
        rem /= batch[k];
        offa += v * sa[k];
        offb += v * sb[k];
      }
      offa *= M * K;
      offb *= K * N;
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          const int64_t o = (bi * M + i) * N + j;
          if (quantized) {
            int64_t acc = 0;
            for (int64_t k = 0; k < K; ++k)
              acc += (static_cast<int64_t>(a.at(offa + i * K + k)) - za) *
                     (static_cast<int64_t>(b.at(offb + k * N + j)) - zbv[static_cast<size_t>(j)]);
            const float m = (sa_ * sbv[static_cast<size_t>(j)]) / sy;
            store_q(y, o, requantize(static_cast<int32_t>(acc), m, zy, yr));
          } else {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k)
              acc += static_cast<double>(a.data<float>()[offa + i * K + k]) *
                     b.data<float>()[offb + k * N + j];
            y.data<float>()[o] = act.apply(static_cast<float>(acc));
          }
        }
    }
    if (quantized) apply_qact(y, act, sy, zy, yr);
    set(0, std::move(y));
  }

  void binary() {
    const graph::Node& n = *node_;
    const std::string& op = n.op_type;
    const Tensor& a = in(0);
    const Tensor& b = in(1);
    if (a.dtype != DType::Float32 || b.dtype != DType::Float32)
      fail(n, "float32 operands expected, got " + std::string(graph::dtype_name(a.dtype)) +
                  " and " + std::string(graph::dtype_name(b.dtype)));
    const Shape out = out_shape();
    Tensor y = Tensor::zeros(DType::Float32, out);
    const Activation act = fused_activation(n);
    const float* ap = a.data<float>();
    const float* bp = b.data<float>();
    float* yp = y.data<float>();
    broadcast2(out, a.shape, b.shape, [&](int64_t o, int64_t i, int64_t j) {
      float v;
      if (op == "Add")
        v = ap[i] + bp[j];
      else if (op == "Sub")
        v = ap[i] - bp[j];
      else if (op == "Mul")
        v = ap[i] * bp[j];
      else if (op == "Div")
        v = ap[i] / bp[j];
      else
        v = std::pow(ap[i], bp[j]);
      yp[o] = act.apply(v);
    });
    set(0, std::move(y));
  }

  std::function<float(float)> unary_fn(const graph::Node& n) {
    const std::string& op = n.op_type;
    if (op == "Relu") return [](float v) { return v > 0 ? v : 0.0f; };
    if (op == "Sigmoid") return sigmoidf;
    if (op == "Tanh") return [](float v) { return std::tanh(v); };
    if (op == "LeakyRelu") {
      const float alpha = static_cast<float>(n.attr_float("alpha", 0.01));
      return [alpha](float v) { return v >= 0 ? v : v * alpha; };
    }
    if (op == "HardSigmoid") {
      const float alpha = static_cast<float>(n.attr_float("alpha", 0.2)),
                  beta = static_cast<float>(n.attr_float("beta", 0.5));
      return [alpha, beta](float v) { return std::clamp(alpha * v + beta, 0.0f, 1.0f); };
    }
    if (op == "HardSwish")
      return [](float v) { return v * std::clamp(v / 6.0f + 0.5f, 0.0f, 1.0f); };
    const Activation c = clip_bounds(g_, n);
    return [c](float v) { return c.apply(v); };
  }

  void unary() {
    const graph::Node& n = *node_;
    const Tensor& x = in(0);
    if (x.dtype != DType::Float32) {
      // Relu/Clip on a quantized tensor (int8 pass-through): needs the tensor's quantization,
      // which only a QLinear op carries.
      fail(n, "expected a float32 input, got " + std::string(graph::dtype_name(x.dtype)));
    }
    auto f = unary_fn(n);
    Tensor y = Tensor::zeros(DType::Float32, x.shape);
    for (int64_t i = 0; i < x.numel(); ++i) y.data<float>()[i] = f(x.data<float>()[i]);
    set(0, std::move(y));
  }

  void pool() {
    const graph::Node& n = *node_;
    const Window2d w = pool_window(g_, n, n.inputs[0], n.outputs[0]);
    const Tensor& x = in(0);
    const bool is_max = n.op_type == "MaxPool" || n.op_type == "GlobalMaxPool";
    const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
    if (n.outputs.size() > 1 && !n.outputs[1].empty())
      fail(n, "MaxPool's Indices output is not supported");
    if (is_max && x.dtype != DType::Float32 && x.dtype != DType::UInt8 && x.dtype != DType::Int8)
      fail(n, "unsupported input dtype");
    if (!is_max && x.dtype != DType::Float32) fail(n, "float32 input expected");
    Tensor y = Tensor::zeros(x.dtype, out_shape());
    for (int64_t b = 0; b < w.n; ++b)
      for (int64_t c = 0; c < w.c; ++c)
        for (int64_t oh = 0; oh < w.oh; ++oh)
          for (int64_t ow = 0; ow < w.ow; ++ow) {
            double acc = is_max ? -INFINITY : 0.0;
            int64_t count = 0;
            for (int64_t kh = 0; kh < w.kh; ++kh)
              for (int64_t kw = 0; kw < w.kw; ++kw) {
                const int64_t ih = oh * w.sh - w.pt + kh * w.dh, iw = ow * w.sw - w.pl + kw * w.dw;
                const bool inside = ih >= 0 && ih < w.h && iw >= 0 && iw < w.w;
                // count_include_pad counts the declared pads, not ceil_mode's extension.
                const bool in_declared = ih >= -w.pt && ih < w.h + w.pb_declared && iw >= -w.pl &&
                                         iw < w.w + w.pr_declared;
                if (inside) {
                  const double v = x.at(((b * w.c + c) * w.h + ih) * w.w + iw);
                  acc = is_max ? std::max(acc, v) : acc + v;
                }
                if (inside || (include_pad && in_declared)) ++count;
              }
            const int64_t o = ((b * w.c + c) * w.oh + oh) * w.ow + ow;
            if (is_max)
              store_any(y, o, acc);
            else
              y.data<float>()[o] = static_cast<float>(acc / static_cast<double>(count));
          }
    set(0, std::move(y));
  }

  void concat() {
    const graph::Node& n = *node_;
    const Shape out = out_shape();
    const int64_t axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(out.size()));
    std::vector<const Tensor*> parts;
    for (size_t i = 0; i < n.inputs.size(); ++i) parts.push_back(&in(i));
    Tensor y = Tensor::zeros(parts[0]->dtype, out);
    const size_t es = graph::dtype_size(y.dtype);
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= out[static_cast<size_t>(k)];
    for (size_t k = static_cast<size_t>(axis) + 1; k < out.size(); ++k) inner *= out[k];
    int64_t offset = 0;
    for (const Tensor* p : parts) {
      if (p->dtype != y.dtype) fail(n, "inputs of different dtypes");
      const int64_t len = p->shape[static_cast<size_t>(axis)];
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(y.bytes.data() + ((o * out[static_cast<size_t>(axis)] + offset) * inner) * es,
                    p->bytes.data() + (o * len * inner) * es,
                    static_cast<size_t>(len * inner) * es);
      offset += len;
    }
    set(0, std::move(y));
  }

  void split() {
    const graph::Node& n = *node_;
    const Tensor& x = in(0);
    const SplitParams p = split_params(g_, n, x.shape);
    int64_t offset = 0;
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      SliceParams sp;
      sp.start.assign(x.shape.size(), 0);
      sp.step.assign(x.shape.size(), 1);
      sp.len = x.shape;
      sp.start[static_cast<size_t>(p.axis)] = offset;
      sp.len[static_cast<size_t>(p.axis)] = p.sizes[i];
      offset += p.sizes[i];
      if (!n.outputs[i].empty()) set(i, strided_copy(x, sp));
    }
  }

  void slice() {
    const Tensor& x = in(0);
    set(0, strided_copy(x, slice_params(g_, *node_, x.shape)));
  }

  static Tensor strided_copy(const Tensor& x, const SliceParams& p) {
    Tensor y = Tensor::zeros(x.dtype, p.len);
    const size_t es = graph::dtype_size(x.dtype);
    const auto xs = strides_of(x.shape);
    const int64_t total = y.numel();
    std::vector<int64_t> idx(p.len.size(), 0);
    for (int64_t i = 0; i < total; ++i) {
      int64_t src = 0, rem = i;
      for (size_t k = p.len.size(); k-- > 0;) {
        const int64_t v = rem % p.len[k];
        rem /= p.len[k];
        src += (p.start[k] + v * p.step[k]) * xs[k];
      }
      std::memcpy(y.bytes.data() + static_cast<size_t>(i) * es,
                  x.bytes.data() + static_cast<size_t>(src) * es, es);
    }
    return y;
  }

  // Linear / cubic the way the ONNX reference implementation (onnx/reference/ops/op_resize.py)
  // computes them: per axis the 2 or 4 input positions nearest to the original coordinate, the
  // coefficient ratio in (0, 1] (1 when the coordinate is a whole number), edge values beyond the
  // input; every output element the sum over the product of the axes' coefficients, in double.
  void resize_interpolate(const resize::Spec& spec) {
    const Tensor& x = in(0);
    const Shape out = out_shape();
    const size_t r = out.size();
    const int64_t n = spec.mode == resize::Mode::Cubic ? 4 : 2;
    std::vector<std::vector<int64_t>> at(r);  // per axis, out[a] * n input indices
    std::vector<std::vector<double>> co(r);   // and their coefficients
    for (size_t a = 0; a < r; ++a) {
      for (int64_t o = 0; o < out[a]; ++o) {
        const double c =
            resize::original_coordinate(spec.transform, o, spec.scales[a], x.shape[a], out[a]);
        const bool whole = c == std::floor(c);
        const double ratio = whole ? 1.0 : c - std::floor(c);
        // The n nearest positions, ties to the smaller index: from floor(c) - (n/2 - 1), or one
        // further left when c is whole (ratio 1 then weights the position c itself).
        const int64_t first = static_cast<int64_t>(std::floor(c)) - (whole ? 1 : 0) - (n / 2 - 1);
        std::vector<double> k;
        if (n == 2) {
          k = {1 - ratio, ratio};
        } else {
          const double A = spec.cubic_a, q = 1 - ratio;
          k = {((A * (ratio + 1) - 5 * A) * (ratio + 1) + 8 * A) * (ratio + 1) - 4 * A,
               ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1, ((A + 2) * q - (A + 3)) * q * q + 1,
               ((A * (q + 1) - 5 * A) * (q + 1) + 8 * A) * (q + 1) - 4 * A};
        }
        if (spec.exclude_outside) {
          double sum = 0;
          for (int64_t t = 0; t < n; ++t) {
            const int64_t i = first + t;
            if (i < 0 || i >= x.shape[a]) k[static_cast<size_t>(t)] = 0;
            sum += k[static_cast<size_t>(t)];
          }
          for (double& v : k) v /= sum;
        }
        for (int64_t t = 0; t < n; ++t) {
          at[a].push_back(std::clamp<int64_t>(first + t, 0, x.shape[a] - 1));
          co[a].push_back(k[static_cast<size_t>(t)]);
        }
      }
    }
    Tensor y = Tensor::zeros(x.dtype, out);
    const auto xs = strides_of(x.shape);
    std::vector<int64_t> idx(r, 0), tap(r, 0);
    for (int64_t i = 0; i < y.numel(); ++i) {
      int64_t rem = i;
      for (size_t k = r; k-- > 0;) {
        idx[k] = rem % out[k];
        rem /= out[k];
      }
      double acc = 0;
      std::fill(tap.begin(), tap.end(), 0);
      for (;;) {  // every combination of one tap per axis
        double w = 1;
        int64_t src = 0;
        for (size_t k = 0; k < r; ++k) {
          const size_t e = static_cast<size_t>(idx[k] * n + tap[k]);
          w *= co[k][e];
          src += at[k][e] * xs[k];
        }
        if (w != 0) acc += w * x.at(src);
        size_t k = r;
        while (k-- > 0 && ++tap[k] == n) tap[k] = 0;
        if (k == static_cast<size_t>(-1)) break;
      }
      if (x.dtype == DType::Float32) {
        y.data<float>()[i] = static_cast<float>(acc);
      } else if (x.dtype == DType::UInt8) {
        y.data<uint8_t>()[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(acc), 0.0, 255.0));
      } else {
        y.data<int8_t>()[i] = static_cast<int8_t>(std::clamp(std::nearbyint(acc), -128.0, 127.0));
      }
    }
    set(0, std::move(y));
  }

  void resize() {
    const Tensor& x = in(0);
    const Shape out = out_shape();
    const resize::Spec spec = resize::parse(g_, *node_, x.shape, out, x.dtype);
    if (spec.mode != resize::Mode::Nearest) return resize_interpolate(spec);
    const auto map = resize_nearest_map(g_, *node_, x.shape, out);
    Tensor y = Tensor::zeros(x.dtype, out);
    const size_t es = graph::dtype_size(x.dtype);
    const auto xs = strides_of(x.shape);
    for (int64_t i = 0; i < y.numel(); ++i) {
      int64_t src = 0, rem = i;
      for (size_t k = out.size(); k-- > 0;) {
        const int64_t v = rem % out[k];
        rem /= out[k];
        src += map[k][static_cast<size_t>(v)] * xs[k];
      }
      std::memcpy(y.bytes.data() + static_cast<size_t>(i) * es,
                  x.bytes.data() + static_cast<size_t>(src) * es, es);
    }
    set(0, std::move(y));
  }

  void reshape() {
    Tensor y = in(0);
    y.shape = out_shape();
    if (y.numel() != in(0).numel()) fail(*node_, "element count changes");
    set(0, std::move(y));
  }

  void transpose() {
    const graph::Node& n = *node_;
    const Tensor& x = in(0);
    if (n.attr_int("layout_only", 0) != 0) {  // identity on the logical layout
      set(0, x);
      return;
    }
    std::vector<int64_t> perm = n.attr_ints("perm", {});
    if (perm.empty())
      for (size_t k = x.shape.size(); k-- > 0;) perm.push_back(static_cast<int64_t>(k));
    if (perm.size() != x.shape.size()) fail(n, "perm has the wrong length");
    Shape out(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) out[k] = x.shape[static_cast<size_t>(perm[k])];
    const auto xs = strides_of(x.shape);
    Tensor y = Tensor::zeros(x.dtype, out);
    const size_t es = graph::dtype_size(x.dtype);
    for (int64_t i = 0; i < y.numel(); ++i) {
      int64_t src = 0, rem = i;
      for (size_t k = out.size(); k-- > 0;) {
        const int64_t v = rem % out[k];
        rem /= out[k];
        src += v * xs[static_cast<size_t>(perm[k])];
      }
      std::memcpy(y.bytes.data() + static_cast<size_t>(i) * es,
                  x.bytes.data() + static_cast<size_t>(src) * es, es);
    }
    set(0, std::move(y));
  }

  void softmax() {
    const graph::Node& n = *node_;
    const Tensor& x = in(0);
    const int64_t r = static_cast<int64_t>(x.shape.size());
    const int64_t axis = norm_axis(n, n.attr_int("axis", g_.opset >= 13 ? -1 : 1), r);
    int64_t outer = 1, len = 1, inner = 1;
    for (int64_t k = 0; k < r; ++k) {
      const int64_t d = x.shape[static_cast<size_t>(k)];
      if (g_.opset >= 13) {
        if (k < axis)
          outer *= d;
        else if (k == axis)
          len = d;
        else
          inner *= d;
      } else {  // opset < 13: coerced to 2-D at axis
        if (k < axis)
          outer *= d;
        else
          len *= d;
      }
    }
    Tensor y = Tensor::zeros(DType::Float32, x.shape);
    const float* xp = x.data<float>();
    float* yp = y.data<float>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double mx = -INFINITY, sum = 0;
        for (int64_t k = 0; k < len; ++k) mx = std::max<double>(mx, xp[(o * len + k) * inner + i]);
        for (int64_t k = 0; k < len; ++k) sum += std::exp(xp[(o * len + k) * inner + i] - mx);
        for (int64_t k = 0; k < len; ++k)
          yp[(o * len + k) * inner + i] =
              static_cast<float>(std::exp(xp[(o * len + k) * inner + i] - mx) / sum);
      }
    set(0, std::move(y));
  }

  // ---- quantization -------------------------------------------------------------------------
  static void store_q(Tensor& y, int64_t i, int32_t v) {
    if (y.dtype == DType::Int8)
      y.data<int8_t>()[i] = static_cast<int8_t>(v);
    else
      y.data<uint8_t>()[i] = static_cast<uint8_t>(v);
  }
  static void store_any(Tensor& y, int64_t i, double v) {
    switch (y.dtype) {
      case DType::Float32:
        y.data<float>()[i] = static_cast<float>(v);
        break;
      case DType::UInt8:
        y.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        break;
      case DType::Int8:
        y.data<int8_t>()[i] = static_cast<int8_t>(v);
        break;
      default:
        throw internal_error("store_any: dtype");
    }
  }
  // The fused activation of a quantized op, applied in the quantized domain.
  static void apply_qact(Tensor& y, const Activation& act, float sy, int32_t zy, QRange r) {
    if (act.kind == Activation::None) return;
    int32_t lo = zy, hi = r.hi;
    if (act.kind == Activation::Clip) {
      lo = quantize_value(act.lo, sy, zy, r);
      hi = quantize_value(act.hi, sy, zy, r);
    }
    for (int64_t i = 0; i < y.numel(); ++i) {
      const int32_t v = static_cast<int32_t>(y.at(i));
      store_q(y, i, std::clamp(v, lo, hi));
    }
  }
  int axis_of(const Tensor& x) {
    return static_cast<int>(norm_axis(*node_, node_->attr_int("axis", 1),
                                      std::max<int64_t>(1, static_cast<int64_t>(x.shape.size()))));
  }

  void quantize_linear() {
    const Tensor& x = in(0);
    const Tensor& s = in(1);
    DType t = DType::UInt8;
    if (has_input(*node_, 2)) t = in(2).dtype;
    Tensor y = Tensor::zeros(t, x.shape);
    const QRange r = qrange(t);
    const int64_t ax = s.numel() == 1 || x.shape.empty() ? -1 : axis_of(x);
    const int64_t ch = ax < 0 ? 1 : x.shape[static_cast<size_t>(ax)];
    const auto sc = per_channel_f(1, ch);
    const auto zp = per_channel_zp(2, ch);
    int64_t inner = 1;
    if (ax >= 0)
      for (size_t k = static_cast<size_t>(ax) + 1; k < x.shape.size(); ++k) inner *= x.shape[k];
    for (int64_t i = 0; i < x.numel(); ++i) {
      const size_t c = ax < 0 ? 0 : static_cast<size_t>((i / inner) % ch);
      store_q(y, i, quantize_value(static_cast<float>(x.at(i)), sc[c], zp[c], r));
    }
    set(0, std::move(y));
  }

  void dequantize_linear() {
    const Tensor& x = in(0);
    const Tensor& s = in(1);
    Tensor y = Tensor::zeros(DType::Float32, x.shape);
    const int64_t ax = s.numel() == 1 || x.shape.empty() ? -1 : axis_of(x);
    const int64_t ch = ax < 0 ? 1 : x.shape[static_cast<size_t>(ax)];
    const auto sc = per_channel_f(1, ch);
    const auto zp = per_channel_zp(2, ch);
    int64_t inner = 1;
    if (ax >= 0)
      for (size_t k = static_cast<size_t>(ax) + 1; k < x.shape.size(); ++k) inner *= x.shape[k];
    for (int64_t i = 0; i < x.numel(); ++i) {
      const size_t c = ax < 0 ? 0 : static_cast<size_t>((i / inner) % ch);
      y.data<float>()[i] = dequantize_value(static_cast<int32_t>(x.at(i)), sc[c], zp[c]);
    }
    set(0, std::move(y));
  }

  void qconv() {
    const graph::Node& n = *node_;
    const Window2d w = conv_window(g_, n, n.inputs[0], n.inputs.at(3), n.outputs[0]);
    const Tensor& x = in(0);
    const Tensor& wt = in(3);
    const float sx = scalar_f(1);
    const int32_t zx = scalar_zp(2);
    const auto sw = per_channel_f(4, w.oc);
    const auto zw = per_channel_zp(5, w.oc);
    const float sy = scalar_f(6);
    const int32_t zy = scalar_zp(7);
    std::vector<int32_t> bias(static_cast<size_t>(w.oc), 0);
    if (has_input(n, 8))
      for (int64_t c = 0; c < w.oc; ++c)
        bias[static_cast<size_t>(c)] = static_cast<int32_t>(in(8).at(c));
    const DType yt = out_dtype(0, DType::UInt8);
    const QRange r = qrange(yt);
    Tensor y = Tensor::zeros(yt, out_shape());
    const int64_t icg = w.c / w.group, ocg = w.oc / w.group;
    for (int64_t b = 0; b < w.n; ++b)
      for (int64_t oc = 0; oc < w.oc; ++oc) {
        const int64_t g = oc / ocg;
        const float m = (sx * sw[static_cast<size_t>(oc)]) / sy;
        for (int64_t oh = 0; oh < w.oh; ++oh)
          for (int64_t ow = 0; ow < w.ow; ++ow) {
            int64_t acc = bias[static_cast<size_t>(oc)];
            for (int64_t ic = 0; ic < icg; ++ic)
              for (int64_t kh = 0; kh < w.kh; ++kh)
                for (int64_t kw = 0; kw < w.kw; ++kw) {
                  const int64_t ih = oh * w.sh - w.pt + kh * w.dh,
                                iw = ow * w.sw - w.pl + kw * w.dw;
                  if (ih < 0 || ih >= w.h || iw < 0 || iw >= w.w) continue;  // padding: x = zx
                  const int64_t xv =
                      static_cast<int64_t>(x.at(((b * w.c + g * icg + ic) * w.h + ih) * w.w + iw)) -
                      zx;
                  const int64_t wv =
                      static_cast<int64_t>(wt.at(((oc * icg + ic) * w.kh + kh) * w.kw + kw)) -
                      zw[static_cast<size_t>(oc)];
                  acc += xv * wv;
                }
            store_q(y, ((b * w.oc + oc) * w.oh + oh) * w.ow + ow,
                    requantize(static_cast<int32_t>(acc), m, zy, r));
          }
      }
    apply_qact(y, fused_activation(n), sy, zy, r);
    set(0, std::move(y));
  }

  void qgemm() {
    const graph::Node& n = *node_;
    const Tensor& a = in(0);
    const Tensor& b = in(3);
    if (a.shape.size() != 2 || b.shape.size() != 2) fail(n, "A and B must be 2-D");
    const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
    const float alpha = static_cast<float>(n.attr_float("alpha", 1.0));
    const int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
    const int64_t N = tb ? b.shape[0] : b.shape[1];
    const float sa = scalar_f(1);
    const int32_t za = scalar_zp(2);
    const auto sb = per_channel_f(4, N);
    const auto zb = per_channel_zp(5, N);
    std::vector<int32_t> c;
    std::vector<int64_t> cs;
    const Shape out = {M, N};
    if (has_input(n, 6)) {
      const Tensor& ct = in(6);
      if (ct.dtype != DType::Int32) fail(n, "C must be an int32 tensor");
      for (int64_t i = 0; i < ct.numel(); ++i) c.push_back(static_cast<int32_t>(ct.at(i)));
      cs = broadcast_strides(ct.shape, out);
    }
    const bool float_out = !has_input(n, 7);
    const float sy = float_out ? 1.0f : scalar_f(7);
    const int32_t zy = float_out ? 0 : scalar_zp(8);
    const DType yt = float_out ? DType::Float32 : out_dtype(0, DType::UInt8);
    const QRange r = qrange(yt);
    Tensor y = Tensor::zeros(yt, out);
    const Activation act = fused_activation(n);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int64_t acc = c.empty() ? 0 : c[static_cast<size_t>(i * cs[0] + j * cs[1])];
        for (int64_t k = 0; k < K; ++k)
          acc +=
              (static_cast<int64_t>(a.at(ta ? k * M + i : i * K + k)) - za) *
              (static_cast<int64_t>(b.at(tb ? j * K + k : k * N + j)) - zb[static_cast<size_t>(j)]);
        const float real = alpha * sa * sb[static_cast<size_t>(j)];
        if (float_out)
          y.data<float>()[i * N + j] = act.apply(static_cast<float>(acc) * real);
        else
          store_q(y, i * N + j, requantize(static_cast<int32_t>(acc), real / sy, zy, r));
      }
    if (!float_out) apply_qact(y, act, sy, zy, r);
    set(0, std::move(y));
  }

  // ONNX Runtime's x86 arithmetic (MLAS qladd_avx2.cpp / qlmul.cpp, ORT 1.30), the semantics
  // hetcim adopts (exec/kernels.h states the decision): scale ratios in float32, the output zero
  // point added before rounding half to even; Add's fused multiply-adds in ORT's operand order,
  // which puts an operand that is constant along the innermost output axis (ORT's "input 0
  // scalar" span) last.
  void qbinary() {
    const graph::Node& n = *node_;
    const Tensor& a = in(0);
    const Tensor& b = in(3);
    const float sa = scalar_f(1), sb = scalar_f(4), sy = scalar_f(6);
    const int32_t za = scalar_zp(2), zb = scalar_zp(5), zy = scalar_zp(7);
    const bool mul = n.op_type == "QLinearMul";
    const DType yt = out_dtype(0, DType::UInt8);
    const QRange r = qrange(yt);
    const Shape out = out_shape();
    Tensor y = Tensor::zeros(yt, out);
    const float fzy = static_cast<float>(zy);
    const float ratio_a = sa / sy, ratio_b = sb / sy, ratio_ab = (sa * sb) / sy;
    const float fixed =
        fzy - std::fma(ratio_a, static_cast<float>(za), ratio_b * static_cast<float>(zb));
    bool a_last = false;
    const auto bsa = broadcast_strides(a.shape, out), bsb = broadcast_strides(b.shape, out);
    for (size_t k = out.size(); k-- > 0;)
      if (out[k] > 1) {
        a_last = bsa[k] == 0 && bsb[k] != 0;
        break;
      }
    broadcast2(out, a.shape, b.shape, [&](int64_t o, int64_t i, int64_t j) {
      const auto qa = static_cast<int32_t>(a.at(i)), qb = static_cast<int32_t>(b.at(j));
      float v = 0.0f;
      if (mul) {
        v = static_cast<float>((qa - za) * (qb - zb)) * ratio_ab + fzy;
      } else {
        const float fa = static_cast<float>(qa), fb = static_cast<float>(qb);
        v = a_last ? std::fma(fb, ratio_b, std::fma(fa, ratio_a, fixed))
                   : std::fma(fa, ratio_a, std::fma(fb, ratio_b, fixed));
      }
      const float rounded = std::isnan(v) ? static_cast<float>(r.lo) : std::nearbyint(v);
      store_q(y, o,
              static_cast<int32_t>(
                  std::clamp(rounded, static_cast<float>(r.lo), static_cast<float>(r.hi))));
    });
    apply_qact(y, fused_activation(n), sy, zy, r);
    set(0, std::move(y));
  }

  void qunary() {
    const graph::Node& n = *node_;
    const Tensor& x = in(0);
    const float sx = scalar_f(1), sy = scalar_f(3);
    const int32_t zx = scalar_zp(2), zy = scalar_zp(4);
    const DType yt = out_dtype(0, DType::UInt8);
    const QRange r = qrange(yt);
    const float alpha = static_cast<float>(n.attr_float("alpha", 0.01));
    const bool sig = n.op_type == "QLinearSigmoid";
    Tensor y = Tensor::zeros(yt, x.shape);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float v = dequantize_value(static_cast<int32_t>(x.at(i)), sx, zx);
      store_q(y, i, quantize_value(sig ? sigmoidf(v) : (v >= 0 ? v : v * alpha), sy, zy, r));
    }
    set(0, std::move(y));
  }

  void qpool() {
    const graph::Node& n = *node_;
    if (n.attr_int("channels_last", 0) != 0) fail(n, "channels_last=1 is not supported");
    const Window2d w = pool_window(g_, n, n.inputs[0], n.outputs[0]);
    const Tensor& x = in(0);
    const float sx = scalar_f(1), sy = scalar_f(3);
    const int32_t zx = scalar_zp(2), zy = scalar_zp(4);
    const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
    const DType yt = out_dtype(0, DType::UInt8);
    const QRange r = qrange(yt);
    Tensor y = Tensor::zeros(yt, out_shape());
    for (int64_t b = 0; b < w.n; ++b)
      for (int64_t c = 0; c < w.c; ++c)
        for (int64_t oh = 0; oh < w.oh; ++oh)
          for (int64_t ow = 0; ow < w.ow; ++ow) {
            int64_t acc = 0, count = 0;
            for (int64_t kh = 0; kh < w.kh; ++kh)
              for (int64_t kw = 0; kw < w.kw; ++kw) {
                const int64_t ih = oh * w.sh - w.pt + kh * w.dh, iw = ow * w.sw - w.pl + kw * w.dw;
                const bool inside = ih >= 0 && ih < w.h && iw >= 0 && iw < w.w;
                const bool in_declared = ih >= -w.pt && ih < w.h + w.pb_declared && iw >= -w.pl &&
                                         iw < w.w + w.pr_declared;
                if (inside)
                  acc += static_cast<int64_t>(x.at(((b * w.c + c) * w.h + ih) * w.w + iw)) - zx;
                if (inside || (include_pad && in_declared)) ++count;
              }
            const float m = sx / (sy * static_cast<float>(count));
            store_q(y, ((b * w.c + c) * w.oh + oh) * w.ow + ow,
                    requantize(static_cast<int32_t>(acc), m, zy, r));
          }
    set(0, std::move(y));
  }

  void qconcat() {
    const graph::Node& n = *node_;
    const float sy = scalar_f(0);
    const int32_t zy = scalar_zp(1);
    const Shape out = out_shape();
    const int64_t axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(out.size()));
    const DType yt = out_dtype(0, DType::UInt8);
    const QRange r = qrange(yt);
    Tensor y = Tensor::zeros(yt, out);
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= out[static_cast<size_t>(k)];
    for (size_t k = static_cast<size_t>(axis) + 1; k < out.size(); ++k) inner *= out[k];
    if ((n.inputs.size() - 2) % 3 != 0)
      fail(n, "inputs must be (Y_scale, Y_zp, then (X, scale, zp) triples)");
    int64_t offset = 0;
    for (size_t i = 2; i + 2 < n.inputs.size(); i += 3) {
      const Tensor& x = in(i);
      const float sx = scalar_f(i + 1);
      const int32_t zx = scalar_zp(i + 2);
      const int64_t len = x.shape[static_cast<size_t>(axis)];
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < len * inner; ++k) {
          const float v = dequantize_value(static_cast<int32_t>(x.at(o * len * inner + k)), sx, zx);
          store_q(y, (o * out[static_cast<size_t>(axis)] + offset) * inner + k,
                  quantize_value(v, sy, zy, r));
        }
      offset += len;
    }
    set(0, std::move(y));
  }

  const graph::Graph& g_;
  const graph::Node* node_ = nullptr;
  TensorMap env_;
};

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
  return Interpreter(g).run(inputs, keep_all);
}

}  // namespace hetcim::exec
