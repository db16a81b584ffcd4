// Small helpers shared by the passes for editing a Graph: who reads a tensor, rewiring readers,
// fresh names. Passes copy the input graph, edit the copy with these, and re-validate it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph.h"

namespace hetcim::passes {

// tensor name -> indices of the nodes reading it (a node reading a tensor twice appears once).
[[nodiscard]] std::map<std::string, std::vector<size_t>> consumers(const graph::Graph& g);

// Index of the node producing `tensor`, or -1 for graph inputs, initializers and unknown tensors.
// It scans the nodes: a pass that asks for every node builds producers(g) once instead.
[[nodiscard]] int producer(const graph::Graph& g, const std::string& tensor);
// tensor name -> index of the node producing it (the first, as producer()), for every node output.
[[nodiscard]] std::unordered_map<std::string, int> producers(const graph::Graph& g);

// Makes every reader of `from` (nodes and graph outputs) read `to` instead.
void replace_uses(graph::Graph& g, const std::string& from, const std::string& to);

// Drops the nodes whose index is in `dead`, keeps the order of the rest, drops value infos and
// initializers no longer referenced.
void erase_nodes(graph::Graph& g, const std::set<size_t>& dead);

// A tensor or node name not yet used in g, derived from `base`.
[[nodiscard]] std::string fresh_name(const graph::Graph& g, const std::string& base);

// True when tensor `t` is read by exactly one node and is not a graph output.
[[nodiscard]] bool single_use(const graph::Graph& g,
                              const std::map<std::string, std::vector<size_t>>& uses,
                              const std::string& t);

}  // namespace hetcim::passes
