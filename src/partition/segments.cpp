#include "partition/segments.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "graph/dag.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr size_t kMaxThresholds = 32;

struct Ctx {
  const Problem& p;
  const std::vector<DynBitset>& reach;
  std::vector<int> pos;      // topological position
  std::vector<double> pmin;  // smallest latency over allowed modes
  std::vector<int> devices;  // bit 0: may run on host, bit 1: on acc
  std::vector<std::vector<std::pair<int, size_t>>> in_edges;  // (u, edge index) per v
};

// Longest path a -> b through intermediate nodes only (the direct edge excluded), node weights
// pmin, using only edges with transfer >= theta. -inf when no such path exists.
double longest_detour(const Ctx& c, int a, int b, const std::vector<int>& between,
                      const std::vector<char>& in_between, double theta,
                      std::vector<double>& dist) {
  for (int w : between) {
    double d = kNegInf;
    for (auto [u, e] : c.in_edges[static_cast<size_t>(w)]) {
      if (c.p.edge_transfer(e) < theta) continue;
      if (u == a)
        d = std::max(d, 0.0);
      else if (in_between[static_cast<size_t>(u)] && dist[static_cast<size_t>(u)] > kNegInf)
        d = std::max(d, dist[static_cast<size_t>(u)] + c.pmin[static_cast<size_t>(u)]);
    }
    dist[static_cast<size_t>(w)] = d;
  }
  double best = kNegInf;
  for (auto [u, e] : c.in_edges[static_cast<size_t>(b)])
    if (in_between[static_cast<size_t>(u)] && c.p.edge_transfer(e) >= theta &&
        dist[static_cast<size_t>(u)] > kNegInf)
      best = std::max(best, dist[static_cast<size_t>(u)] + c.pmin[static_cast<size_t>(u)]);
  return best;
}

bool redundant(const Ctx& c, size_t e, std::vector<char>& in_between, std::vector<double>& dist) {
  const auto [a, b] = c.p.dag.edges[e];
  const double t = c.p.edge_transfer(e);
  const int da = c.devices[static_cast<size_t>(a)], db = c.devices[static_cast<size_t>(b)];
  if (da == db && (da == 1 || da == 2)) return true;  // always on the same device
  // On a serial bus a transfer over the cut would occupy the bus during the later segment,
  // whatever the paths around it: only edges that never cross devices are harmless.
  if (c.p.bus_model == BusModel::Serial) return false;
  // Its bus energy counts in the objective: it can leave the segments only as the energy of one
  // endpoint's mode, when the other endpoint has one device and every edge pays its own transfer
  // (decompose() moves it there).
  if (c.p.energy_weight > 0.0 && c.p.edge_energy(e) > 0.0 &&
      (c.p.transfer_model != TransferModel::PerEdge || (da == 3 && db == 3)))
    return false;
  if (t <= 0.0) return true;
  std::vector<int> between;
  for (size_t w = 0; w < c.p.size(); ++w)
    if (c.reach[static_cast<size_t>(a)].test(w) && c.reach[w].test(static_cast<size_t>(b)))
      between.push_back(static_cast<int>(w));
  std::sort(between.begin(), between.end(), [&](int x, int y) {
    return c.pos[static_cast<size_t>(x)] < c.pos[static_cast<size_t>(y)];
  });
  for (int w : between) in_between[static_cast<size_t>(w)] = 1;
  // Thresholds: every path whose edges all carry >= theta pays >= theta when a and b differ.
  std::vector<double> thetas;
  for (int w : between)
    for (auto [u, f] : c.in_edges[static_cast<size_t>(w)])
      if (u == a || in_between[static_cast<size_t>(u)]) thetas.push_back(c.p.edge_transfer(f));
  for (auto [u, f] : c.in_edges[static_cast<size_t>(b)])
    if (in_between[static_cast<size_t>(u)]) thetas.push_back(c.p.edge_transfer(f));
  std::sort(thetas.begin(), thetas.end(), std::greater<>());
  thetas.erase(std::unique(thetas.begin(), thetas.end()), thetas.end());
  if (thetas.size() > kMaxThresholds) thetas.resize(kMaxThresholds);
  thetas.push_back(0.0);
  bool covered = false;
  for (double theta : thetas) {
    const double d = longest_detour(c, a, b, between, in_between, theta, dist);
    if (d > kNegInf && d + theta >= t) {
      covered = true;
      break;
    }
  }
  for (int w : between) in_between[static_cast<size_t>(w)] = 0;
  return covered;
}

}  // namespace

Decomposition decompose(const DecomposeInput& in) {
  HETCIM_ASSERT(in.problem && in.reach && in.allowed, "decompose: missing input");
  const Problem& p = *in.problem;
  const size_t n = p.size();
  Ctx c{p,
        *in.reach,
        std::vector<int>(n),
        std::vector<double>(n),
        std::vector<int>(n, 0),
        std::vector<std::vector<std::pair<int, size_t>>>(n)};
  const std::vector<int> topo = graph::topological_order(p.dag);
  for (size_t i = 0; i < topo.size(); ++i)
    c.pos[static_cast<size_t>(topo[i])] = static_cast<int>(i);
  for (size_t v = 0; v < n; ++v) {
    const auto& modes = (*in.allowed)[v];
    HETCIM_ASSERT(!modes.empty(), "decompose: operator without an allowed mode");
    double m = std::numeric_limits<double>::infinity();
    for (int k : modes) {
      m = std::min(m, p.duration(static_cast<int>(v), k));
      c.devices[v] |= k == kHost ? 1 : 2;
    }
    c.pmin[v] = m;
  }
  for (size_t e = 0; e < p.dag.edges.size(); ++e)
    c.in_edges[static_cast<size_t>(p.dag.edges[e].second)].emplace_back(p.dag.edges[e].first, e);

  Decomposition d;
  std::vector<int> cuts = graph::cut_nodes(*in.reach);
  std::sort(cuts.begin(), cuts.end(), [&](int x, int y) {
    return c.pos[static_cast<size_t>(x)] < c.pos[static_cast<size_t>(y)];
  });
  d.cut_nodes = cuts.size();
  std::vector<char> keep(n, 0);
  for (int v : cuts) keep[static_cast<size_t>(v)] = 1;
  d.dropped.assign(p.dag.edges.size(), 0);
  d.energy_on_host.assign(n, 0.0);
  d.energy_on_acc.assign(n, 0.0);
  std::vector<char> in_between(n, 0);
  std::vector<double> dist(n, kNegInf);
  for (size_t e = 0; e < p.dag.edges.size(); ++e) {
    const auto [a, b] = p.dag.edges[e];
    std::vector<int> jumped;
    for (int cut : cuts)
      if (c.reach[static_cast<size_t>(a)].test(static_cast<size_t>(cut)) &&
          c.reach[static_cast<size_t>(cut)].test(static_cast<size_t>(b)))
        jumped.push_back(cut);
    if (jumped.empty()) continue;
    ++d.jumping_edges;
    if (redundant(c, e, in_between, dist)) {
      d.dropped[e] = 1;
      ++d.redundant_edges;
      // Its bus energy (if weighed), as the energy of the other endpoint than one with a single
      // device (redundant() ensures there is one): paid exactly when that endpoint runs on the
      // other device. Both on the same single device: the edge never crosses, nothing to add.
      if (p.energy_weight > 0.0 && p.edge_energy(e) > 0.0) {
        const int da = c.devices[static_cast<size_t>(a)], db = c.devices[static_cast<size_t>(b)];
        if (da != db) {
          const int fixed = da == 3 ? db : da, free_end = da == 3 ? a : b;
          (fixed == 1 ? d.energy_on_acc : d.energy_on_host)[static_cast<size_t>(free_end)] +=
              p.edge_energy(e);
        }
      }
    } else {
      for (int cut : jumped) keep[static_cast<size_t>(cut)] = 0;
    }
  }
  for (int v : cuts)
    if (keep[static_cast<size_t>(v)]) d.cuts.push_back(v);
  d.segments.resize(d.cuts.size() + 1);
  for (size_t k = 0; k < d.segments.size(); ++k) {
    d.segments[k].in = k == 0 ? -1 : d.cuts[k - 1];
    d.segments[k].out = k < d.cuts.size() ? d.cuts[k] : -1;
  }
  size_t k = 0;
  for (int v : topo) {
    if (keep[static_cast<size_t>(v)])
      ++k;
    else
      d.segments[k].interior.push_back(v);
  }
  return d;
}

}  // namespace hetcim::partition
