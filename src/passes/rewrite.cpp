#include "passes/rewrite.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "graph/name_index.h"

namespace hetcim::passes {

std::map<std::string, std::vector<size_t>> consumers(const graph::Graph& g) {
  std::map<std::string, std::vector<size_t>> uses;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& in : g.nodes[i].inputs) {
      if (in.empty()) continue;
      auto& v = uses[in];
      if (v.empty() || v.back() != i) v.push_back(i);
    }
  }
  return uses;
}

int producer(const graph::Graph& g, const std::string& tensor) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& out : g.nodes[i].outputs)
      if (out == tensor) return static_cast<int>(i);
  return -1;
}

std::unordered_map<std::string, int> producers(const graph::Graph& g) {
  std::unordered_map<std::string, int> out;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& o : g.nodes[i].outputs)
      if (!o.empty()) out.emplace(o, static_cast<int>(i));
  return out;
}

void replace_uses(graph::Graph& g, const std::string& from, const std::string& to) {
  for (graph::Node& n : g.nodes)
    for (std::string& in : n.inputs)
      if (in == from) in = to;
  for (std::string& out : g.outputs)
    if (out == from) out = to;
}

void erase_nodes(graph::Graph& g, const std::set<size_t>& dead) {
  std::vector<graph::Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!dead.count(i)) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  // Membership only, viewing the graph's own names (no copy of every tensor name per pass).
  size_t names = g.inputs.size() + g.outputs.size();
  for (const graph::Node& n : g.nodes) names += n.inputs.size() + n.outputs.size();
  graph::NameIndex live(names);
  for (const std::string& t : g.inputs) live.insert(t, 0);
  for (const std::string& t : g.outputs) live.insert(t, 0);
  for (const graph::Node& n : g.nodes) {
    for (const std::string& t : n.inputs) live.insert(t, 0);
    for (const std::string& t : n.outputs) live.insert(t, 0);
  }
  std::erase_if(g.initializers, [&](const auto& kv) { return !live.find(kv.first); });
  std::erase_if(g.values, [&](const auto& kv) { return !live.find(kv.first); });
}

std::string fresh_name(const graph::Graph& g, const std::string& base) {
  auto used = [&](const std::string& s) {
    if (g.values.count(s) || g.initializers.count(s)) return true;
    for (const graph::Node& n : g.nodes) {
      if (n.name == s) return true;
      if (std::find(n.outputs.begin(), n.outputs.end(), s) != n.outputs.end()) return true;
    }
    return false;
  };
  if (!used(base)) return base;
  for (int k = 1;; ++k) {
    std::string s = base + "_" + std::to_string(k);
    if (!used(s)) return s;
  }
}

bool single_use(const graph::Graph& g, const std::map<std::string, std::vector<size_t>>& uses,
                const std::string& t) {
  if (std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end()) return false;
  auto it = uses.find(t);
  return it != uses.end() && it->second.size() == 1;
}

}  // namespace hetcim::passes
