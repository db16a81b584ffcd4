#include "graph/dag.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "graph/graph.h"
#include "util/error.h"

namespace hetcim::graph {

Dag Dag::from_edges(size_t n, std::vector<std::pair<int, int>> edges) {
  Dag d;
  d.n = n;
  for (auto [u, v] : edges) {
    if (u < 0 || v < 0 || static_cast<size_t>(u) >= n || static_cast<size_t>(v) >= n) {
      throw user_error("edge (", u, ", ", v, ") names a vertex outside 0..", n - 1);
    }
    if (u == v) throw user_error("edge (", u, ", ", v, ") is a self-loop");
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  d.edges = std::move(edges);
  d.succ.assign(n, {});
  d.pred.assign(n, {});
  for (auto [u, v] : d.edges) {
    d.succ[static_cast<size_t>(u)].push_back(v);
    d.pred[static_cast<size_t>(v)].push_back(u);
  }
  if (topological_order(d).size() != n) throw user_error("the edges contain a cycle");
  return d;
}

Dag dag_of(const Graph& g) {
  std::unordered_map<std::string, int> producer;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& out : g.nodes[i].outputs)
      if (!out.empty()) producer[out] = static_cast<int>(i);
  std::vector<std::pair<int, int>> edges;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& in : g.nodes[i].inputs) {
      auto it = producer.find(in);
      if (it != producer.end()) edges.emplace_back(it->second, static_cast<int>(i));
    }
  }
  return Dag::from_edges(g.nodes.size(), std::move(edges));
}

std::vector<int> topological_order(const Dag& d) {
  std::vector<int> indeg(d.n, 0);
  for (auto [u, v] : d.edges) ++indeg[static_cast<size_t>(v)];
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (size_t i = 0; i < d.n; ++i)
    if (indeg[i] == 0) ready.push(static_cast<int>(i));
  std::vector<int> order;
  order.reserve(d.n);
  while (!ready.empty()) {
    int u = ready.top();
    ready.pop();
    order.push_back(u);
    for (int v : d.succ[static_cast<size_t>(u)])
      if (--indeg[static_cast<size_t>(v)] == 0) ready.push(v);
  }
  return order;
}

std::vector<DynBitset> transitive_closure(const Dag& d) {
  std::vector<DynBitset> reach(d.n, DynBitset(d.n));
  const std::vector<int> order = topological_order(d);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const auto u = static_cast<size_t>(*it);
    for (int v : d.succ[u]) {
      reach[u].set(static_cast<size_t>(v));
      reach[u] |= reach[static_cast<size_t>(v)];
    }
  }
  return reach;
}

std::vector<std::pair<int, int>> parallel_pairs(const std::vector<DynBitset>& reach) {
  std::vector<std::pair<int, int>> pairs;
  const size_t n = reach.size();
  for (size_t u = 0; u < n; ++u)
    for (size_t v = u + 1; v < n; ++v)
      if (!reach[u].test(v) && !reach[v].test(u))
        pairs.emplace_back(static_cast<int>(u), static_cast<int>(v));
  return pairs;
}

std::vector<int> cut_nodes(const std::vector<DynBitset>& reach) {
  const size_t n = reach.size();
  // v is comparable with all others iff |desc(v)| + |anc(v)| == n - 1.
  std::vector<size_t> anc(n, 0);
  for (size_t u = 0; u < n; ++u)
    for (size_t v = 0; v < n; ++v)
      if (reach[u].test(v)) ++anc[v];
  std::vector<int> cuts;
  for (size_t v = 0; v < n; ++v)
    if (reach[v].count() + anc[v] == n - 1) cuts.push_back(static_cast<int>(v));
  return cuts;
}

}  // namespace hetcim::graph
