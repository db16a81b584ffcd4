// Gather of an activation with constant indices (a transformer's qkv[0], qkv[1], qkv[2]).
#include "graph/node_errors.h"
#include "ops/families.h"

namespace hetcim::ops {
namespace {

Run compile_gather(const KernelInput& k) {
  const graph::Node& n = k.node;
  const graph::Shape x = k.shapes.at(0);
  if (x.empty()) throw graph::node_error(n, "data must have rank >= 1");
  if (!k.constants.at(1)) throw graph::node_error(n, "indices (input 1) must be a constant");
  const auto axis = static_cast<size_t>(
      graph::normalize_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(x.size())));
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < k.constants[1]->numel(); ++i) {
    auto v = static_cast<int64_t>(k.constants[1]->at(i));
    if (v < -x[axis] || v >= x[axis])
      throw graph::node_error(n, "index ", v, " is out of range for axis ", axis, " of length ",
                              x[axis]);
    idx.push_back(v < 0 ? v + x[axis] : v);
  }
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x[d];
  for (size_t d = axis + 1; d < x.size(); ++d) inner *= x[d];
  const int64_t len = x[axis];
  return [idx, outer, inner, len](const std::vector<const float*>& in,
                                  const std::vector<float*>& out) {
    float* dst = out[0];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i : idx) {
        const float* src = in[0] + (o * len + i) * inner;
        std::copy(src, src + inner, dst);
        dst += inner;
      }
  };
}

// ---- shape rules and constant evaluators (ops/shape_rule.h)

using namespace shape_rules;

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

Value fold_gather(const Ctx& c, const TensorInfo&, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  const ConstValue* idx = c.value(1);
  if (!idx) return std::nullopt;
  const Shape& xs = c.shape(0);
  const auto a =
      static_cast<size_t>(c.axis(c.node().attr_int("axis", 0), static_cast<int64_t>(xs.size())));
  return gather_flat(*x, gather_index(c, xs, idx->ints, a));
}

}  // namespace

std::vector<Family> gather_family() {
  return {{.op = "Gather",
           .family = "gather",
           .compile = compile_gather,
           .shape = gather,
           .fold = fold_gather}};
}

}  // namespace hetcim::ops
