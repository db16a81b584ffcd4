#include "partition/multi_convert.h"

#include <cmath>

#include "util/error.h"

namespace hetcim::partition {

MultiProblem to_multi_problem(const Problem& p, double total_energy_weight) {
  p.validate();
  if (p.transfer_model != TransferModel::PerEdge)
    throw user_error("K-engine problem from a two-device one: only per-edge transfers convert");
  if (p.energy_weight != 0.0)
    throw user_error(
        "K-engine problem from a two-device one: give the energy weight to the conversion, "
        "not to the problem");
  if (total_energy_weight > 0 && !p.has_energy())
    throw user_error("K-engine problem from a two-device one: an energy weight needs energies");
  MultiProblem m;
  m.dag = p.dag;
  m.names = p.names;
  m.edge_bytes = p.t_transfer;
  MultiEngine host{"host", true, -1, 0.0, p.p_host_idle};
  MultiEngine cim{"cim", false, std::max<int64_t>(p.crossbar_budget, 1), p.p_cim_static, 0.0};
  m.engines = {host, cim};
  // e_byte: the one ratio e_transfer / t_transfer (0 without energies).
  double e_byte = 0.0;
  if (p.has_energy()) {
    bool set = false;
    for (size_t e = 0; e < p.dag.edges.size(); ++e) {
      if (p.t_transfer[e] <= 0) {
        if (p.e_transfer[e] != 0)
          throw user_error("K-engine problem from a two-device one: edge ", e,
                           " has a transfer energy but no transfer latency");
        continue;
      }
      const double r = p.e_transfer[e] / p.t_transfer[e];
      if (!set) {
        e_byte = r;
        set = true;
      } else if (std::abs(r - e_byte) > 1e-9 * std::max(std::abs(r), 1e-300)) {
        throw user_error(
            "K-engine problem from a two-device one: transfer energies are not proportional "
            "to transfer latencies");
      }
    }
  }
  m.links = {MultiLink{"bus", {0, 1}, 0.0, 1.0, p.bus_model == BusModel::Serial, e_byte}};
  for (size_t v = 0; v < p.size(); ++v) {
    std::vector<MultiOption> opts;
    opts.push_back({0, p.t_host[v], p.has_energy() ? p.e_host[v] : 0.0, 0, "host"});
    for (size_t k = 0; k < p.acc[v].size(); ++k) {
      const AccMode& a = p.acc[v][k];
      // A mode needing more crossbars than the budget can never be chosen: leave it out (and a
      // mode of 0 crossbars still fits the capacity of at least 1 given above).
      if (a.crossbars > p.crossbar_budget) continue;
      opts.push_back({1, a.t_acc, a.energy, a.crossbars, "cim mode " + std::to_string(k)});
    }
    m.options.push_back(std::move(opts));
  }
  m.latency_weight = 1.0;
  m.energy_weight = total_energy_weight;
  m.validate();
  return m;
}

}  // namespace hetcim::partition
