// ReduceMean over constant axes (attribute before opset 18, input 1 from 18 on), keepdims; the
// Reduce* shape rule and ReduceProd's constant evaluator (ReduceProd: shape subgraphs only).
#include <set>

#include "graph/node_errors.h"
#include "ops/families.h"

namespace hetcim::ops {
namespace {

Run compile_reduce_mean(const KernelInput& k) {
  const graph::Node& n = k.node;
  const graph::Shape x = k.shapes.at(0);
  const auto rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  if (k.constants.size() > 1 && k.constants[1]) {
    axes.clear();
    const Constant& a = *k.constants[1];
    for (int64_t i = 0; i < a.numel(); ++i) axes.push_back(static_cast<int64_t>(a.at(i)));
  } else if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    throw graph::node_error(n, "axes (input 1 '", n.inputs[1], "') must be a constant");
  }
  std::set<int64_t> reduced;
  for (int64_t a : axes) reduced.insert(graph::normalize_axis(n, a, rank));
  if (reduced.empty() && n.attr_int("noop_with_empty_axes", 0) == 0)
    for (int64_t d = 0; d < rank; ++d) reduced.insert(d);
  // Output stride of every input dimension (0 for a reduced one), in the kept dimensions' order.
  std::vector<int64_t> ostride(x.size(), 0);
  int64_t s = 1, count = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (reduced.count(d)) {
      count *= x[static_cast<size_t>(d)];
      continue;
    }
    ostride[static_cast<size_t>(d)] = s;
    s *= x[static_cast<size_t>(d)];
  }
  const int64_t out_n = s, in_n = graph::element_count(x);
  const float inv = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
  // The reduced axes are the innermost ones (a decomposed LayerNorm's mean over the last axis):
  // each output is the mean of `count` consecutive inputs, summed in double over 8 interleaved
  // partial sums (independent chains the compiler vectorises; the odometer below is about 8x
  // slower on ViT's 17 x 192 rows).
  bool suffix = !reduced.empty();
  for (int64_t d = rank - 1, k = 0; d >= 0 && k < static_cast<int64_t>(reduced.size()); --d, ++k)
    suffix = suffix && reduced.count(d) > 0;
  if (suffix && count > 0)
    return
        [out_n, count, inv](const std::vector<const float*>& in, const std::vector<float*>& out) {
          for (int64_t j = 0; j < out_n; ++j) {
            const float* row = in[0] + j * count;
            double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            int64_t k = 0;
            for (; k + 8 <= count; k += 8)
              for (int l = 0; l < 8; ++l) part[l] += static_cast<double>(row[k + l]);
            double sum = ((part[0] + part[1]) + (part[2] + part[3])) +
                         ((part[4] + part[5]) + (part[6] + part[7]));
            for (; k < count; ++k) sum += static_cast<double>(row[k]);
            out[0][j] = static_cast<float>(sum) * inv;
          }
        };
  return [x, ostride, out_n, in_n, inv](const std::vector<const float*>& in,
                                        const std::vector<float*>& out) {
    std::vector<double> acc(static_cast<size_t>(out_n), 0.0);
    std::vector<int64_t> idx(x.size(), 0);
    int64_t o = 0;
    for (int64_t i = 0; i < in_n; ++i) {
      acc[static_cast<size_t>(o)] += in[0][i];
      for (size_t d = x.size(); d-- > 0;) {  // odometer over the input index
        o += ostride[d];
        if (++idx[d] < x[d]) break;
        o -= ostride[d] * x[d];
        idx[d] = 0;
      }
    }
    for (int64_t j = 0; j < out_n; ++j)
      out[0][j] = static_cast<float>(acc[static_cast<size_t>(j)]) * inv;
  };
}

// ---- shape rules and constant evaluators (ops/shape_rule.h)

using namespace shape_rules;

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

Value fold_reduce_prod(const Ctx& c, const TensorInfo& out, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  return reduce_prod_values(c, *x, *out.shape);
}

}  // namespace

std::vector<Family> reduce_family() {
  // Input 1: the axes (opset 18).
  return {{.op = "ReduceMean",
           .family = "reduce",
           .compile = compile_reduce_mean,
           .shape = reduce,
           .shape_operands = {1}},
          {.op = "ReduceProd",
           .family = "reduce",
           .runs = false,
           .shape = reduce,
           .fold = fold_reduce_prod,
           .shape_operands = {1}}};
}

}  // namespace hetcim::ops
