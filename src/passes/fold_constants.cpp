#include "passes/fold_constants.h"

#include <algorithm>
#include <optional>

#include "passes/rewrite.h"
#include "util/error.h"

namespace hetcim::passes {
namespace {

using graph::Shape;

// A small integer tensor: shape + row-major values.
struct IntTensor {
  Shape shape;
  std::vector<int64_t> v;
};

bool is_integer(graph::DType t) {
  return t == graph::DType::Int64 || t == graph::DType::Int32 || t == graph::DType::Int8 ||
         t == graph::DType::UInt8 || t == graph::DType::Bool;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const graph::Node& n) {
  if (axis < -rank || axis >= rank)
    throw user_error("node '", n.name, "' (", n.op_type, "): axis ", axis,
                     " out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

std::optional<IntTensor> eval(const graph::Node& n, const std::vector<IntTensor>& in,
                              const graph::Graph& g) {
  const std::string& op = n.op_type;
  if (op == "Shape") {
    const Shape& s = g.shape_of(n.inputs[0], "node '" + n.name + "'");
    const auto rank = static_cast<int64_t>(s.size());
    int64_t start = n.attr_int("start", 0), end = n.attr_int("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    IntTensor t{{end - start}, {}};
    for (int64_t i = start; i < end; ++i) {
      if (s[static_cast<size_t>(i)] < 0) return std::nullopt;
      t.v.push_back(s[static_cast<size_t>(i)]);
    }
    return t;
  }
  if (op == "Cast") return in[0];
  if (op == "Unsqueeze" || op == "Squeeze") {
    // Only the value vector matters for shape arithmetic; recompute the shape.
    std::vector<int64_t> axes = n.attr_ints("axes", {});
    if (in.size() > 1) axes = in[1].v;
    IntTensor t = in[0];
    if (op == "Unsqueeze") {
      Shape s = t.shape;
      const auto out_rank = static_cast<int64_t>(s.size() + axes.size());
      std::vector<bool> is_new(static_cast<size_t>(out_rank), false);
      for (int64_t a : axes) is_new[static_cast<size_t>(normalize_axis(a, out_rank, n))] = true;
      Shape o;
      size_t k = 0;
      for (int64_t i = 0; i < out_rank; ++i)
        o.push_back(is_new[static_cast<size_t>(i)] ? 1 : s[k++]);
      t.shape = o;
    } else {
      const auto rank = static_cast<int64_t>(t.shape.size());
      std::vector<bool> drop(t.shape.size(), axes.empty());
      if (axes.empty()) {
        for (size_t i = 0; i < t.shape.size(); ++i) drop[i] = t.shape[i] == 1;
      }
      for (int64_t a : axes) drop[static_cast<size_t>(normalize_axis(a, rank, n))] = true;
      Shape o;
      for (size_t i = 0; i < t.shape.size(); ++i)
        if (!drop[i]) o.push_back(t.shape[i]);
      t.shape = o;
    }
    return t;
  }
  if (op == "Gather") {
    if (in[0].shape.size() != 1) return std::nullopt;
    const auto size = static_cast<int64_t>(in[0].v.size());
    IntTensor t{in[1].shape, {}};
    for (int64_t idx : in[1].v) {
      if (idx < -size || idx >= size)
        throw user_error("node '", n.name, "' (Gather): index ", idx, " out of range ", size);
      t.v.push_back(in[0].v[static_cast<size_t>(idx < 0 ? idx + size : idx)]);
    }
    return t;
  }
  if (op == "Concat") {
    IntTensor t{{0}, {}};
    for (const IntTensor& x : in) {
      if (x.shape.size() > 1) return std::nullopt;
      t.v.insert(t.v.end(), x.v.begin(), x.v.end());
    }
    t.shape = {static_cast<int64_t>(t.v.size())};
    return t;
  }
  if (op == "Slice") {
    if (in[0].shape.size() != 1 || in.size() < 3) return std::nullopt;
    const auto size = static_cast<int64_t>(in[0].v.size());
    int64_t start = in[1].v.at(0), end = in[2].v.at(0);
    const int64_t step = in.size() > 4 ? in[4].v.at(0) : 1;
    if (step != 1) return std::nullopt;
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
    IntTensor t{{end - start}, {in[0].v.begin() + start, in[0].v.begin() + end}};
    return t;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    const IntTensor& a = in[0];
    const IntTensor& b = in[1];
    if (a.v.size() != b.v.size() && a.v.size() != 1 && b.v.size() != 1) return std::nullopt;
    IntTensor t = a.v.size() >= b.v.size() ? a : b;
    for (size_t i = 0; i < t.v.size(); ++i) {
      const int64_t x = a.v[a.v.size() == 1 ? 0 : i], y = b.v[b.v.size() == 1 ? 0 : i];
      if (op == "Add") t.v[i] = x + y;
      if (op == "Sub") t.v[i] = x - y;
      if (op == "Mul") t.v[i] = x * y;
      if (op == "Div") {
        if (y == 0)
          throw user_error("node '", n.name, "' (Div): division by zero in shape arithmetic");
        t.v[i] = x / y;
      }
    }
    return t;
  }
  return std::nullopt;
}

}  // namespace

graph::Graph fold_constants(const graph::Graph& in) {
  graph::Graph g = in;
  std::set<size_t> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& n = g.nodes[i];
    if (n.outputs.size() != 1) continue;
    std::vector<IntTensor> args;
    bool constant = true;
    for (size_t k = 0; k < n.inputs.size() && constant; ++k) {
      const std::string& t = n.inputs[k];
      if (n.op_type == "Shape" && k == 0) break;  // needs a known shape, not a constant input
      auto it = g.initializers.find(t);
      if (t.empty() || it == g.initializers.end() || !it->second.has_values() ||
          !is_integer(it->second.info.dtype)) {
        constant = false;
        break;
      }
      args.push_back({*it->second.info.shape, it->second.ints()});
    }
    if (!constant) continue;
    if (n.op_type == "Shape") {
      const graph::TensorInfo* ti = g.info(n.inputs.at(0));
      if (!ti || !ti->shape) continue;
    }
    std::optional<IntTensor> r = eval(n, args, g);
    if (!r) continue;
    const std::string out = n.outputs[0];
    g.values.erase(out);
    g.initializers[out] = graph::Initializer::from_ints(r->shape, r->v);
    dead.insert(i);
  }
  // The folded nodes' outputs are initializers now; drop the nodes.
  std::vector<graph::Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!dead.count(i)) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  erase_nodes(g, {});
  graph::validate(g);
  return g;
}

}  // namespace hetcim::passes
