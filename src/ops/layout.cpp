// Data movement that keeps the values: Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout
// (inference: the identity) and Transpose. Kernels: exec/families/layout.cpp; the shape rules and
// the constant evaluators (shape subgraphs reshape and transpose shape vectors) are here.
#include <algorithm>

#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

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

Infos dropout(const Ctx& c) {
  c.arity(1, 3, 1, 2);
  Infos out = same_as_input(c);
  if (c.node().outputs.size() == 2) out.push_back({DType::Bool, c.shape(0)});
  return out;
}

Index transpose_index(const Shape& x, const std::vector<int64_t>& perm, const Shape& out) {
  const std::vector<int64_t> st = strides_of(x);
  std::vector<int64_t> ost(out.size());
  for (size_t d = 0; d < out.size(); ++d) ost[d] = st[static_cast<size_t>(perm[d])];
  std::vector<int64_t> start(out.size(), 0);
  // A transpose is a slice with permuted strides: walk the output, step the input by ost.
  const int64_t n = element_count(out);
  Index idx(static_cast<size_t>(n));
  std::vector<int64_t> pos(out.size(), 0);
  int64_t at = 0;
  for (int64_t e = 0; e < n; ++e) {
    idx[static_cast<size_t>(e)] = static_cast<size_t>(at);
    for (size_t d = out.size(); d-- > 0;) {
      ++pos[d];
      at += ost[d];
      if (pos[d] < out[d]) break;
      at -= ost[d] * pos[d];
      pos[d] = 0;
    }
  }
  return idx;
}

Value fold_same_values(const Ctx& c, const TensorInfo&, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  return *x;
}

Value fold_transpose(const Ctx& c, const TensorInfo& out, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  const Shape& xs = c.shape(0);
  std::vector<int64_t> perm(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) perm[i] = static_cast<int64_t>(xs.size() - 1 - i);
  perm = c.node().attr_ints("perm", perm);
  return gather_flat(*x, transpose_index(xs, perm, *out.shape));
}

}  // namespace

std::vector<Family> layout_family() {
  return {{.op = "Reshape",
           .family = "reshape",
           .shape = reshape,
           .fold = fold_same_values,
           .shape_operands = {1},
           .int8_runs = true,
           .int8_passthrough = true},
          {.op = "Flatten", .family = "reshape", .shape = flatten, .fold = fold_same_values},
          {.op = "Squeeze",
           .family = "reshape",
           .shape = squeeze,
           .fold = fold_same_values,
           .shape_operands = {1},
           .int8_runs = true,
           .int8_passthrough = true},
          {.op = "Unsqueeze",
           .family = "reshape",
           .shape = unsqueeze,
           .fold = fold_same_values,
           .shape_operands = {1},
           .int8_runs = true,
           .int8_passthrough = true},
          {.op = "Identity", .family = "reshape", .shape = unary, .fold = fold_same_values},
          {.op = "Dropout", .family = "reshape", .shape = dropout},
          {.op = "Transpose",
           .family = "transpose",
           .shape = transpose,
           .fold = fold_transpose,
           .int8_runs = true,
           .int8_passthrough = true}};
}

}  // namespace hetcim::ops
