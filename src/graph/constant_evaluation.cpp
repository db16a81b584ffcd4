// Values of small tensors computed from constants and static shapes, so that the shape subgraphs
// exporters emit (Shape -> Gather -> Unsqueeze -> Concat -> Reshape / Expand, Equal, Where, Range,
// Mod, ScatterND, ...) resolve inside infer_shapes and passes::fold_constants folds them, as ONNX
// Runtime's constant folding does. Integers are exact (int64); floating-point values are doubles
// rounded to the output dtype when they become an initializer.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "graph/shape_rules.h"

namespace hetcim::graph::shape_rules {
namespace {

using Index = std::vector<size_t>;

// Row-major strides of `s` (all dims known).
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// For every element of `out` (row-major), the index of the element of `in` that numpy
// broadcasting reads there. `in` must broadcast to `out`.
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

// The value at flat index i as a double / as an integer.
double as_double(const ConstValue& v, size_t i) {
  return v.is_int ? static_cast<double>(v.ints[i]) : v.floats[i];
}

// A value of `outs[0]`'s dtype: integers (and bool) as ints, floating point as doubles.
ConstValue empty_like(const TensorInfo& out) {
  ConstValue v;
  v.is_int = is_integer(out.dtype) || out.dtype == DType::Bool;
  return v;
}

// out[e] = in[index[e]] for a value of the same kind.
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

// Integer floor modulo with the divisor's sign (ONNX Mod, fmod = 0).
int64_t floor_mod(int64_t x, int64_t y) {
  const int64_t r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}

// The element-wise binary operators the evaluator knows, named once: the per-element loop below
// switches on this, not on the operator's name.
enum class Binary {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Max,
  Min,
  Equal,
  Less,
  Greater,
  LessEq,
  GreaterEq,
  And,
  Or,
  Xor
};

std::optional<Binary> binary_kind(const std::string& op) {
  static const std::unordered_map<std::string, Binary> kinds = {
      {"Add", Binary::Add},
      {"Sub", Binary::Sub},
      {"Mul", Binary::Mul},
      {"Div", Binary::Div},
      {"Mod", Binary::Mod},
      {"Max", Binary::Max},
      {"Min", Binary::Min},
      {"Equal", Binary::Equal},
      {"Less", Binary::Less},
      {"Greater", Binary::Greater},
      {"LessOrEqual", Binary::LessEq},
      {"GreaterOrEqual", Binary::GreaterEq},
      {"And", Binary::And},
      {"Or", Binary::Or},
      {"Xor", Binary::Xor}};
  const auto it = kinds.find(op);
  if (it == kinds.end()) return std::nullopt;
  return it->second;
}

template <class T>
bool compare_values(Binary k, T x, T y) {
  switch (k) {
    case Binary::Equal:
      return x == y;
    case Binary::Less:
      return x < y;
    case Binary::Greater:
      return x > y;
    case Binary::LessEq:
      return x <= y;
    case Binary::GreaterEq:
      return x >= y;
    case Binary::And:
      return std::is_integral_v<T> && x != 0 && y != 0;
    case Binary::Or:
      return std::is_integral_v<T> && (x != 0 || y != 0);
    case Binary::Xor:
      return std::is_integral_v<T> && ((x != 0) != (y != 0));
    default:
      return false;
  }
}

// Element-wise binary operators with numpy broadcasting. nullopt on integer overflow.
std::optional<ConstValue> binary_values(const Ctx& c, const TensorInfo& out, const ConstValue& a,
                                        const ConstValue& b) {
  const std::optional<Binary> kind = binary_kind(c.node().op_type);
  if (!kind) return std::nullopt;
  const Binary k = *kind;
  const Shape& os = *out.shape;
  const Index ia = broadcast_index(os, c.shape(0));
  const Index ib = broadcast_index(os, c.shape(1));
  ConstValue r = empty_like(out);
  const bool compare = k >= Binary::Equal;
  const bool ints = a.is_int && b.is_int;
  const bool fmod = c.node().attr_int("fmod", 0) != 0;
  for (size_t e = 0; e < ia.size(); ++e) {
    if (compare) {
      const bool v = ints ? compare_values(k, a.ints[ia[e]], b.ints[ib[e]])
                          : compare_values(k, as_double(a, ia[e]), as_double(b, ib[e]));
      r.ints.push_back(v ? 1 : 0);
      continue;
    }
    if (ints && r.is_int) {
      const int64_t x = a.ints[ia[e]], y = b.ints[ib[e]];
      int64_t v = 0;
      bool overflow = false;
      switch (k) {
        case Binary::Add:
          overflow = __builtin_add_overflow(x, y, &v);
          break;
        case Binary::Sub:
          overflow = __builtin_sub_overflow(x, y, &v);
          break;
        case Binary::Mul:
          overflow = __builtin_mul_overflow(x, y, &v);
          break;
        case Binary::Div:
        case Binary::Mod:
          if (y == 0) c.fail("integer ", k == Binary::Div ? "division" : "modulo", " by zero");
          overflow = x == std::numeric_limits<int64_t>::min() && y == -1;
          if (!overflow) {
            if (k == Binary::Div)
              v = x / y;  // ONNX integer Div truncates toward zero, as C++ does
            else
              v = fmod ? x % y : floor_mod(x, y);
          }
          break;
        case Binary::Max:
          v = std::max(x, y);
          break;
        case Binary::Min:
          v = std::min(x, y);
          break;
        default:
          return std::nullopt;
      }
      if (overflow) return std::nullopt;
      r.ints.push_back(v);
      continue;
    }
    if (r.is_int) return std::nullopt;  // mixed kinds into an integer output: not ONNX
    const double x = as_double(a, ia[e]), y = as_double(b, ib[e]);
    double v = 0.0;
    switch (k) {
      case Binary::Add:
        v = x + y;
        break;
      case Binary::Sub:
        v = x - y;
        break;
      case Binary::Mul:
        v = x * y;
        break;
      case Binary::Div:
        v = x / y;
        break;
      case Binary::Mod:
        if (!fmod) c.fail("floating-point Mod requires fmod = 1");
        v = std::fmod(x, y);
        break;
      case Binary::Max:
        v = std::max(x, y);
        break;
      case Binary::Min:
        v = std::min(x, y);
        break;
      default:
        return std::nullopt;
    }
    // Rounded to the float32 result the operator would compute (exact for + - * / of floats).
    r.floats.push_back(out.dtype == DType::Float32 ? static_cast<double>(static_cast<float>(v))
                                                   : v);
  }
  return r;
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

// Index of every output element of Gather (axis a) into the data.
Index gather_index(const Ctx& c, const Shape& x, const std::vector<int64_t>& idx, size_t a) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < a; ++d) outer *= x[d];
  for (size_t d = a + 1; d < x.size(); ++d) inner *= x[d];
  const int64_t dim = x[a];
  Index out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : idx) {
      if (i < -dim || i >= dim)
        c.fail("index ", i, " is out of range for axis ", a, " of length ", dim);
      const int64_t k = i < 0 ? i + dim : i;
      for (int64_t in = 0; in < inner; ++in)
        out.push_back(static_cast<size_t>((o * dim + k) * inner + in));
    }
  }
  return out;
}

// Index of every output element of a Slice with the given (normalised) per-axis start and step.
Index slice_index(const Shape& x, const Shape& out, const std::vector<int64_t>& start,
                  const std::vector<int64_t>& step) {
  const std::vector<int64_t> st = strides_of(x);
  const int64_t n = element_count(out);
  Index idx(static_cast<size_t>(n));
  std::vector<int64_t> pos(out.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = 0;
    for (size_t d = 0; d < out.size(); ++d) at += (start[d] + pos[d] * step[d]) * st[d];
    idx[static_cast<size_t>(e)] = static_cast<size_t>(at);
    for (size_t d = out.size(); d-- > 0;) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
  return idx;
}

std::optional<Index> slice_operands(const Ctx& c, const Shape& x, const Shape& out) {
  const size_t r = x.size();
  std::vector<int64_t> start(r, 0), step(r, 1);
  std::vector<int64_t> starts, axes, steps;
  if (c.node().inputs.size() > 1) {
    const ConstValue* s = c.value(1);
    if (!s) return std::nullopt;
    starts = s->ints;
    if (c.has(3)) {
      const ConstValue* a = c.value(3);
      if (!a) return std::nullopt;
      axes = a->ints;
    }
    if (c.has(4)) {
      const ConstValue* p = c.value(4);
      if (!p) return std::nullopt;
      steps = p->ints;
    }
  } else {
    starts = c.node().attr_ints("starts", {});
    axes = c.node().attr_ints("axes", {});
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t a = static_cast<size_t>(c.axis(axes.empty() ? static_cast<int64_t>(i) : axes[i],
                                                static_cast<int64_t>(r), "slice axis"));
    const int64_t dim = x[a];
    const int64_t p = steps.empty() ? 1 : steps[i];
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    s = p > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
    start[a] = s;
    step[a] = p;
  }
  return slice_index(x, out, start, step);
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

Index tile_index(const Shape& x, const Shape& out) {
  const std::vector<int64_t> st = strides_of(x);
  const int64_t n = element_count(out);
  Index idx(static_cast<size_t>(n));
  std::vector<int64_t> pos(out.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = 0;
    for (size_t d = 0; d < out.size(); ++d) at += (pos[d] % x[d]) * st[d];
    idx[static_cast<size_t>(e)] = static_cast<size_t>(at);
    for (size_t d = out.size(); d-- > 0;) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
  return idx;
}

std::optional<ConstValue> concat_values(const Ctx& c, const Shape& out) {
  const size_t a =
      static_cast<size_t>(c.axis(c.node().attr_int("axis", 0), static_cast<int64_t>(out.size())));
  int64_t outer = 1;
  for (size_t d = 0; d < a; ++d) outer *= out[d];
  std::vector<const ConstValue*> parts;
  std::vector<int64_t> runs;  // elements per outer index in each part
  for (size_t i = 0; i < c.node().inputs.size(); ++i) {
    const ConstValue* v = c.value(i);
    if (!v) return std::nullopt;
    if (!parts.empty() && v->is_int != parts[0]->is_int) return std::nullopt;
    parts.push_back(v);
    const Shape& s = c.shape(i);
    int64_t run = 1;
    for (size_t d = a; d < s.size(); ++d) run *= s[d];
    runs.push_back(run);
  }
  ConstValue r;
  r.is_int = parts[0]->is_int;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto b = static_cast<size_t>(o * runs[i]), e = static_cast<size_t>((o + 1) * runs[i]);
      if (r.is_int)
        r.ints.insert(r.ints.end(), parts[i]->ints.begin() + b, parts[i]->ints.begin() + e);
      else
        r.floats.insert(r.floats.end(), parts[i]->floats.begin() + b, parts[i]->floats.begin() + e);
    }
  }
  return r;
}

std::optional<ConstValue> scatter_values(const Ctx& c, const ConstValue& data) {
  const ConstValue* indices = c.value(1);
  const ConstValue* updates = c.value(2);
  if (!indices || !updates || updates->is_int != data.is_int) return std::nullopt;
  if (c.node().attr_string("reduction", "none") != "none") return std::nullopt;
  const Shape& x = c.shape(0);
  const Shape& is = c.shape(1);
  const size_t k = static_cast<size_t>(is.back());
  const std::vector<int64_t> st = strides_of(x);
  int64_t slice = 1;
  for (size_t d = k; d < x.size(); ++d) slice *= x[d];
  ConstValue r = data;
  // One update per index tuple: the product of indices.shape[:-1] (k = 0 tuples are empty).
  const auto n = static_cast<size_t>(element_count(Shape(is.begin(), is.end() - 1)));
  for (size_t u = 0; u < n; ++u) {
    int64_t at = 0;
    for (size_t d = 0; d < k; ++d) {
      int64_t i = indices->ints[u * k + d];
      if (i < -x[d] || i >= x[d])
        c.fail("index ", i, " is out of range for axis ", d, " of length ", x[d]);
      at += (i < 0 ? i + x[d] : i) * st[d];
    }
    for (int64_t j = 0; j < slice; ++j) {
      const auto to = static_cast<size_t>(at + j);
      const auto from = static_cast<size_t>(static_cast<int64_t>(u) * slice + j);
      if (r.is_int)
        r.ints[to] = updates->ints[from];
      else
        r.floats[to] = updates->floats[from];
    }
  }
  return r;
}

std::optional<ConstValue> reduce_prod_values(const Ctx& c, const ConstValue& v, const Shape& out) {
  const Shape& x = c.shape(0);
  std::vector<int64_t> axes = c.node().attr_ints("axes", {});
  if (c.has(1)) {
    const ConstValue* a = c.value(1);
    if (!a) return std::nullopt;
    axes = a->ints;
  }
  std::vector<bool> red(x.size(),
                        axes.empty() && c.node().attr_int("noop_with_empty_axes", 0) == 0);
  for (int64_t a : axes) red[static_cast<size_t>(c.axis(a, static_cast<int64_t>(x.size())))] = true;
  // Output position of every input element: reduced axes collapse to 0.
  const std::vector<int64_t> st = strides_of(x);
  Shape kept;
  for (size_t d = 0; d < x.size(); ++d) kept.push_back(red[d] ? 1 : x[d]);
  const std::vector<int64_t> kst = strides_of(kept);
  ConstValue r;
  r.is_int = v.is_int;
  const auto n_out = static_cast<size_t>(element_count(out));
  if (r.is_int)
    r.ints.assign(n_out, 1);
  else
    r.floats.assign(n_out, 1.0);
  const int64_t n = element_count(x);
  std::vector<int64_t> pos(x.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t o = 0;
    for (size_t d = 0; d < x.size(); ++d) o += (red[d] ? 0 : pos[d]) * kst[d];
    const auto oi = static_cast<size_t>(o), ei = static_cast<size_t>(e);
    if (r.is_int) {
      if (__builtin_mul_overflow(r.ints[oi], v.ints[ei], &r.ints[oi])) return std::nullopt;
    } else {
      r.floats[oi] *= v.floats[ei];
    }
    for (size_t d = x.size(); d-- > 0;) {
      if (++pos[d] < x[d]) break;
      pos[d] = 0;
    }
  }
  return r;
}

// ---- the evaluators, one per operator: (context, output info, output element count, input 0's
// values when the operator reads them) -> the output's values, or nullopt when not constant.
using Value = std::optional<ConstValue>;

Value eval_shape_of(const Ctx& c, const TensorInfo&, int64_t, const ConstValue*) {
  const Node& n = c.node();
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

Value eval_size_of_input(const Ctx& c, const TensorInfo&, int64_t, const ConstValue*) {
  const int64_t e = count_elements(c.shape(0));
  if (e < 0) return std::nullopt;
  ConstValue v;
  v.ints.push_back(e);
  return v;
}

Value eval_constant_of_shape(const Ctx& c, const TensorInfo& out, int64_t count,
                             const ConstValue*) {
  // Only the shape operand is read (already a constant: the shape rule required it).
  const Node& n = c.node();
  double fill = 0.0;
  if (n.has_attr("value")) {
    const Attribute& a = n.attrs.at("value");
    fill = std::holds_alternative<double>(a) ? std::get<double>(a)
                                             : static_cast<double>(n.attr_int("value", 0));
  }
  ConstValue one;
  one.is_int = false;
  one.floats.push_back(fill);
  ConstValue v = cast_value(one, out.dtype);
  if (v.is_int)
    v.ints.assign(static_cast<size_t>(count), v.ints[0]);
  else
    v.floats.assign(static_cast<size_t>(count), v.floats[0]);
  return v;
}

Value eval_range(const Ctx& c, const TensorInfo& out, int64_t count, const ConstValue*) {
  const ConstValue* s = c.value(0);
  const ConstValue* l = c.value(1);
  const ConstValue* d = c.value(2);
  if (!s || !l || !d) return std::nullopt;
  ConstValue v = empty_like(out);
  for (int64_t k = 0; k < count; ++k) {
    if (v.is_int)
      v.ints.push_back(s->ints[0] + k * d->ints[0]);
    else
      v.floats.push_back(as_double(*s, 0) + static_cast<double>(k) * as_double(*d, 0));
  }
  return v;
}

Value eval_same_values(const Ctx&, const TensorInfo&, int64_t, const ConstValue* x) {
  return *x;
}

Value eval_cast(const Ctx&, const TensorInfo& out, int64_t, const ConstValue* x) {
  return cast_value(*x, out.dtype);
}

Value eval_logical_not(const Ctx&, const TensorInfo&, int64_t, const ConstValue* x) {
  ConstValue v;
  for (size_t i = 0; i < size_of(*x); ++i) v.ints.push_back(as_double(*x, i) == 0.0 ? 1 : 0);
  return v;
}

template <bool Neg>
Value eval_neg_or_abs(const Ctx&, const TensorInfo&, int64_t, const ConstValue* x) {
  ConstValue v = *x;
  for (int64_t& i : v.ints) {
    if (i == std::numeric_limits<int64_t>::min()) return std::nullopt;
    i = Neg ? -i : std::abs(i);
  }
  for (double& f : v.floats) f = Neg ? -f : std::abs(f);
  return v;
}

Value eval_concat(const Ctx& c, const TensorInfo& out, int64_t, const ConstValue*) {
  return concat_values(c, *out.shape);
}

Value eval_gather(const Ctx& c, const TensorInfo&, int64_t, const ConstValue* x) {
  const ConstValue* idx = c.value(1);
  if (!idx) return std::nullopt;
  const Shape& xs = c.shape(0);
  const auto a =
      static_cast<size_t>(c.axis(c.node().attr_int("axis", 0), static_cast<int64_t>(xs.size())));
  return gather_flat(*x, gather_index(c, xs, idx->ints, a));
}

Value eval_slice(const Ctx& c, const TensorInfo& out, int64_t, const ConstValue* x) {
  const std::optional<Index> idx = slice_operands(c, c.shape(0), *out.shape);
  if (!idx) return std::nullopt;
  return gather_flat(*x, *idx);
}

Value eval_transpose(const Ctx& c, const TensorInfo& out, int64_t, const ConstValue* x) {
  const Shape& xs = c.shape(0);
  std::vector<int64_t> perm(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) perm[i] = static_cast<int64_t>(xs.size() - 1 - i);
  perm = c.node().attr_ints("perm", perm);
  return gather_flat(*x, transpose_index(xs, perm, *out.shape));
}

Value eval_expand(const Ctx& c, const TensorInfo& out, int64_t, const ConstValue* x) {
  if (!c.value(1)) return std::nullopt;
  return gather_flat(*x, broadcast_index(*out.shape, c.shape(0)));
}

Value eval_tile(const Ctx& c, const TensorInfo& out, int64_t, const ConstValue* x) {
  if (!c.value(1)) return std::nullopt;
  return gather_flat(*x, tile_index(c.shape(0), *out.shape));
}

Value eval_where(const Ctx& c, const TensorInfo& out, int64_t, const ConstValue* x) {
  const ConstValue* a = c.value(1);
  const ConstValue* b = c.value(2);
  if (!a || !b || a->is_int != b->is_int) return std::nullopt;
  const Shape& os = *out.shape;
  const Index ic = broadcast_index(os, c.shape(0));
  const Index ia = broadcast_index(os, c.shape(1));
  const Index ib = broadcast_index(os, c.shape(2));
  ConstValue v;
  v.is_int = a->is_int;
  for (size_t e = 0; e < ic.size(); ++e) {
    const bool take_a = as_double(*x, ic[e]) != 0.0;
    if (v.is_int)
      v.ints.push_back(take_a ? a->ints[ia[e]] : b->ints[ib[e]]);
    else
      v.floats.push_back(take_a ? a->floats[ia[e]] : b->floats[ib[e]]);
  }
  return v;
}

Value eval_scatter_nd(const Ctx& c, const TensorInfo&, int64_t, const ConstValue* x) {
  return scatter_values(c, *x);
}

Value eval_reduce_prod(const Ctx& c, const TensorInfo& out, int64_t, const ConstValue* x) {
  return reduce_prod_values(c, *x, *out.shape);
}

Value eval_binary(const Ctx& c, const TensorInfo& out, int64_t, const ConstValue* x) {
  const ConstValue* y = c.value(1);
  if (!y || c.node().inputs.size() != 2) return std::nullopt;
  return binary_values(c, out, *x, *y);
}

struct Evaluator {
  Value (*run)(const Ctx&, const TensorInfo&, int64_t, const ConstValue*);
  bool reads_x = true;  // input 0's values are needed (nullopt without them)
};

// The evaluator of `op`: the table, then the binary operators (binary_kind names them).
const Evaluator* evaluator_of(const std::string& op) {
  static const std::unordered_map<std::string, Evaluator> kTable = {
      {"Shape", {eval_shape_of, false}},
      {"Size", {eval_size_of_input, false}},
      {"ConstantOfShape", {eval_constant_of_shape, false}},
      {"Range", {eval_range, false}},
      {"Identity", {eval_same_values}},
      {"Unsqueeze", {eval_same_values}},
      {"Squeeze", {eval_same_values}},
      {"Reshape", {eval_same_values}},
      {"Flatten", {eval_same_values}},
      {"Cast", {eval_cast}},
      {"Not", {eval_logical_not}},
      {"Neg", {eval_neg_or_abs<true>}},
      {"Abs", {eval_neg_or_abs<false>}},
      {"Concat", {eval_concat}},
      {"Gather", {eval_gather}},
      {"Slice", {eval_slice}},
      {"Transpose", {eval_transpose}},
      {"Expand", {eval_expand}},
      {"Tile", {eval_tile}},
      {"Where", {eval_where}},
      {"ScatterND", {eval_scatter_nd}},
      {"ReduceProd", {eval_reduce_prod}},
  };
  static const Evaluator kBinary{eval_binary};
  if (auto it = kTable.find(op); it != kTable.end()) return &it->second;
  return binary_kind(op) ? &kBinary : nullptr;
}

}  // namespace

std::optional<ConstValue> evaluate(const Ctx& c, const Infos& outs, int64_t max_elements) {
  if (outs.size() != 1 || !outs[0].shape) return std::nullopt;
  const int64_t count = count_elements(*outs[0].shape);
  if (count < 0 || count > max_elements) return std::nullopt;
  const Evaluator* e = evaluator_of(c.node().op_type);
  if (!e) return std::nullopt;
  const ConstValue* x = nullptr;
  if (e->reads_x) {
    x = c.value(0);
    if (!x) return std::nullopt;
  }
  return e->run(c, outs[0], count, x);
}

}  // namespace hetcim::graph::shape_rules
