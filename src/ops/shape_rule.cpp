// What the shape rules and constant evaluators of several operator families share
// (ops/shape_rule.h): broadcasting, the one-input rule, sliding windows, index maps and the value
// helpers of constant evaluation. Integers are exact (int64); floating-point values are doubles
// rounded to the output dtype when they become an initializer.
#include "ops/shape_rule.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

namespace hetcim::ops::shape_rules {

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

Infos unary(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  return same_as_input(c);
}

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

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

Index broadcast_index(const Shape& out, const Shape& in) {
  const size_t r = out.size();
  std::vector<int64_t> st(r, 0);
  const std::vector<int64_t> ist = strides_of(in);
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t d = r - in.size() + k;
    st[d] = in[k] == 1 ? 0 : ist[k];
  }
  const int64_t n = element_count(out);
  Index idx(static_cast<size_t>(n));
  std::vector<int64_t> pos(r, 0);
  int64_t at = 0;
  for (int64_t e = 0; e < n; ++e) {
    idx[static_cast<size_t>(e)] = static_cast<size_t>(at);
    for (size_t d = r; d-- > 0;) {
      ++pos[d];
      at += st[d];
      if (pos[d] < out[d]) break;
      at -= st[d] * pos[d];
      pos[d] = 0;
    }
  }
  return idx;
}

std::optional<ConstOperands> const_operands(const Ctx& c, const TensorInfo& out) {
  const ConstValue* a = c.value(0);
  if (!a) return std::nullopt;
  const ConstValue* b = c.value(1);
  if (!b || c.node().inputs.size() != 2) return std::nullopt;
  return ConstOperands{*a, *b, broadcast_index(*out.shape, c.shape(0)),
                       broadcast_index(*out.shape, c.shape(1))};
}

double as_double(const ConstValue& v, size_t i) {
  return v.is_int ? static_cast<double>(v.ints[i]) : v.floats[i];
}

ConstValue empty_like(const TensorInfo& out) {
  ConstValue v;
  v.is_int = is_integer(out.dtype) || out.dtype == DType::Bool;
  return v;
}

ConstValue gather_flat(const ConstValue& in, const Index& index) {
  ConstValue out;
  out.is_int = in.is_int;
  if (in.is_int) {
    out.ints.reserve(index.size());
    for (size_t i : index) out.ints.push_back(in.ints[i]);
  } else {
    out.floats.reserve(index.size());
    for (size_t i : index) out.floats.push_back(in.floats[i]);
  }
  return out;
}

size_t size_of(const ConstValue& v) {
  return v.is_int ? v.ints.size() : v.floats.size();
}

ConstValue cast_value(const ConstValue& v, DType to) {
  ConstValue out;
  out.is_int = is_integer(to) || to == DType::Bool;
  const size_t n = size_of(v);
  for (size_t i = 0; i < n; ++i) {
    if (to == DType::Bool) {
      out.ints.push_back(as_double(v, i) != 0.0 ? 1 : 0);
    } else if (out.is_int) {
      if (v.is_int) {
        out.ints.push_back(v.ints[i]);
      } else {
        const double f = v.floats[i];
        out.ints.push_back(
            std::isnan(f) ? 0
                          : static_cast<int64_t>(std::clamp(std::trunc(f), -9.2233720368547748e18,
                                                            9.2233720368547748e18)));
      }
    } else {
      const double f = as_double(v, i);
      out.floats.push_back(to == DType::Float32 ? static_cast<double>(static_cast<float>(f)) : f);
    }
  }
  return out;
}

}  // namespace hetcim::ops::shape_rules
