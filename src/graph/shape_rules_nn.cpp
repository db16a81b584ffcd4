// Shape rules of the network operators: convolution and pooling windows, normalisation,
// reductions, Pad, Gemm and MatMul.
#include <algorithm>
#include <string>
#include <string_view>

#include "graph/shape_rules.h"

namespace hetcim::graph::shape_rules {

// ---------------------------------------------------------------------------------------------
// Convolution and pooling

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: all begins, then all ends
  std::string auto_pad;
  bool ceil_mode = false;
};

std::vector<int64_t> spatial_attr(const Ctx& c, const std::string& key, size_t n, int64_t fallback,
                                  bool positive) {
  std::vector<int64_t> v = c.node().attr_ints(key, std::vector<int64_t>(n, fallback));
  if (v.size() != n) c.fail("attribute '", key, "' has ", v.size(), " values, expected ", n);
  for (int64_t x : v) {
    if (positive ? x < 1 : x < 0) {
      c.fail("attribute '", key, "' = ", list_str(v), " must be ", positive ? "positive" : ">= 0");
    }
    if (x > kMaxDim) c.fail("attribute '", key, "' = ", list_str(v), " exceeds 2^31");
  }
  return v;
}

Window read_window(const Ctx& c, size_t spatial, std::vector<int64_t> kernel) {
  Window w;
  w.kernel = std::move(kernel);
  w.strides = spatial_attr(c, "strides", spatial, 1, true);
  w.dilations = spatial_attr(c, "dilations", spatial, 1, true);
  w.pads = spatial_attr(c, "pads", 2 * spatial, 0, false);
  w.auto_pad = c.node().attr_string("auto_pad", "NOTSET");
  if (w.auto_pad != "NOTSET" && w.auto_pad != "SAME_UPPER" && w.auto_pad != "SAME_LOWER" &&
      w.auto_pad != "VALID") {
    c.fail("auto_pad '", w.auto_pad, "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  w.ceil_mode = c.node().attr_int("ceil_mode", 0) != 0;
  return w;
}

// Output length of one spatial axis of a sliding window (convolution or pooling). With ceil_mode
// a last window that would start inside the end padding is dropped (PyTorch and ONNX Runtime).
int64_t window_out(const Ctx& c, const Window& w, size_t i, int64_t in) {
  if (in < 0) return -1;
  const size_t spatial = w.kernel.size();
  const int64_t k = w.kernel[i], s = w.strides[i], d = w.dilations[i];
  const int64_t effective = (k - 1) * d + 1;
  if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") return ceil_div(in, s);
  if (w.auto_pad == "VALID") {
    if (in < effective) {
      c.fail("spatial axis ", i, " of length ", in, " is smaller than the kernel extent ",
             effective, " (auto_pad VALID)");
    }
    return ceil_div(in - effective + 1, s);
  }
  const int64_t pb = w.pads[i], pe = w.pads[i + spatial];
  const int64_t span = in + pb + pe - effective;
  if (span < 0) {
    c.fail("spatial axis ", i, " of length ", in, " with pads ", pb, "+", pe,
           " is smaller than the kernel extent ", effective);
  }
  if (!w.ceil_mode) return span / s + 1;
  int64_t out = ceil_div(span, s) + 1;
  if ((out - 1) * s >= in + pb) --out;
  return out;
}

Infos conv(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, spatial...), got ", shape_str(x));
  if (w.size() != x.size()) {
    c.fail("weight ", shape_str(w), " must have the input's rank ", x.size());
  }
  if (c.dtype(1) != c.dtype(0)) {
    c.fail("weight dtype ", dtype_name(c.dtype(1)), " differs from input dtype ",
           dtype_name(c.dtype(0)));
  }
  const int64_t group = c.node().attr_int("group", 1);
  if (group < 1 || group > kMaxDim) c.fail("group must be in [1, 2^31], got ", group);
  if (w[1] >= 0 && x[1] >= 0 && w[1] * group != x[1]) {
    c.fail("weight expects ", w[1] * group, " input channels, input has ", x[1]);
  }
  const int64_t m = w[0];
  if (m >= 0 && m % group != 0) c.fail(m, " output channels are not divisible by group ", group);
  if (c.has(2) && c.shape(2) != Shape{m}) {
    c.fail("bias has shape ", shape_str(c.shape(2)), ", expected ", m, " (the output channels)");
  }
  const size_t spatial = x.size() - 2;
  const std::vector<int64_t> wk(w.begin() + 2, w.end());
  const std::vector<int64_t> kernel = c.node().attr_ints("kernel_shape", wk);
  if (kernel != wk) {
    c.fail("kernel_shape ", list_str(kernel), " disagrees with the weight's ", list_str(wk));
  }
  const Window win = read_window(c, spatial, kernel);
  Shape out = {x[0], m};
  for (size_t i = 0; i < spatial; ++i) out.push_back(window_out(c, win, i, x[i + 2]));
  return {{c.dtype(0), out}};
}

Infos conv_transpose(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, spatial...), got ", shape_str(x));
  if (w.size() != x.size())
    c.fail("weight ", shape_str(w), " must have the input's rank ", x.size());
  const int64_t group = c.node().attr_int("group", 1);
  if (group < 1 || group > kMaxDim) c.fail("group must be in [1, 2^31], got ", group);
  if (w[0] >= 0 && x[1] >= 0 && w[0] != x[1]) {
    c.fail("weight expects ", w[0], " input channels, input has ", x[1]);
  }
  const int64_t m = w[1] < 0 ? -1 : w[1] * group;
  if (c.has(2) && c.shape(2) != Shape{m}) {
    c.fail("bias has shape ", shape_str(c.shape(2)), ", expected ", m, " (the output channels)");
  }
  const size_t spatial = x.size() - 2;
  const std::vector<int64_t> kernel =
      c.node().attr_ints("kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  const Window win = read_window(c, spatial, kernel);
  const std::vector<int64_t> out_pad = spatial_attr(c, "output_padding", spatial, 0, false);
  Shape out = {x[0], m};
  if (c.node().has_attr("output_shape")) {
    std::vector<int64_t> os = c.node().attr_ints("output_shape", {});
    if (os.size() < spatial)
      c.fail("output_shape ", list_str(os), " has fewer than ", spatial, " dims");
    for (int64_t d : os) {
      if (d < 1 || d > kMaxDim) c.fail("output_shape ", list_str(os), " must be in [1, 2^31]");
    }
    out.insert(out.end(), os.end() - static_cast<std::ptrdiff_t>(spatial), os.end());
    return {{c.dtype(0), out}};
  }
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t in = x[i + 2];
    if (in < 0) {
      out.push_back(-1);
      continue;
    }
    const int64_t s = win.strides[i];
    if (win.auto_pad == "SAME_UPPER" || win.auto_pad == "SAME_LOWER") {
      out.push_back(in * s);
      continue;
    }
    const int64_t pads = win.auto_pad == "VALID" ? 0 : win.pads[i] + win.pads[i + spatial];
    const int64_t o = s * (in - 1) + out_pad[i] + (kernel[i] - 1) * win.dilations[i] + 1 - pads;
    if (o < 1) c.fail("spatial axis ", i, " would have length ", o);
    out.push_back(o);
  }
  return {{c.dtype(0), out}};
}

Infos pool(const Ctx& c) {
  const bool is_max = c.node().op_type == "MaxPool";
  c.arity(1, 1, 1, is_max ? 2 : 1);
  const Shape& x = c.shape(0);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, spatial...), got ", shape_str(x));
  const size_t spatial = x.size() - 2;
  if (!c.node().has_attr("kernel_shape")) c.fail("attribute 'kernel_shape' is required");
  const std::vector<int64_t> kernel = spatial_attr(c, "kernel_shape", spatial, 1, true);
  const Window win = read_window(c, spatial, kernel);
  Shape out = {x[0], x[1]};
  for (size_t i = 0; i < spatial; ++i) out.push_back(window_out(c, win, i, x[i + 2]));
  Infos r = {{c.dtype(0), out}};
  if (c.node().outputs.size() == 2) r.push_back({DType::Int64, out});
  return r;
}

Infos global_pool(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  Shape x = c.shape(0);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, spatial...), got ", shape_str(x));
  std::fill(x.begin() + 2, x.end(), 1);
  return {{c.dtype(0), x}};
}

Infos batch_norm(const Ctx& c) {
  c.arity(5, 5, 1, 3);
  const Shape& x = c.shape(0);
  if (x.size() < 2) c.fail("input must have rank >= 2 (N, C, ...), got ", shape_str(x));
  static constexpr std::string_view kNames[] = {"", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; ++i) {
    const Shape& p = c.shape(i);
    if (p.size() != 1 || (x[1] >= 0 && p[0] >= 0 && p[0] != x[1])) {
      c.fail(kNames[i], " has shape ", shape_str(p), ", expected ", x[1],
             " (the input's channels)");
    }
  }
  Infos out = {c.info(0)};
  for (size_t i = 1; i < c.node().outputs.size(); ++i) out.push_back({c.dtype(3), Shape{x[1]}});
  return out;
}

Infos layer_norm(const Ctx& c) {
  c.arity(2, 3, 1, 3);
  const Shape& x = c.shape(0);
  const int64_t axis = c.axis(c.node().attr_int("axis", -1), c.rank(0));
  Shape stat(x.begin(), x.begin() + axis);
  stat.resize(x.size(), 1);
  Infos out = {c.info(0)};
  for (size_t i = 1; i < c.node().outputs.size(); ++i) out.push_back({DType::Float32, stat});
  return out;
}

// ReduceMean (and the other Reduce* shape rule): constant axes (attribute, or input 1 from
// opset 18), keepdims, noop_with_empty_axes.
Infos reduce(const Ctx& c) {
  c.arity(1, 2, 1, 1);
  const Shape& x = c.shape(0);
  std::vector<int64_t> axes = c.node().attr_ints("axes", {});
  if (c.has(1)) axes = c.const_ints(1, "axes");
  std::vector<bool> red(x.size(),
                        axes.empty() && c.node().attr_int("noop_with_empty_axes", 0) == 0);
  for (int64_t a : axes) red[static_cast<size_t>(c.axis(a, c.rank(0)))] = true;
  const bool keep = c.node().attr_int("keepdims", 1) != 0;
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!red[d]) {
      out.push_back(x[d]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  return {{c.dtype(0), out}};
}

// Pad: pads as an attribute (opset < 11) or a constant input; optional axes (opset 18).
Infos pad(const Ctx& c) {
  c.arity(1, 4, 1, 1);
  const Shape& x = c.shape(0);
  std::vector<int64_t> pads = c.node().attr_ints("pads", {});
  if (c.has(1)) pads = c.const_ints(1, "pads");
  std::vector<int64_t> axes;
  if (c.has(3)) {
    for (int64_t a : c.const_ints(3, "axes")) axes.push_back(c.axis(a, c.rank(0)));
  } else {
    for (int64_t d = 0; d < c.rank(0); ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size())
    c.fail("pads has ", pads.size(), " values, expected ", 2 * axes.size());
  Shape out = x;
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t& d = out[static_cast<size_t>(axes[k])];
    if (d < 0) continue;
    d += pads[k] + pads[k + axes.size()];
    if (d < 0) c.fail("pads crop axis ", axes[k], " below zero");
  }
  return {{c.dtype(0), out}};
}

// ---------------------------------------------------------------------------------------------
// Dense ops

Infos gemm(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  const Shape& a = c.shape(0);
  const Shape& b = c.shape(1);
  if (a.size() != 2) c.fail("A must be a matrix, got ", shape_str(a));
  if (b.size() != 2) c.fail("B must be a matrix, got ", shape_str(b));
  const bool ta = c.node().attr_int("transA", 0) != 0;
  const bool tb = c.node().attr_int("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (ka >= 0 && kb >= 0 && ka != kb) {
    c.fail("A ", shape_str(a), (ta ? " (transA=1)" : ""), " has K = ", ka, " but B ", shape_str(b),
           (tb ? " (transB=1)" : ""), " has K = ", kb);
  }
  const Shape out = {m, n};
  if (c.has(2)) {
    const Shape& bias = c.shape(2);
    if (bias.size() > 2) c.fail("C ", shape_str(bias), " has rank > 2");
    for (size_t i = 0; i < bias.size(); ++i) {
      const int64_t d = bias[i], o = out[2 - bias.size() + i];
      if (d != 1 && d >= 0 && o >= 0 && d != o) {
        c.fail("C ", shape_str(bias), " cannot be broadcast to the output ", shape_str(out));
      }
    }
  }
  return {{c.dtype(0), out}};
}

Infos matmul(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  Shape a = c.shape(0), b = c.shape(1);
  if (a.empty() || b.empty()) c.fail("inputs must have rank >= 1");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  const int64_t ka = a.back(), kb = b[b.size() - 2];
  if (ka >= 0 && kb >= 0 && ka != kb) {
    c.fail("inner dimensions differ: ", shape_str(c.shape(0)), " times ", shape_str(c.shape(1)));
  }
  Shape out = broadcast(c, Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return {{c.dtype(0), out}};
}

}  // namespace hetcim::graph::shape_rules
