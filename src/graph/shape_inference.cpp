#include "graph/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "graph/constant_values.h"
#include "util/error.h"

namespace hetcim::graph {
namespace {

// Values of a small constant tensor: integers exactly, floating point as double.
struct ConstValue {
  bool is_int = true;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};
using KnownValues = std::map<std::string, ConstValue>;

// Values are tracked through shape arithmetic only for tensors this small.
constexpr int64_t kMaxTrackedElements = 4096;
// Largest dimension and window attribute accepted. Keeps every product of two such numbers (and
// sums of a few) inside int64_t, so hostile graphs get a message instead of an overflow.
constexpr int64_t kMaxDim = int64_t{1} << 31;

// Element count: -1 if a dim is unknown, INT64_MAX if the product overflows.
int64_t count_elements(const Shape& s) {
  int64_t n = 1;
  bool unknown = false;
  for (int64_t d : s) {
    if (d < 0) {
      unknown = true;
    } else if (__builtin_mul_overflow(n, d, &n)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return unknown && n != 0 ? -1 : n;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// Everything an op's inference needs: the node, its input infos, and constant operand values.
class Ctx {
 public:
  Ctx(const Graph& g, const Node& n, const KnownValues* known) : g_(g), n_(n), known_(known) {}

  [[nodiscard]] const Node& node() const { return n_; }
  [[nodiscard]] int64_t opset() const { return g_.opset; }

  template <typename... Args>
  [[noreturn]] void fail(const Args&... args) const {
    throw user_error("node '", n_.name, "' (", n_.op_type, "): ", args...);
  }

  [[nodiscard]] bool has(size_t i) const { return i < n_.inputs.size() && !n_.inputs[i].empty(); }

  void arity(size_t min_in, size_t max_in, size_t min_out, size_t max_out) const {
    if (n_.inputs.size() < min_in || n_.inputs.size() > max_in) {
      fail("expected ", min_in == max_in ? "" : "between ", min_in,
           min_in == max_in ? "" : " and " + std::to_string(max_in), " inputs, got ",
           n_.inputs.size());
    }
    for (size_t i = 0; i < min_in; ++i) {
      if (n_.inputs[i].empty()) fail("input ", i, " is required");
    }
    if (n_.outputs.size() < min_out || n_.outputs.size() > max_out) {
      fail("expected ", min_out == max_out ? "" : "between ", min_out,
           min_out == max_out ? "" : " and " + std::to_string(max_out), " outputs, got ",
           n_.outputs.size());
    }
  }

  [[nodiscard]] const TensorInfo& info(size_t i) const {
    if (!has(i)) fail("input ", i, " is required");
    const TensorInfo* ti = g_.info(n_.inputs[i]);
    if (!ti || !ti->shape) fail("shape of input tensor '", n_.inputs[i], "' is not known");
    for (int64_t d : *ti->shape) {
      if (d > kMaxDim) {
        fail("input tensor '", n_.inputs[i], "' has shape ", shape_str(*ti->shape),
             "; dimensions above 2^31 are not supported");
      }
    }
    return *ti;
  }
  [[nodiscard]] const Shape& shape(size_t i) const { return *info(i).shape; }
  [[nodiscard]] DType dtype(size_t i) const { return info(i).dtype; }
  [[nodiscard]] int64_t rank(size_t i) const { return static_cast<int64_t>(shape(i).size()); }

  // Values of input i when it is a constant (an initializer with values, or a tracked value).
  [[nodiscard]] const ConstValue* value(size_t i) const {
    if (!has(i)) return nullptr;
    const std::string& t = n_.inputs[i];
    if (known_) {
      if (auto it = known_->find(t); it != known_->end()) return &it->second;
    }
    auto it = g_.initializers.find(t);
    if (it == g_.initializers.end()) return nullptr;
    // An initializer without data is shape-only, unless it has no elements (an empty tensor).
    const bool empty = it->second.info.shape && count_elements(*it->second.info.shape) == 0;
    if (!it->second.has_values() && !empty) return nullptr;
    auto [slot, inserted] = cache_.try_emplace(t);
    if (inserted) {
      const Initializer& init = it->second;
      slot->second.is_int = is_integer(init.info.dtype) || init.info.dtype == DType::Bool;
      if (slot->second.is_int) {
        slot->second.ints = init.ints();
      } else {
        for (float f : init.floats()) slot->second.floats.push_back(f);
      }
    }
    return &slot->second;
  }

  [[nodiscard]] std::vector<int64_t> const_ints(size_t i, std::string_view what) const {
    const ConstValue* v = value(i);
    if (!v) fail(what, " (input ", i, " '", n_.inputs[i], "') must be a constant");
    if (!v->is_int) fail(what, " (input ", i, " '", n_.inputs[i], "') must be an integer tensor");
    return v->ints;
  }

  [[nodiscard]] std::vector<double> const_floats(size_t i, std::string_view what) const {
    const ConstValue* v = value(i);
    if (!v) fail(what, " (input ", i, " '", n_.inputs[i], "') must be a constant");
    if (v->is_int) {
      return std::vector<double>(v->ints.begin(), v->ints.end());
    }
    return v->floats;
  }

  [[nodiscard]] int64_t axis(int64_t a, int64_t rank, std::string_view what = "axis") const {
    if (a < -rank || a >= rank) fail(what, " ", a, " is out of range for rank ", rank);
    return a < 0 ? a + rank : a;
  }

 private:
  const Graph& g_;
  const Node& n_;
  const KnownValues* known_;
  mutable std::map<std::string, ConstValue> cache_;
};

using Infos = std::vector<TensorInfo>;

Infos same_as_input(const Ctx& c) {
  return {c.info(0)};
}

// ---------------------------------------------------------------------------------------------
// Broadcasting

Shape broadcast(const Ctx& c, const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    int64_t d;
    if (da == db || db == 1) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else if (da < 0) {
      d = db;
    } else if (db < 0) {
      d = da;
    } else {
      c.fail("shapes ", shape_str(a), " and ", shape_str(b),
             " cannot be broadcast together (numpy rules)");
    }
    out[i] = d;
  }
  return out;
}

Infos binary_elementwise(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  const bool is_pow = c.node().op_type == "Pow";
  if (!is_pow && c.dtype(0) != c.dtype(1)) {
    c.fail("input dtypes differ: ", dtype_name(c.dtype(0)), " and ", dtype_name(c.dtype(1)));
  }
  return {{c.dtype(0), broadcast(c, c.shape(0), c.shape(1))}};
}

// ---------------------------------------------------------------------------------------------
// Unary and shape-preserving ops

Infos unary(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  return same_as_input(c);
}

Infos clip(const Ctx& c) {
  c.arity(1, 3, 1, 1);
  for (size_t i = 1; i < 3; ++i) {
    if (!c.has(i)) continue;
    if (count_elements(c.shape(i)) != 1) {
      c.fail(i == 1 ? "min" : "max", " must be a scalar, got shape ", shape_str(c.shape(i)));
    }
    if (c.dtype(i) != c.dtype(0)) {
      c.fail(i == 1 ? "min" : "max", " has dtype ", dtype_name(c.dtype(i)), ", input has ",
             dtype_name(c.dtype(0)));
    }
  }
  return same_as_input(c);
}

Infos dropout(const Ctx& c) {
  c.arity(1, 3, 1, 2);
  Infos out = same_as_input(c);
  if (c.node().outputs.size() == 2) out.push_back({DType::Bool, c.shape(0)});
  return out;
}

Infos softmax(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  const int64_t fallback = c.opset() >= 13 ? -1 : 1;
  (void)c.axis(c.node().attr_int("axis", fallback), c.rank(0));
  return same_as_input(c);
}

Infos cast(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  if (!c.node().has_attr("to")) c.fail("attribute 'to' is required");
  const int64_t code = c.node().attr_int("to", 0);
  auto t = dtype_from_onnx_code(code);
  if (!t) c.fail("cast to ONNX data type ", code, " is not supported");
  return {{*t, c.shape(0)}};
}

// ConstantOfShape: the importer turns the one-element `value` tensor into `value` and
// `value_dtype` (onnxio/import.cpp); the default is a float 0.
Infos constant_of_shape(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  const int64_t code = c.node().attr_int("value_dtype", 1);
  auto t = dtype_from_onnx_code(code);
  if (!t) c.fail("value of ONNX data type ", code, " is not supported");
  const std::vector<int64_t> dims = c.const_ints(0, "shape");
  for (int64_t d : dims) {
    if (d < 0) c.fail("shape operand has a negative dimension ", d);
  }
  return {{*t, Shape(dims.begin(), dims.end())}};
}

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

// ---------------------------------------------------------------------------------------------
// Shape manipulation

Infos flatten(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  const Shape& x = c.shape(0);
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t a = c.node().attr_int("axis", 1);
  if (a < -r || a > r) c.fail("axis ", a, " is out of range for rank ", r);
  if (a < 0) a += r;
  auto prod = [&](auto first, auto last) {
    const int64_t p = count_elements(Shape(first, last));
    if (p > kMaxDim) c.fail("flattening ", shape_str(x), " gives a dimension above 2^31");
    return p;
  };
  return {{c.dtype(0), Shape{prod(x.begin(), x.begin() + a), prod(x.begin() + a, x.end())}}};
}

Infos reshape(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  const Shape& x = c.shape(0);
  const std::vector<int64_t> target = c.const_ints(1, "shape");
  const bool allow_zero = c.node().attr_int("allowzero", 0) != 0;
  Shape out(target.size());
  int infer_at = -1;
  int64_t known = 1;
  bool unknown = false;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allow_zero) {
      if (i >= x.size())
        c.fail("shape ", list_str(target), " copies dim ", i, " of a rank-", x.size(), " input");
      d = x[i];
    } else if (d == -1) {
      if (infer_at >= 0) c.fail("shape ", list_str(target), " has more than one -1");
      infer_at = static_cast<int>(i);
      continue;
    } else if (d < 0) {
      c.fail("shape ", list_str(target), " has a negative dimension other than -1");
    } else if (d > kMaxDim) {
      c.fail("shape ", list_str(target), " has a dimension above 2^31");
    }
    out[i] = d;
    if (d < 0) {
      unknown = true;
    } else if (__builtin_mul_overflow(known, d, &known)) {
      c.fail("shape ", list_str(target), " has more than 2^63 elements");
    }
  }
  const int64_t total = count_elements(x);
  if (total == std::numeric_limits<int64_t>::max()) {
    c.fail("input ", shape_str(x), " has more than 2^63 elements");
  }
  if (infer_at >= 0) {
    if (total < 0 || unknown) {
      out[static_cast<size_t>(infer_at)] = -1;
    } else {
      if (known == 0 || total % known != 0) {
        c.fail("cannot reshape ", shape_str(x), " (", total, " elements) to ", list_str(target));
      }
      out[static_cast<size_t>(infer_at)] = total / known;
    }
  } else if (total >= 0 && !unknown && total != known) {
    c.fail("cannot reshape ", shape_str(x), " (", total, " elements) to ", list_str(target), " (",
           known, " elements)");
  }
  return {{c.dtype(0), out}};
}

Infos transpose(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  const Shape& x = c.shape(0);
  std::vector<int64_t> reversed(x.size());
  for (size_t i = 0; i < x.size(); ++i) reversed[i] = static_cast<int64_t>(x.size() - 1 - i);
  const std::vector<int64_t> perm = c.node().attr_ints("perm", reversed);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(x.size());
  for (size_t i = 0; i < x.size(); ++i) iota[i] = static_cast<int64_t>(i);
  if (sorted != iota)
    c.fail("perm ", list_str(perm), " is not a permutation of the input's ", x.size(), " axes");
  Shape out;
  for (int64_t p : perm) out.push_back(x[static_cast<size_t>(p)]);
  return {{c.dtype(0), out}};
}

Infos concat(const Ctx& c) {
  if (c.node().inputs.empty()) c.fail("expected at least one input");
  c.arity(1, c.node().inputs.size(), 1, 1);
  if (!c.node().has_attr("axis")) c.fail("attribute 'axis' is required");
  const Shape& first = c.shape(0);
  const int64_t r = static_cast<int64_t>(first.size());
  const size_t a = static_cast<size_t>(c.axis(c.node().attr_int("axis", 0), r));
  Shape out = first;
  for (size_t i = 1; i < c.node().inputs.size(); ++i) {
    const Shape& s = c.shape(i);
    if (s.size() != first.size()) {
      c.fail("input ", i, " has shape ", shape_str(s), ", input 0 has ", shape_str(first),
             " (ranks differ)");
    }
    if (c.dtype(i) != c.dtype(0)) {
      c.fail("input ", i, " has dtype ", dtype_name(c.dtype(i)), ", input 0 has ",
             dtype_name(c.dtype(0)));
    }
    for (size_t d = 0; d < s.size(); ++d) {
      if (d == a) {
        out[d] = (out[d] < 0 || s[d] < 0) ? -1 : out[d] + s[d];
      } else if (s[d] >= 0 && out[d] >= 0 && s[d] != out[d]) {
        c.fail("input ", i, " has shape ", shape_str(s), ", input 0 has ", shape_str(first),
               ": they must agree except on axis ", a);
      } else if (out[d] < 0) {
        out[d] = s[d];
      }
    }
  }
  return {{c.dtype(0), out}};
}

Infos split(const Ctx& c) {
  c.arity(1, 2, 1, std::numeric_limits<size_t>::max());
  const Shape& x = c.shape(0);
  const size_t a =
      static_cast<size_t>(c.axis(c.node().attr_int("axis", 0), static_cast<int64_t>(x.size())));
  const size_t k = c.node().outputs.size();
  const int64_t dim = x[a];
  std::vector<int64_t> sizes;
  if (c.has(1)) {
    sizes = c.const_ints(1, "split");
  } else if (c.node().has_attr("split")) {
    sizes = c.node().attr_ints("split", {});
  } else if (c.node().has_attr("num_outputs")) {
    const int64_t n = c.node().attr_int("num_outputs", 0);
    if (n != static_cast<int64_t>(k))
      c.fail("num_outputs = ", n, " but the node has ", k, " outputs");
    if (dim >= 0) {
      const int64_t chunk = ceil_div(dim, n);
      for (int64_t i = 0; i < n; ++i)
        sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
    }
  } else if (dim >= 0) {
    if (dim % static_cast<int64_t>(k) != 0) {
      c.fail("axis ", a, " of length ", dim, " cannot be split evenly into ", k, " outputs");
    }
    sizes.assign(k, dim / static_cast<int64_t>(k));
  }
  if (sizes.empty()) sizes.assign(k, -1);  // even split of an unknown dimension
  if (sizes.size() != k)
    c.fail("split ", list_str(sizes), " has ", sizes.size(), " parts but the node has ", k,
           " outputs");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < -1 || s > kMaxDim) c.fail("split ", list_str(sizes), " has a size outside [0, 2^31]");
    sum += s;
  }
  if (dim >= 0 && sizes[0] >= 0 && sum != dim) {
    c.fail("split ", list_str(sizes), " sums to ", sum, " but axis ", a, " has length ", dim);
  }
  Infos out;
  for (int64_t s : sizes) {
    Shape o = x;
    o[a] = s;
    out.push_back({c.dtype(0), o});
  }
  return out;
}

Infos slice(const Ctx& c) {
  c.arity(1, 5, 1, 1);
  const Shape& x = c.shape(0);
  const int64_t r = static_cast<int64_t>(x.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.node().inputs.size() > 1) {  // opset >= 10
    c.arity(3, 5, 1, 1);
    starts = c.const_ints(1, "starts");
    ends = c.const_ints(2, "ends");
    if (c.has(3)) axes = c.const_ints(3, "axes");
    if (c.has(4)) steps = c.const_ints(4, "steps");
  } else {
    starts = c.node().attr_ints("starts", {});
    ends = c.node().attr_ints("ends", {});
    axes = c.node().attr_ints("axes", {});
  }
  if (starts.size() != ends.size()) {
    c.fail("starts ", list_str(starts), " and ends ", list_str(ends), " differ in length");
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) {
    c.fail("starts, ends, axes and steps must have the same length");
  }
  Shape out = x;
  std::set<int64_t> seen;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t a = c.axis(axes[i], r, "slice axis");
    if (!seen.insert(a).second) c.fail("axis ", a, " is sliced twice");
    const int64_t step = steps[i];
    if (step == 0) c.fail("step 0 on axis ", a);
    const int64_t dim = x[static_cast<size_t>(a)];
    if (dim < 0) {
      out[static_cast<size_t>(a)] = -1;
      continue;
    }
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t len;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      len = e > s ? ceil_div(e - s, step) : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      len = s > e ? ceil_div(s - e, -step) : 0;
    }
    out[static_cast<size_t>(a)] = len;
  }
  return {{c.dtype(0), out}};
}

Shape scaled(const Ctx& c, const Shape& x, const std::vector<double>& scales) {
  if (scales.size() != x.size()) {
    c.fail(scales.size(), " scales for an input of rank ", x.size());
  }
  Shape out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(scales[i] > 0)) c.fail("scale ", scales[i], " on axis ", i, " must be positive");
    const double v = std::floor(static_cast<double>(x[i]) * scales[i]);
    if (v > static_cast<double>(kMaxDim))
      c.fail("scale ", scales[i], " on axis ", i, " gives a dimension above 2^31");
    out[i] = x[i] < 0 ? -1 : static_cast<int64_t>(v);
  }
  return out;
}

Infos resize(const Ctx& c) {
  c.arity(1, 4, 1, 1);
  const Shape& x = c.shape(0);
  const int64_t r = static_cast<int64_t>(x.size());
  // Opset 10: (X, scales). Opset 11+: (X, roi, scales, sizes); an empty tensor means absent.
  const bool opset10 = c.opset() <= 10;
  const size_t scales_at = opset10 ? 1 : 2, sizes_at = 3;
  std::vector<int64_t> axes = c.node().attr_ints("axes", {});  // opset 18
  for (int64_t& a : axes) a = c.axis(a, r);
  std::vector<int64_t> sizes;
  std::vector<double> scales;
  if (!opset10 && c.has(sizes_at)) sizes = c.const_ints(sizes_at, "sizes");
  if (c.has(scales_at)) scales = c.const_floats(scales_at, "scales");
  if (!sizes.empty() && !scales.empty())
    c.fail("scales and sizes are both given; exactly one is allowed");
  if (sizes.empty() && scales.empty()) c.fail("neither scales nor sizes is given");
  const size_t given = sizes.empty() ? scales.size() : sizes.size();
  if (!axes.empty() && given != axes.size()) {
    c.fail(given, sizes.empty() ? " scales" : " sizes", " for ", axes.size(), " axes");
  }
  if (!sizes.empty()) {
    Shape out = sizes;
    if (!axes.empty()) {
      out = x;
      for (size_t i = 0; i < axes.size(); ++i) out[static_cast<size_t>(axes[i])] = sizes[i];
    }
    if (out.size() != x.size()) c.fail(sizes.size(), " sizes for an input of rank ", x.size());
    for (int64_t s : sizes) {
      if (s < 0 || s > kMaxDim) c.fail("sizes ", list_str(sizes), " must be in [0, 2^31]");
    }
    return {{c.dtype(0), out}};
  }
  if (!axes.empty()) {
    std::vector<double> full(x.size(), 1.0);
    for (size_t i = 0; i < axes.size(); ++i) full[static_cast<size_t>(axes[i])] = scales[i];
    scales = std::move(full);
  }
  return {{c.dtype(0), scaled(c, x, scales)}};
}

Infos upsample(const Ctx& c) {
  c.arity(1, 2, 1, 1);
  std::vector<double> scales;
  if (c.has(1)) {
    scales = c.const_floats(1, "scales");
  } else if (auto it = c.node().attrs.find("scales"); it != c.node().attrs.end()) {
    if (auto* v = std::get_if<std::vector<double>>(&it->second))
      scales = *v;
    else
      c.fail("attribute 'scales' must be a list of floats");
  } else {
    c.fail("scales (input 1 or attribute) is required");
  }
  return {{c.dtype(0), scaled(c, c.shape(0), scales)}};
}

std::vector<int64_t> axes_operand(const Ctx& c, bool required) {
  if (c.has(1)) return c.const_ints(1, "axes");
  if (c.node().has_attr("axes")) return c.node().attr_ints("axes", {});
  if (required) c.fail("axes (input 1 or attribute) is required");
  return {};
}

Infos squeeze(const Ctx& c) {
  c.arity(1, 2, 1, 1);
  const Shape& x = c.shape(0);
  const int64_t r = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes = axes_operand(c, false);
  std::vector<bool> drop(x.size(), false);
  if (axes.empty()) {
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] < 0)
        c.fail("cannot squeeze ", shape_str(x), " without axes: dim ", i, " is unknown");
      drop[i] = x[i] == 1;
    }
  }
  for (int64_t a : axes) {
    const size_t i = static_cast<size_t>(c.axis(a, r));
    if (x[i] >= 0 && x[i] != 1)
      c.fail("cannot squeeze axis ", i, " of length ", x[i], " in ", shape_str(x));
    drop[i] = true;
  }
  Shape out;
  for (size_t i = 0; i < x.size(); ++i)
    if (!drop[i]) out.push_back(x[i]);
  return {{c.dtype(0), out}};
}

Infos unsqueeze(const Ctx& c) {
  c.arity(1, 2, 1, 1);
  const Shape& x = c.shape(0);
  const std::vector<int64_t> axes = axes_operand(c, true);
  const int64_t r = static_cast<int64_t>(x.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(r), false);
  for (int64_t a : axes) {
    const size_t i = static_cast<size_t>(c.axis(a, r));
    if (inserted[i]) c.fail("axes ", list_str(axes), " repeat axis ", i);
    inserted[i] = true;
  }
  Shape out;
  size_t next = 0;
  for (size_t i = 0; i < inserted.size(); ++i) out.push_back(inserted[i] ? 1 : x[next++]);
  return {{c.dtype(0), out}};
}

Infos shape_op(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  const int64_t r = c.rank(0);
  int64_t start = c.node().attr_int("start", 0), end = c.node().attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  return {{DType::Int64, Shape{std::max<int64_t>(0, end - start)}}};
}

Infos gather(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  const Shape& x = c.shape(0);
  const Shape& idx = c.shape(1);
  if (x.empty()) c.fail("data must have rank >= 1");
  if (c.dtype(1) != DType::Int32 && c.dtype(1) != DType::Int64) {
    c.fail("indices must be int32 or int64, got ", dtype_name(c.dtype(1)));
  }
  const size_t a =
      static_cast<size_t>(c.axis(c.node().attr_int("axis", 0), static_cast<int64_t>(x.size())));
  if (const ConstValue* v = c.value(1); v && x[a] >= 0) {
    for (int64_t i : v->ints) {
      if (i < -x[a] || i >= x[a])
        c.fail("index ", i, " is out of range for axis ", a, " of length ", x[a]);
    }
  }
  Shape out(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(a));
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), x.begin() + static_cast<std::ptrdiff_t>(a) + 1, x.end());
  return {{c.dtype(0), out}};
}

// Scale and zero point of QuantizeLinear/DequantizeLinear: a scalar (per tensor) or a 1-D tensor
// over `axis` (per channel); the zero point has the scale's shape.
void check_quant_params(const Ctx& c) {
  const Shape& x = c.shape(0);
  const Shape& scale = c.shape(1);
  if (scale.size() > 1) c.fail("scale must be a scalar or 1-D, got ", shape_str(scale));
  if (scale.size() == 1 && scale[0] != 1) {
    const size_t a =
        static_cast<size_t>(c.axis(c.node().attr_int("axis", 1), static_cast<int64_t>(x.size())));
    if (scale[0] >= 0 && x[a] >= 0 && scale[0] != x[a]) {
      c.fail("per-axis scale has ", scale[0], " values, axis ", a, " of the input has ", x[a]);
    }
  }
  if (c.has(2) && count_elements(c.shape(2)) != count_elements(scale)) {
    c.fail("zero point ", shape_str(c.shape(2)), " does not match scale ", shape_str(scale));
  }
}

Infos quantize_linear(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  check_quant_params(c);
  DType out = DType::UInt8;
  if (c.has(2)) {
    out = c.dtype(2);
  } else if (c.node().has_attr("output_dtype")) {
    auto t = dtype_from_onnx_code(c.node().attr_int("output_dtype", 2));
    if (!t) c.fail("unsupported output_dtype");
    out = *t;
  }
  if (!is_integer(out)) c.fail("quantized dtype must be an integer type, got ", dtype_name(out));
  return {{out, c.shape(0)}};
}

Infos dequantize_linear(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  check_quant_params(c);
  if (!is_integer(c.dtype(0)))
    c.fail("input must be an integer tensor, got ", dtype_name(c.dtype(0)));
  if (c.has(2) && c.dtype(2) != c.dtype(0)) {
    c.fail("zero point dtype ", dtype_name(c.dtype(2)), " differs from input dtype ",
           dtype_name(c.dtype(0)));
  }
  return {{c.dtype(1), c.shape(0)}};
}

// ---------------------------------------------------------------------------------------------

using InferFn = Infos (*)(const Ctx&);
struct OpEntry {
  std::string_view op;
  InferFn fn;
};

constexpr OpEntry kOps[] = {
    {"Add", binary_elementwise},
    {"AveragePool", pool},
    {"BatchNormalization", batch_norm},
    {"Cast", cast},
    {"Clip", clip},
    {"Concat", concat},
    {"ConstantOfShape", constant_of_shape},
    {"Conv", conv},
    {"ConvTranspose", conv_transpose},
    {"DequantizeLinear", dequantize_linear},
    {"Div", binary_elementwise},
    {"Dropout", dropout},
    {"Erf", unary},
    {"Flatten", flatten},
    {"Gather", gather},
    {"Gemm", gemm},
    {"GlobalAveragePool", global_pool},
    {"GlobalMaxPool", global_pool},
    {"HardSigmoid", unary},
    {"HardSwish", unary},
    {"Identity", unary},
    {"LayerNormalization", layer_norm},
    {"LeakyRelu", unary},
    {"MatMul", matmul},
    {"MaxPool", pool},
    {"Mul", binary_elementwise},
    {"Pad", pad},
    {"Pow", binary_elementwise},
    {"QuantizeLinear", quantize_linear},
    {"ReduceMean", reduce},
    {"Relu", unary},
    {"Reshape", reshape},
    {"Resize", resize},
    {"Shape", shape_op},
    {"Sigmoid", unary},
    {"Sqrt", unary},
    {"Slice", slice},
    {"Softmax", softmax},
    {"Split", split},
    {"Squeeze", squeeze},
    {"Sub", binary_elementwise},
    {"Tanh", unary},
    {"Transpose", transpose},
    {"Unsqueeze", unsqueeze},
    {"Upsample", upsample},
};

Infos infer(const Graph& g, const Node& n, const KnownValues* known) {
  const bool onnx_domain = n.domain.empty() || n.domain == "ai.onnx";
  if (onnx_domain) {
    for (const OpEntry& e : kOps) {
      if (e.op == n.op_type) {
        Infos out = e.fn(Ctx(g, n, known));
        HETCIM_ASSERT(out.size() == n.outputs.size(), "op ", n.op_type, " inferred ", out.size(),
                      " outputs for ", n.outputs.size());
        return out;
      }
    }
  }
  throw user_error("unsupported op '", onnx_domain ? "" : n.domain + ".", n.op_type, "' at node '",
                   n.name, "'");
}

// ---------------------------------------------------------------------------------------------
// Values of small integer tensors computed from constants and static shapes, so that shape
// arithmetic (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) resolves inside infer_shapes.

std::optional<ConstValue> fold(const Graph& g, const Node& n, const KnownValues& known,
                               const Infos& outs) {
  if (outs.size() != 1 || !outs[0].shape) return std::nullopt;
  const int64_t count = count_elements(*outs[0].shape);
  if (count < 0 || count > kMaxTrackedElements) return std::nullopt;
  const Ctx c(g, n, &known);
  const std::string& op = n.op_type;
  if (op == "Shape") {
    const Shape& x = c.shape(0);
    const int64_t r = static_cast<int64_t>(x.size());
    int64_t start = n.attr_int("start", 0), end = n.attr_int("end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, 0, r);
    ConstValue v;
    for (int64_t i = start; i < end; ++i) {
      if (x[static_cast<size_t>(i)] < 0) return std::nullopt;
      v.ints.push_back(x[static_cast<size_t>(i)]);
    }
    return v;
  }
  if (op == "Identity" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" ||
      op == "Flatten") {
    const ConstValue* v = c.value(0);
    return v ? std::optional<ConstValue>(*v) : std::nullopt;
  }
  if (op == "Cast") {
    const ConstValue* v = c.value(0);
    if (!v) return std::nullopt;
    ConstValue out;
    out.is_int = is_integer(outs[0].dtype) || outs[0].dtype == DType::Bool;
    if (out.is_int && v->is_int) {
      out.ints = v->ints;
    } else if (out.is_int) {
      for (double f : v->floats) out.ints.push_back(static_cast<int64_t>(f));
    } else if (v->is_int) {
      out.floats.assign(v->ints.begin(), v->ints.end());
    } else {
      out.floats = v->floats;
    }
    return out;
  }
  if (op == "Concat") {
    if (outs[0].shape->size() != 1) return std::nullopt;
    ConstValue out;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ConstValue* v = c.value(i);
      if (!v || !v->is_int) return std::nullopt;
      out.ints.insert(out.ints.end(), v->ints.begin(), v->ints.end());
    }
    return out;
  }
  if (op == "Gather" || op == "Slice") {
    const ConstValue* v = c.value(0);
    if (!v || !v->is_int || c.shape(0).size() != 1) return std::nullopt;
    const int64_t dim = c.shape(0)[0];
    ConstValue out;
    if (op == "Gather") {
      const ConstValue* idx = c.value(1);
      if (!idx) return std::nullopt;
      for (int64_t i : idx->ints)
        out.ints.push_back(v->ints[static_cast<size_t>(i < 0 ? i + dim : i)]);
      return out;
    }
    if (n.inputs.size() < 3) return std::nullopt;
    const ConstValue* st = c.value(1);
    const ConstValue* steps = c.value(4);
    if (!st || st->ints.size() != 1) return std::nullopt;
    int64_t s = st->ints[0] < 0 ? st->ints[0] + dim : st->ints[0];
    const int64_t step = steps && steps->ints.size() == 1 ? steps->ints[0] : 1;
    s = step > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
    for (int64_t k = 0; k < count; ++k)
      out.ints.push_back(v->ints[static_cast<size_t>(s + k * step)]);
    return out;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    const ConstValue* a = c.value(0);
    const ConstValue* b = c.value(1);
    if (!a || !b || !a->is_int || !b->is_int) return std::nullopt;
    const size_t na = a->ints.size(), nb = b->ints.size();
    const auto n_out = static_cast<size_t>(count);
    if ((na != n_out && na != 1) || (nb != n_out && nb != 1)) return std::nullopt;
    ConstValue out;
    for (size_t k = 0; k < n_out; ++k) {
      const int64_t x = a->ints[na == 1 ? 0 : k];
      const int64_t y = b->ints[nb == 1 ? 0 : k];
      int64_t r = 0;
      bool overflow = false;
      if (op == "Add") {
        overflow = __builtin_add_overflow(x, y, &r);
      } else if (op == "Sub") {
        overflow = __builtin_sub_overflow(x, y, &r);
      } else if (op == "Mul") {
        overflow = __builtin_mul_overflow(x, y, &r);
      } else if (y == 0) {
        c.fail("integer division by zero");
      } else {
        overflow = x == std::numeric_limits<int64_t>::min() && y == -1;
        if (!overflow) r = x / y;
      }
      if (overflow) return std::nullopt;
      out.ints.push_back(r);
    }
    return out;
  }
  return std::nullopt;
}

// Merges an inferred info with one the graph already declares for the same tensor.
TensorInfo merge_declared(const Node& n, const std::string& tensor, const TensorInfo& inferred,
                          const TensorInfo& declared) {
  if (!declared.shape || !inferred.shape) return inferred.shape ? inferred : declared;
  const Shape& a = *inferred.shape;
  const Shape& b = *declared.shape;
  auto mismatch = [&] {
    return user_error("node '", n.name, "' (", n.op_type, "): inferred shape ", shape_str(a),
                      " for tensor '", tensor, "' but the graph declares ", shape_str(b));
  };
  if (a.size() != b.size()) throw mismatch();
  TensorInfo out = inferred;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) throw mismatch();
    if (a[i] < 0) (*out.shape)[i] = b[i];
  }
  return out;
}

}  // namespace

std::vector<TensorInfo> infer_outputs(const Graph& g, const Node& n) {
  return infer(g, n, nullptr);
}

std::optional<Initializer> fold_shape_arithmetic(const Graph& g, const Node& n) {
  static const std::set<std::string_view> kFoldable = {
      "Shape",  "Identity", "Cast",  "Squeeze", "Unsqueeze", "Reshape", "Flatten",
      "Concat", "Gather",   "Slice", "Add",     "Sub",       "Mul",     "Div"};
  if (!(n.domain.empty() || n.domain == "ai.onnx") || n.outputs.size() != 1 ||
      !kFoldable.count(n.op_type)) {
    return std::nullopt;
  }
  // Only constants (initializers) and static shapes: nothing is tracked.
  const KnownValues known;
  Infos outs;
  try {
    outs = infer(g, n, &known);
  } catch (const UserError&) {
    return std::nullopt;  // an operand whose shape is not known: nothing to fold
  }
  const std::optional<ConstValue> v = fold(g, n, known, outs);
  if (!v || !v->is_int) return std::nullopt;
  Initializer r = Initializer::from_ints(*outs[0].shape, v->ints);
  if (outs[0].dtype != DType::Int64) r = cast_to(r, outs[0].dtype);
  return r;
}

Shape infer_output_shape(const Graph& g, const Node& n) {
  Infos out = infer(g, n, nullptr);
  if (out.empty() || !out[0].shape) {
    throw user_error("node '", n.name, "' (", n.op_type, "): output shape is not known");
  }
  return *out[0].shape;
}

void infer_shapes(Graph& g) {
  validate(g);
  for (const std::string& in : g.inputs) {
    auto it = g.values.find(in);
    if (it == g.values.end() || !it->second.shape) {
      throw user_error("graph input '", in, "' has no shape");
    }
  }
  KnownValues known;
  for (const Node& n : g.nodes) {
    const Infos outs = infer(g, n, &known);
    if (auto v = fold(g, n, known, outs)) known.emplace(n.outputs[0], std::move(*v));
    for (size_t i = 0; i < outs.size(); ++i) {
      const std::string& t = n.outputs[i];
      if (t.empty()) continue;
      auto it = g.values.find(t);
      if (it == g.values.end()) {
        g.values.emplace(t, outs[i]);
      } else {
        it->second = merge_declared(n, t, outs[i], it->second);
      }
    }
  }
}

}  // namespace hetcim::graph
