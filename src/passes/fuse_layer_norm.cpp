#include "passes/fuse_layer_norm.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "passes/rewrite.h"

namespace hetcim::passes {
namespace {

using Uses = std::map<std::string, std::vector<size_t>>;

const graph::Initializer* constant(const graph::Graph& g, const std::string& t) {
  auto it = g.initializers.find(t);
  return it == g.initializers.end() ? nullptr : &it->second;
}

// The first reduced axis of a ReduceMean over trailing axes of an input of rank r with
// keepdims 1, or nothing.
std::optional<int64_t> trailing_axis(const graph::Graph& g, const graph::Node& n, int64_t r) {
  if (n.attr_int("keepdims", 1) != 1 || r < 1) return std::nullopt;
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const graph::Initializer* a = constant(g, n.inputs[1]);
    if (!a || !a->has_values()) return std::nullopt;
    axes = a->ints();
  }
  if (axes.empty()) return std::nullopt;  // all axes (or none): not a LayerNorm
  std::set<int64_t> s;
  for (int64_t a : axes) {
    if (a < -r || a >= r) return std::nullopt;
    s.insert(a < 0 ? a + r : a);
  }
  const int64_t first = *s.begin();
  if (*s.rbegin() != r - 1 || static_cast<int64_t>(s.size()) != r - first) return std::nullopt;
  return first;
}

// The one element of a float constant, or nothing.
std::optional<float> scalar(const graph::Graph& g, const std::string& t) {
  const graph::Initializer* c = constant(g, t);
  if (!c || !c->has_values() || c->info.dtype != graph::DType::Float32) return std::nullopt;
  const std::vector<float> v = c->floats();
  if (v.size() != 1) return std::nullopt;
  return v[0];
}

struct Walk {
  const graph::Graph& g;
  const Uses& uses;
  std::set<size_t> nodes;

  // The only reader of t when it has op type `op` (t no graph output), else nullptr.
  const graph::Node* next(const std::string& t, const char* op) {
    if (!single_use(g, uses, t)) return nullptr;
    const size_t i = uses.at(t).front();
    const graph::Node& n = g.nodes[i];
    if (n.op_type != op || !n.domain.empty()) return nullptr;
    nodes.insert(i);
    return &n;
  }
};

// Operand of binary n other than `t`, or "".
std::string other(const graph::Node& n, const std::string& t) {
  if (n.inputs.size() != 2) return "";
  return n.inputs[0] == t ? n.inputs[1] : n.inputs[1] == t ? n.inputs[0] : "";
}

// Whether constant c (its shape known) is one value or has exactly the normalized shape `norm`
// after dropping leading 1s (so that it broadcasts to x without widening it).
bool fits(const graph::Initializer& c, const graph::Shape& norm) {
  if (!c.info.shape) return false;
  graph::Shape s = *c.info.shape;
  if (graph::element_count(s) == 1) return true;
  while (!s.empty() && s.front() == 1 && s.size() > norm.size()) s.erase(s.begin());
  return s == norm;
}

}  // namespace

graph::Graph fuse_layer_norm(graph::Graph in) {
  graph::Graph g = std::move(in);
  const Uses uses = consumers(g);
  std::set<size_t> dead;
  std::vector<std::pair<size_t, graph::Node>> fused;  // at the pattern's last node
  std::vector<std::pair<std::string, graph::Initializer>> made;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& mean = g.nodes[i];
    if (mean.op_type != "ReduceMean" || !mean.domain.empty() || dead.count(i)) continue;
    const std::string& x = mean.inputs.at(0);
    const graph::TensorInfo* xi = g.info(x);
    if (!xi || xi->dtype != graph::DType::Float32 || !xi->shape) continue;
    const graph::Shape& xs = *xi->shape;
    const auto r = static_cast<int64_t>(xs.size());
    const auto axis = trailing_axis(g, mean, r);
    if (!axis) continue;
    Walk w{g, uses, {i}};
    const graph::Node* sub = w.next(mean.outputs.at(0), "Sub");
    if (!sub || sub->inputs.size() != 2 || sub->inputs[0] != x || sub->inputs[1] != mean.outputs[0])
      continue;
    const std::string& d = sub->outputs.at(0);
    // d has two readers: the square and the Div.
    auto du = uses.find(d);
    if (du == uses.end() || du->second.size() != 2 ||
        std::find(g.outputs.begin(), g.outputs.end(), d) != g.outputs.end())
      continue;
    const graph::Node* sq = nullptr;
    const graph::Node* div = nullptr;
    for (size_t k : du->second) {
      const graph::Node& n = g.nodes[k];
      if (n.op_type == "Div" && n.inputs.size() == 2 && n.inputs[0] == d) {
        div = &n;
      } else if ((n.op_type == "Pow" && n.inputs.size() == 2 && n.inputs[0] == d &&
                  scalar(g, n.inputs[1]) == 2.0f) ||
                 (n.op_type == "Mul" && n.inputs.size() == 2 && n.inputs[0] == d &&
                  n.inputs[1] == d)) {
        sq = &n;
      }
      w.nodes.insert(k);
    }
    if (!sq || !div) continue;
    const graph::Node* var = w.next(sq->outputs.at(0), "ReduceMean");
    if (!var || var->inputs.at(0) != sq->outputs[0] || trailing_axis(g, *var, r) != axis) continue;
    const graph::Node* add = w.next(var->outputs.at(0), "Add");
    if (!add) continue;
    const auto eps = scalar(g, other(*add, var->outputs[0]));
    if (!eps) continue;
    const graph::Node* sqrt = w.next(add->outputs.at(0), "Sqrt");
    if (!sqrt || w.next(sqrt->outputs.at(0), "Div") != div || div->inputs[1] != sqrt->outputs[0])
      continue;
    const graph::Shape norm(xs.begin() + *axis, xs.end());
    std::string y = div->outputs.at(0), scale, bias;
    size_t last = static_cast<size_t>(div - g.nodes.data());
    auto affine = [&](const char* op, std::string& into) {
      Walk probe = w;
      const graph::Node* n = probe.next(y, op);
      if (!n) return;
      const std::string c = other(*n, y);
      const graph::Initializer* ci = c.empty() ? nullptr : constant(g, c);
      if (!ci || ci->info.dtype != graph::DType::Float32 || !fits(*ci, norm)) return;
      w.nodes = probe.nodes;
      into = c;
      y = n->outputs.at(0);
      last = static_cast<size_t>(n - g.nodes.data());
    };
    affine("Mul", scale);
    affine("Add", bias);
    bool overlap = false;
    for (size_t k : w.nodes) overlap = overlap || dead.count(k) > 0;
    if (overlap) continue;
    // Scale and B as LayerNormalization wants them: of the normalized shape (or one value).
    auto operand = [&](const std::string& c, float fill, const char* what) {
      const graph::Initializer* ci = c.empty() ? nullptr : constant(g, c);
      if (ci && (*ci->info.shape == norm || graph::element_count(*ci->info.shape) == 1)) return c;
      graph::Initializer v =
          ci ? (ci->has_values() ? graph::Initializer::from_floats(norm, ci->floats())
                                 : graph::Initializer::shape_only(graph::DType::Float32, norm))
             : graph::Initializer::from_floats(
                   norm, std::vector<float>(static_cast<size_t>(graph::element_count(norm)), fill));
      std::string name = fresh_name(g, mean.name + "." + what);
      for (const auto& [taken, unused] : made)
        if (taken == name) name += "_";
      made.emplace_back(name, std::move(v));
      return name;
    };
    graph::Node ln;
    ln.name = mean.name;
    ln.op_type = "LayerNormalization";
    ln.inputs = {x, operand(scale, 1.0f, "scale"), operand(bias, 0.0f, "bias")};
    ln.outputs = {y};
    ln.attrs["axis"] = *axis;
    ln.attrs["epsilon"] = static_cast<double>(*eps);
    dead.insert(w.nodes.begin(), w.nodes.end());
    fused.emplace_back(last, std::move(ln));
  }
  if (fused.empty()) return g;
  for (auto& [name, init] : made) g.initializers[name] = std::move(init);
  // The LayerNormalization takes the place of the pattern's last node.
  for (auto& [at, node] : fused) {
    dead.erase(at);
    g.nodes[at] = std::move(node);
  }
  erase_nodes(g, dead);
  graph::validate(g);
  return g;
}

}  // namespace hetcim::passes
