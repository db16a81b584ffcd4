#include "passes/fold_constants.h"

#include <algorithm>
#include <optional>
#include <variant>

#include "graph/constant_values.h"
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

bool is_integer_or_bool(graph::DType t) {
  return graph::is_integer(t) || t == graph::DType::Bool;
}

const graph::Initializer* constant_input(const graph::Graph& g, const graph::Node& n, size_t k) {
  if (k >= n.inputs.size() || n.inputs[k].empty()) return nullptr;
  auto it = g.initializers.find(n.inputs[k]);
  if (it == g.initializers.end() || !it->second.has_values()) return nullptr;
  return &it->second;
}

// Ops whose constant result may have any dtype (not only small integer shape arithmetic):
// Cast of a constant and ConstantOfShape of a constant shape, as the torch.ao exporter emits them
// for zero points. nullopt when the node is not one of them or its operands are not constant.
std::optional<graph::Initializer> eval_typed(const graph::Graph& g, const graph::Node& n) {
  if (!n.domain.empty()) return std::nullopt;
  if (n.op_type == "Cast") {
    const graph::Initializer* x = constant_input(g, n, 0);
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
  if (n.op_type == "ConstantOfShape") {
    const graph::Initializer* s = constant_input(g, n, 0);
    if (!s || !is_integer_or_bool(s->info.dtype)) return std::nullopt;
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
  return std::nullopt;
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
    if (std::optional<graph::Initializer> r = eval_typed(g, n)) {
      g.values.erase(n.outputs[0]);
      g.initializers[n.outputs[0]] = std::move(*r);
      dead.insert(i);
      continue;
    }
    std::vector<IntTensor> args;
    bool constant = true;
    for (size_t k = 0; k < n.inputs.size() && constant; ++k) {
      const std::string& t = n.inputs[k];
      if (n.op_type == "Shape" && k == 0) break;  // needs a known shape, not a constant input
      auto it = g.initializers.find(t);
      if (t.empty() || it == g.initializers.end() || !it->second.has_values() ||
          !is_integer_or_bool(it->second.info.dtype)) {
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
