#include "partition/energy.h"

#include <algorithm>
#include <utility>

#include "util/error.h"

namespace hetcim::partition {
namespace {

void require_energy_model(const Problem& p, const Assignment& a) {
  if (!p.has_energy())
    throw user_error("energy: the partition problem has no energy model (no host energies)");
  if (a.mode.size() != p.size())
    throw user_error("energy: the assignment has ", a.mode.size(), " modes for ", p.size(),
                     " operators");
  for (size_t v = 0; v < p.size(); ++v) {
    const int m = a.mode[v];
    if (m != kHost && (m < 0 || static_cast<size_t>(m) >= p.acc[v].size()))
      throw user_error("energy: operator '", p.names[v], "' has no mode ", m, " (it has ",
                       p.acc[v].size(), " accelerator modes; -1 = host)");
  }
}

bool on_host(const Assignment& a, int v) {
  return a.mode[static_cast<size_t>(v)] == kHost;
}

// host + cim into `out`.
void operator_energies(const Problem& p, const Assignment& a, EnergyBreakdown& out) {
  for (size_t v = 0; v < p.size(); ++v) {
    const double e = p.energy(static_cast<int>(v), a.mode[v]);
    (a.mode[v] == kHost ? out.host : out.cim) += e;
  }
}

}  // namespace

EnergyBreakdown energy_of(const Problem& p, const Schedule& s) {
  require_energy_model(p, s.assignment);
  const Assignment& a = s.assignment;
  EnergyBreakdown r;
  operator_energies(p, a, r);

  for (const Transfer& t : s.transfers) {
    if (t.producer < 0 || static_cast<size_t>(t.producer) >= p.size())
      throw user_error("energy: a transfer names producer ", t.producer, ", out of range 0..",
                       p.size() - 1);
    const auto u = static_cast<size_t>(t.producer);
    if (p.transfer_model == TransferModel::PerTensorDirection) {
      r.bus += p.e_out[u];
      continue;
    }
    // Per edge, a transfer's key is its edge.
    const auto e = static_cast<size_t>(t.key);
    if (t.key < 0 || e >= p.dag.edges.size() || t.consumers.size() != 1 ||
        p.dag.edges[e] != std::make_pair(t.producer, t.consumers[0]))
      throw user_error("energy: a transfer from '", p.names[u], "' (key ", t.key,
                       ") follows no edge of the DAG");
    r.bus += p.e_transfer[e];
  }

  double host_busy = 0.0;
  for (size_t v = 0; v < p.size(); ++v)
    if (a.mode[v] == kHost) host_busy += p.t_host[v];
  // A valid schedule has makespan >= host busy time; clamp rounding noise of a replayed file.
  const double host_idle = std::max(0.0, s.makespan - host_busy);
  r.static_energy = p.p_cim_static * s.makespan + p.p_host_idle * host_idle;
  r.total = r.host + r.cim + r.bus + r.static_energy;
  return r;
}

double objective_value(const Problem& p, const Schedule& s) {
  return p.energy_weight > 0.0 ? s.makespan + p.energy_weight * dynamic_energy(p, s.assignment)
                               : s.makespan;
}

double dynamic_energy(const Problem& p, const Assignment& a) {
  require_energy_model(p, a);
  EnergyBreakdown r;
  operator_energies(p, a, r);
  double bus = 0.0;
  if (p.transfer_model == TransferModel::PerEdge) {
    for (size_t e = 0; e < p.dag.edges.size(); ++e) {
      const auto [u, v] = p.dag.edges[e];
      if (on_host(a, u) != on_host(a, v)) bus += p.e_transfer[e];
    }
  } else {
    // A producer sits on one device, so its output crosses in one direction at most: once if
    // any consumer sits on the other device.
    for (size_t u = 0; u < p.size(); ++u) {
      const bool u_host = on_host(a, static_cast<int>(u));
      const auto& succ = p.dag.succ[u];
      if (std::any_of(succ.begin(), succ.end(), [&](int v) { return on_host(a, v) != u_host; }))
        bus += p.e_out[u];
    }
  }
  return r.host + r.cim + bus;
}

}  // namespace hetcim::partition
