// The operators of shape subgraphs (Shape, Size, ConstantOfShape, Cast, Range, Expand, Tile,
// ScatterND): no executor runs them; their values come from constants and static shapes, so shape
// inference resolves what depends on them and passes::fold_constants folds them, as ONNX
// Runtime's constant folding does for fixed input shapes.
#include <algorithm>
#include <cmath>
#include <variant>

#include "graph/constant_values.h"
#include "ops/families.h"
#include "util/error.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

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

Infos size_op(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  (void)c.shape(0);
  return {{DType::Int64, Shape{}}};
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

Value fold_shape_of(const Ctx& c, const TensorInfo&, int64_t) {
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

Value fold_size(const Ctx& c, const TensorInfo&, int64_t) {
  const int64_t e = count_elements(c.shape(0));
  if (e < 0) return std::nullopt;
  ConstValue v;
  v.ints.push_back(e);
  return v;
}

Value fold_constant_of_shape(const Ctx& c, const TensorInfo& out, int64_t count) {
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

Value fold_range(const Ctx& c, const TensorInfo& out, int64_t count) {
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

Value fold_cast(const Ctx& c, const TensorInfo& out, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  return cast_value(*x, out.dtype);
}

Value fold_expand(const Ctx& c, const TensorInfo& out, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  if (!c.value(1)) return std::nullopt;
  return gather_flat(*x, broadcast_index(*out.shape, c.shape(0)));
}

Value fold_tile(const Ctx& c, const TensorInfo& out, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  if (!c.value(1)) return std::nullopt;
  return gather_flat(*x, tile_index(c.shape(0), *out.shape));
}

Value fold_scatter_nd(const Ctx& c, const TensorInfo&, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  return scatter_values(c, *x);
}

// ---- any dtype and size (Family::fold_any): what passes::fold_constants folds beyond shapes

// Input 0 when it is an initializer with values, else nullptr.
const graph::Initializer* constant_input(const graph::Graph& g, const graph::Node& n) {
  if (n.inputs.empty() || n.inputs[0].empty()) return nullptr;
  auto it = g.initializers.find(n.inputs[0]);
  return it == g.initializers.end() || !it->second.has_values() ? nullptr : &it->second;
}

std::optional<graph::Initializer> any_cast(const graph::Graph& g, const graph::Node& n) {
  const graph::Initializer* x = constant_input(g, n);
  if (!x) return std::nullopt;
  const int64_t code = n.attr_int("to", -1);
  const auto to = graph::dtype_from_onnx_code(code);
  if (!to) {
    throw user_error("node '", n.name, "' (Cast): attribute 'to' is ", code,
                     ", a type hetcim does not represent (expected FLOAT, DOUBLE, INT8, UINT8, "
                     "INT32, INT64 or BOOL)");
  }
  return graph::cast_to(*x, *to);
}

std::optional<graph::Initializer> any_constant_of_shape(const graph::Graph& g,
                                                        const graph::Node& n) {
  const graph::Initializer* s = constant_input(g, n);
  if (!s || !(graph::is_integer(s->info.dtype) || s->info.dtype == DType::Bool))
    return std::nullopt;
  const std::vector<int64_t> dims = s->ints();
  for (int64_t d : dims) {
    if (d < 0) {
      throw user_error("node '", n.name, "' (ConstantOfShape): shape operand '", n.inputs[0],
                       "' has a negative dimension ", d);
    }
  }
  const int64_t code = n.attr_int("value_dtype", 1);
  const auto t = graph::dtype_from_onnx_code(code);
  if (!t) throw user_error("node '", n.name, "' (ConstantOfShape): value of unsupported type");
  double v = 0.0;
  if (n.has_attr("value")) {
    const graph::Attribute& a = n.attrs.at("value");
    v = std::holds_alternative<double>(a) ? std::get<double>(a)
                                          : static_cast<double>(n.attr_int("value", 0));
  }
  const graph::Shape shape(dims.begin(), dims.end());
  if (graph::element_count(shape) > (int64_t{1} << 28)) {
    throw user_error("node '", n.name, "' (ConstantOfShape): shape ", graph::shape_str(shape),
                     " is too large to fold");
  }
  return graph::filled(*t, shape, v);
}

}  // namespace

std::vector<Family> shape_ops_family() {
  return {{.op = "Shape",
           .family = "shape",
           .runs = false,
           .shape = shape_op,
           .fold = fold_shape_of,
           .reads_shape_only = true},
          {.op = "Size",
           .family = "shape",
           .runs = false,
           .shape = size_op,
           .fold = fold_size,
           .reads_shape_only = true},
          {.op = "ConstantOfShape",
           .family = "shape",
           .runs = false,
           .shape = constant_of_shape,
           .fold = fold_constant_of_shape,
           .fold_any = any_constant_of_shape,
           .shape_operands = {0}},
          {.op = "Cast",
           .family = "shape",
           .runs = false,
           .shape = cast,
           .fold = fold_cast,
           .fold_any = any_cast},
          {.op = "Range",
           .family = "shape",
           .runs = false,
           .shape = range,
           .fold = fold_range,
           .shape_operands = {0, 1, 2}},
          {.op = "Expand",
           .family = "shape",
           .runs = false,
           .shape = expand,
           .fold = fold_expand,
           .shape_operands = {1}},
          {.op = "Tile",
           .family = "shape",
           .runs = false,
           .shape = tile,
           .fold = fold_tile,
           .shape_operands = {1}},
          {.op = "ScatterND",
           .family = "shape",
           .runs = false,
           .shape = scatter_nd,
           .fold = fold_scatter_nd}};
}

}  // namespace hetcim::ops
