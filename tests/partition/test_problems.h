// Problem builders shared by the partition tests: hand-made DAGs and seeded random instances.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "partition/problem.h"

namespace hetcim::partition::testing {

// Builds a problem with per-edge transfers given in the order of `edges` (duplicates not allowed).
inline Problem make_problem(size_t n, const std::vector<std::pair<int, int>>& edges,
                            const std::vector<double>& t_host,
                            const std::vector<std::vector<AccMode>>& acc,
                            const std::vector<double>& transfer, int64_t budget) {
  Problem p;
  p.dag = graph::Dag::from_edges(n, edges);
  for (size_t v = 0; v < n; ++v) p.names.push_back("op" + std::to_string(v));
  p.t_host = t_host;
  p.acc = acc;
  // dag.edges is sorted: look each one up in the caller's list.
  for (const auto& e : p.dag.edges)
    for (size_t i = 0; i < edges.size(); ++i)
      if (edges[i] == e) p.t_transfer.push_back(transfer[i]);
  p.crossbar_budget = budget;
  return p;
}

struct RandomSpec {
  size_t min_ops = 2, max_ops = 8;
  double edge_prob = 0.35;
  double offload_prob = 0.7;
  int max_modes = 1;  // accelerator modes per offloadable operator: 1..max_modes
  int max_host = 20;  // integer latencies keep objectives exact
  int max_acc = 14;
  int max_transfer = 8;
  int max_crossbars = 6;
  bool per_tensor = false;  // PerTensorDirection with t_out per producer
  bool chain = false;       // always link v-1 -> v (many cut nodes, edges jumping over them)
  bool serial_bus = false;  // BusModel::Serial
  int energy_weight = 0;    // > 0: random integer energies and this weight (s per J)
  int max_drop = 0;         // > 0: accuracy costs 0..max_drop ppm and a random accuracy budget
  // > 0: instead of random edges, this many blocks in series, each 1..2 parallel operators
  // between two cut nodes (segments with decisions inside; ops counts ignore min/max_ops)
  int blocks = 0;
  // > 0: an offloadable operator's modes are 1..replicas copies of its weights, as
  // partition/build.cpp makes them: r x its crossbars, a fixed part plus ceil(n_mvm / r) MVMs,
  // one energy for every r (max_modes and max_acc are then not used)
  int replicas = 0;
};

inline Problem random_problem(uint64_t seed, const RandomSpec& s) {
  std::mt19937_64 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto coin = [&](double q) { return std::uniform_real_distribution<double>(0, 1)(rng) < q; };
  size_t n = 0;
  std::vector<std::pair<int, int>> edges;
  if (s.blocks > 0) {
    int cut = 0;
    n = 1;
    for (int b = 0; b < s.blocks; ++b) {
      const int width = uni(1, 2);
      const int join = cut + width + 1;
      for (int i = 1; i <= width; ++i) {
        edges.emplace_back(cut, cut + i);
        edges.emplace_back(cut + i, join);
      }
      n += static_cast<size_t>(width) + 1;
      cut = join;
    }
  } else {
    n = static_cast<size_t>(uni(static_cast<int>(s.min_ops), static_cast<int>(s.max_ops)));
    for (size_t v = 1; v < n; ++v)
      for (size_t u = 0; u < v; ++u)
        if ((s.chain && u + 1 == v) || coin(s.edge_prob))
          edges.emplace_back(static_cast<int>(u), static_cast<int>(v));
  }
  Problem p;
  p.dag = graph::Dag::from_edges(n, edges);
  int64_t total_cb = 0;
  for (size_t v = 0; v < n; ++v) {
    p.names.push_back("op" + std::to_string(v));
    p.t_host.push_back(uni(1, s.max_host));
    std::vector<AccMode> modes;
    if (s.replicas > 0 && coin(s.offload_prob)) {
      const int cb = uni(1, s.max_crossbars), fixed = uni(0, 3), mvms = uni(1, 9), t = uni(1, 3);
      for (int r = 1; r <= s.replicas; ++r) {
        modes.push_back(AccMode{r * cb, static_cast<double>(fixed + (mvms + r - 1) / r * t)});
        total_cb += cb;
      }
    } else if (s.replicas == 0 && coin(s.offload_prob)) {
      const int k = uni(1, s.max_modes);
      for (int i = 0; i < k; ++i) {
        modes.push_back(AccMode{uni(1, s.max_crossbars), static_cast<double>(uni(0, s.max_acc))});
        total_cb += modes.back().crossbars;
      }
    }
    p.acc.push_back(modes);
  }
  if (s.per_tensor) {
    p.transfer_model = TransferModel::PerTensorDirection;
    for (size_t v = 0; v < n; ++v) p.t_out.push_back(uni(0, s.max_transfer));
  } else {
    for (size_t e = 0; e < p.dag.edges.size(); ++e) p.t_transfer.push_back(uni(0, s.max_transfer));
  }
  p.crossbar_budget = uni(0, static_cast<int>(total_cb));
  if (s.serial_bus) p.bus_model = BusModel::Serial;
  if (s.energy_weight > 0) {  // drawn after everything else: the latency part stays the same
    p.energy_weight = s.energy_weight;
    for (size_t v = 0; v < n; ++v) {
      p.e_host.push_back(uni(0, 9));
      const int e = s.replicas > 0 ? uni(0, 9) : 0;  // one energy for every copy count
      for (AccMode& m : p.acc[v]) m.energy = s.replicas > 0 ? e : uni(0, 9);
    }
    if (s.per_tensor) {
      for (size_t v = 0; v < n; ++v) p.e_out.push_back(uni(0, 5));
    } else {
      for (size_t e = 0; e < p.dag.edges.size(); ++e) p.e_transfer.push_back(uni(0, 5));
    }
  }
  if (s.max_drop > 0) {  // drawn last: the rest of the problem stays the same
    int64_t total = 0;
    for (size_t v = 0; v < n; ++v) {
      p.drop_ppm.push_back(p.acc[v].empty() ? 0 : uni(0, s.max_drop));
      total += p.drop_ppm.back();
    }
    p.drop_budget_ppm = uni(0, static_cast<int>(total));
  }
  return p;
}

}  // namespace hetcim::partition::testing
