// Shape rules of the data-movement operators: Flatten, Reshape, Transpose, Concat, Split, Slice,
// Resize / Upsample, Squeeze / Unsqueeze, Shape, Gather.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>

#include "graph/shape_rules.h"

namespace hetcim::graph::shape_rules {

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
    // In float, as ONNX's shape inference and ONNX Runtime compute it: 5 x 1.8f is 9 there, while
    // the exact product 8.99999976 would give 8.
    const double v =
        std::floor(static_cast<double>(static_cast<float>(x[i]) * static_cast<float>(scales[i])));
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

// Expand: the input broadcast with the constant shape operand (numpy rules, either side may be 1).
Infos expand(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  const std::vector<int64_t> target = c.const_ints(1, "shape");
  for (int64_t d : target) {
    if (d < 0 || d > kMaxDim) c.fail("shape ", list_str(target), " must be in [0, 2^31]");
  }
  return {{c.dtype(0), broadcast(c, c.shape(0), Shape(target.begin(), target.end()))}};
}

// Tile: every axis times its constant repeat.
Infos tile(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  const Shape& x = c.shape(0);
  const std::vector<int64_t> reps = c.const_ints(1, "repeats");
  if (reps.size() != x.size())
    c.fail("repeats ", list_str(reps), " has ", reps.size(), " values for rank ", x.size());
  Shape out = x;
  for (size_t i = 0; i < x.size(); ++i) {
    if (reps[i] < 0) c.fail("repeats ", list_str(reps), " has a negative value");
    if (x[i] < 0) continue;
    if (__builtin_mul_overflow(x[i], reps[i], &out[i]) || out[i] > kMaxDim)
      c.fail("repeats ", list_str(reps), " give a dimension above 2^31");
  }
  return {{c.dtype(0), out}};
}

// Range(start, limit, delta): scalars; its length max(ceil((limit - start) / delta), 0) needs
// their values.
Infos range(const Ctx& c) {
  c.arity(3, 3, 1, 1);
  for (size_t i = 0; i < 3; ++i) {
    if (count_elements(c.shape(i)) != 1)
      c.fail("input ", i, " must be a scalar, got shape ", shape_str(c.shape(i)));
    if (c.dtype(i) != c.dtype(0))
      c.fail("input ", i, " has dtype ", dtype_name(c.dtype(i)), ", start has ",
             dtype_name(c.dtype(0)));
  }
  static constexpr std::string_view kNames[] = {"start", "limit", "delta"};
  double v[3];
  for (size_t i = 0; i < 3; ++i) v[i] = c.const_floats(i, kNames[i]).at(0);
  if (v[2] == 0) c.fail("delta is 0");
  const double len = std::max(std::ceil((v[1] - v[0]) / v[2]), 0.0);
  if (!(len <= static_cast<double>(kMaxDim))) c.fail("the range has more than 2^31 elements");
  return {{c.dtype(0), Shape{static_cast<int64_t>(len)}}};
}

// ScatterND(data, indices, updates): data's shape; indices [..., k] with k <= rank(data), updates
// indices.shape[:-1] + data.shape[k:].
Infos scatter_nd(const Ctx& c) {
  c.arity(3, 3, 1, 1);
  const Shape& x = c.shape(0);
  const Shape& idx = c.shape(1);
  const Shape& upd = c.shape(2);
  if (c.dtype(1) != DType::Int64) c.fail("indices must be int64, got ", dtype_name(c.dtype(1)));
  if (c.dtype(2) != c.dtype(0)) {
    c.fail("updates have dtype ", dtype_name(c.dtype(2)), ", data has ", dtype_name(c.dtype(0)));
  }
  if (idx.empty() || idx.back() < 0 || idx.back() > static_cast<int64_t>(x.size()))
    c.fail("indices ", shape_str(idx), " must end in a known k <= ", x.size());
  Shape want(idx.begin(), idx.end() - 1);
  want.insert(want.end(), x.begin() + idx.back(), x.end());
  bool ok = want.size() == upd.size();
  for (size_t i = 0; ok && i < want.size(); ++i)
    ok = want[i] < 0 || upd[i] < 0 || want[i] == upd[i];
  if (!ok) c.fail("updates ", shape_str(upd), " should have shape ", shape_str(want));
  return same_as_input(c);
}

Infos size_op(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  (void)c.shape(0);
  return {{DType::Int64, Shape{}}};
}

}  // namespace hetcim::graph::shape_rules
