// Split and Slice. Kernels: exec/families/slice_split.cpp; the shape rules and Slice's constant
// evaluator (shape subgraphs slice shape vectors) are here.
#include <algorithm>
#include <limits>
#include <set>

#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

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

Value fold_slice(const Ctx& c, const TensorInfo& out, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  const std::optional<Index> idx = slice_operands(c, c.shape(0), *out.shape);
  if (!idx) return std::nullopt;
  return gather_flat(*x, *idx);
}

}  // namespace

std::vector<Family> slice_split_family() {
  return {{.op = "Split",
           .family = "slice_split",
           .shape = split,
           .shape_operands = {1},
           .int8_runs = true},
          {.op = "Slice",
           .family = "slice_split",
           .shape = slice,
           .fold = fold_slice,
           .shape_operands = {1, 2, 3, 4},
           .int8_runs = true,
           .int8_passthrough = true}};
}

}  // namespace hetcim::ops
