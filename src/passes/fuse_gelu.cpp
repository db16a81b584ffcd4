#include "passes/fuse_gelu.h"

#include <cmath>
#include <optional>
#include <set>
#include <utility>

#include "passes/rewrite.h"

namespace hetcim::passes {
namespace {

using Uses = std::map<std::string, std::vector<size_t>>;

struct Matcher {
  const graph::Graph& g;
  const Uses& uses;

  // The value of a one-element float constant.
  std::optional<double> scalar(const std::string& t) const {
    auto it = g.initializers.find(t);
    if (it == g.initializers.end() || !it->second.has_values()) return std::nullopt;
    if (it->second.info.dtype != graph::DType::Float32) return std::nullopt;
    const std::vector<float> v = it->second.floats();
    if (v.size() != 1) return std::nullopt;
    return v[0];
  }
  bool is(const std::string& t, double want) const {
    const auto v = scalar(t);
    return v && std::abs(*v - want) <= 1e-4 * std::abs(want);
  }
  // The node producing t when it has op type `op`, or nullptr.
  const graph::Node* made_by(const std::string& t, const char* op) const {
    const int p = producer(g, t);
    if (p < 0) return nullptr;
    const graph::Node& n = g.nodes[static_cast<size_t>(p)];
    return n.op_type == op && n.domain.empty() ? &n : nullptr;
  }
  // The only reader of t (t no graph output), or -1.
  int sole_reader(const std::string& t) const {
    if (!single_use(g, uses, t)) return -1;
    return static_cast<int>(uses.at(t).front());
  }
  // For a binary node with operands {p, q}: the operand that is not `known`, or "" when neither is.
  static std::string other(const graph::Node& n, const std::string& known) {
    if (n.inputs.size() != 2) return "";
    if (n.inputs[0] == known) return n.inputs[1];
    if (n.inputs[1] == known) return n.inputs[0];
    return "";
  }
  // The operand of binary n that is a scalar constant equal to `want`: the other operand, or "".
  std::string with_constant(const graph::Node& n, double want) const {
    if (n.inputs.size() != 2) return "";
    if (is(n.inputs[1], want)) return n.inputs[0];
    if (is(n.inputs[0], want)) return n.inputs[1];
    return "";
  }
};

struct Match {
  std::string x, y;
  std::set<size_t> nodes;  // every node of the pattern
  size_t last = 0;         // the node writing y
};

int index_of(const graph::Graph& g, const graph::Node* n) {
  return n ? static_cast<int>(n - g.nodes.data()) : -1;
}

// x^3 of x: Pow(x, 3) or x * (x * x) in any order; the nodes it took, or nothing.
std::optional<std::set<size_t>> cube_of(const Matcher& m, const std::string& t,
                                        const std::string& x) {
  if (const graph::Node* p = m.made_by(t, "Pow"))
    if (p->inputs.size() == 2 && p->inputs[0] == x && m.is(p->inputs[1], 3.0))
      return std::set<size_t>{static_cast<size_t>(index_of(m.g, p))};
  const graph::Node* outer = m.made_by(t, "Mul");
  if (!outer) return std::nullopt;
  const std::string sq = Matcher::other(*outer, x);
  const graph::Node* inner = sq.empty() ? nullptr : m.made_by(sq, "Mul");
  if (!inner || inner->inputs[0] != x || inner->inputs[1] != x || m.sole_reader(sq) < 0)
    return std::nullopt;
  return std::set<size_t>{static_cast<size_t>(index_of(m.g, outer)),
                          static_cast<size_t>(index_of(m.g, inner))};
}

// From the Erf / Tanh node at index i, the input x and the inner nodes, or nothing.
std::optional<Match> inner_part(const Matcher& m, size_t i) {
  const graph::Node& f = m.g.nodes[i];
  Match r;
  r.nodes.insert(i);
  const std::string& z = f.inputs.at(0);
  if (f.op_type == "Erf") {
    const graph::Node* scale = m.made_by(z, "Div");
    if (scale && scale->inputs.size() == 2 && m.is(scale->inputs[1], std::sqrt(2.0))) {
      r.x = scale->inputs[0];
    } else if ((scale = m.made_by(z, "Mul"))) {
      r.x = m.with_constant(*scale, 1.0 / std::sqrt(2.0));
    }
    if (!scale || r.x.empty() || m.sole_reader(z) < 0) return std::nullopt;
    r.nodes.insert(static_cast<size_t>(index_of(m.g, scale)));
    return r;
  }
  // Tanh: z = 0.797885 * (x + 0.044715 * x^3)
  const graph::Node* scale = m.made_by(z, "Mul");
  if (!scale || m.sole_reader(z) < 0) return std::nullopt;
  const std::string s = m.with_constant(*scale, std::sqrt(2.0 / 3.14159265358979323846));
  const graph::Node* add = s.empty() ? nullptr : m.made_by(s, "Add");
  if (!add || m.sole_reader(s) < 0 || add->inputs.size() != 2) return std::nullopt;
  for (int k = 0; k < 2 && r.x.empty(); ++k) {
    const std::string& x = add->inputs[static_cast<size_t>(k)];
    const std::string& c = add->inputs[static_cast<size_t>(1 - k)];
    const graph::Node* cm = m.made_by(c, "Mul");
    if (!cm || m.sole_reader(c) < 0) continue;
    const std::string cube = m.with_constant(*cm, 0.044715);
    if (cube.empty() || m.sole_reader(cube) < 0) continue;
    const auto cube_nodes = cube_of(m, cube, x);
    if (!cube_nodes) continue;
    r.x = x;
    r.nodes.insert(cube_nodes->begin(), cube_nodes->end());
    r.nodes.insert(static_cast<size_t>(index_of(m.g, cm)));
  }
  if (r.x.empty()) return std::nullopt;
  r.nodes.insert(static_cast<size_t>(index_of(m.g, scale)));
  r.nodes.insert(static_cast<size_t>(index_of(m.g, add)));
  return r;
}

// The outer part shared by both forms: a = 1 + f; y = (x * a) * 0.5 or (x * 0.5) * a.
bool outer_part(const Matcher& m, const std::string& f_out, Match& r) {
  const int ai = m.sole_reader(f_out);
  if (ai < 0) return false;
  const graph::Node& add = m.g.nodes[static_cast<size_t>(ai)];
  if (add.op_type != "Add" || m.with_constant(add, 1.0) != f_out) return false;
  const std::string& a = add.outputs.at(0);
  const int mi = m.sole_reader(a);
  if (mi < 0) return false;
  const graph::Node& mul = m.g.nodes[static_cast<size_t>(mi)];
  if (mul.op_type != "Mul") return false;
  const std::string other = Matcher::other(mul, a);
  r.nodes.insert(static_cast<size_t>(ai));
  r.nodes.insert(static_cast<size_t>(mi));
  if (other == r.x) {  // (x * a) * 0.5
    const std::string& xa = mul.outputs.at(0);
    const int hi = m.sole_reader(xa);
    if (hi < 0) return false;
    const graph::Node& half = m.g.nodes[static_cast<size_t>(hi)];
    if (half.op_type != "Mul" || m.with_constant(half, 0.5) != xa) return false;
    r.nodes.insert(static_cast<size_t>(hi));
    r.last = static_cast<size_t>(hi);
    r.y = half.outputs.at(0);
    return true;
  }
  const graph::Node* half = other.empty() ? nullptr : m.made_by(other, "Mul");  // (x * 0.5) * a
  if (!half || m.with_constant(*half, 0.5) != r.x || m.sole_reader(other) < 0) return false;
  r.nodes.insert(static_cast<size_t>(index_of(m.g, half)));
  r.last = static_cast<size_t>(mi);
  r.y = mul.outputs.at(0);
  return true;
}

}  // namespace

graph::Graph fuse_gelu(graph::Graph in) {
  graph::Graph g = std::move(in);
  const Uses uses = consumers(g);
  const Matcher m{g, uses};
  std::set<size_t> dead;
  std::vector<std::pair<size_t, graph::Node>> fused;  // at the pattern's last node
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& f = g.nodes[i];
    if (!f.domain.empty() || (f.op_type != "Erf" && f.op_type != "Tanh")) continue;
    auto r = inner_part(m, i);
    if (!r || !outer_part(m, f.outputs.at(0), *r)) continue;
    const graph::TensorInfo* xi = g.info(r->x);
    if (!xi || xi->dtype != graph::DType::Float32) continue;
    bool overlap = false;
    for (size_t k : r->nodes) overlap = overlap || dead.count(k) > 0;
    if (overlap) continue;
    graph::Node gelu;
    gelu.name = f.name;
    gelu.op_type = "Gelu";
    gelu.inputs = {r->x};
    gelu.outputs = {r->y};
    gelu.attrs["approximate"] = std::string(f.op_type == "Erf" ? "none" : "tanh");
    dead.insert(r->nodes.begin(), r->nodes.end());
    fused.emplace_back(r->last, std::move(gelu));
  }
  if (fused.empty()) return g;
  // The Gelu takes the place of the pattern's last node (x is computed before every node of it).
  for (auto& [at, node] : fused) {
    dead.erase(at);
    g.nodes[at] = std::move(node);
  }
  erase_nodes(g, dead);
  graph::validate(g);
  return g;
}

}  // namespace hetcim::passes
