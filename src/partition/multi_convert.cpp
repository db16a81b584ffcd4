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

int TwoDeviceForm::option_of(int v, int mode) const {
  const auto i = static_cast<size_t>(v);
  return mode == kHost ? host_option[i] : mode_options[i][static_cast<size_t>(mode)];
}

std::optional<TwoDeviceForm> two_device_form(const MultiProblem& m) {
  if (m.engines.size() != 2 || m.links.size() != 1 || m.energy_weight != 0.0 ||
      !(m.latency_weight > 0.0))
    return std::nullopt;
  for (const std::vector<int>& group : m.exclusive)
    if (group.size() > 1) return std::nullopt;
  TwoDeviceForm f;
  f.host = m.engines[0].one_at_a_time ? 0 : 1;
  f.accelerator = 1 - f.host;
  const MultiEngine& host = m.engines[static_cast<size_t>(f.host)];
  const MultiEngine& acc = m.engines[static_cast<size_t>(f.accelerator)];
  if (!host.one_at_a_time || host.capacity >= 0 || acc.one_at_a_time || acc.capacity < 1)
    return std::nullopt;
  const MultiLink& link = m.links[0];
  if (link.engines.size() != 2) return std::nullopt;
  Problem& p = f.problem;
  p.dag = m.dag;
  p.names = m.names;
  p.crossbar_budget = acc.capacity;
  p.bus_model = link.serial ? BusModel::Serial : BusModel::Parallel;
  for (size_t v = 0; v < m.size(); ++v) {
    int host_option = -1;
    std::vector<AccMode> modes;
    std::vector<int> mode_options;
    for (size_t k = 0; k < m.options[v].size(); ++k) {
      const MultiOption& o = m.options[v][k];
      if (o.reprogram) return std::nullopt;
      if (o.engine == f.host) {
        if (host_option >= 0) return std::nullopt;  // two host options: not a two-device problem
        host_option = static_cast<int>(k);
      } else if (o.capacity <= acc.capacity) {
        modes.push_back({o.capacity, o.duration, 0.0});
        mode_options.push_back(static_cast<int>(k));
      }
    }
    if (host_option < 0) return std::nullopt;
    p.t_host.push_back(m.options[v][static_cast<size_t>(host_option)].duration);
    p.acc.push_back(std::move(modes));
    f.host_option.push_back(host_option);
    f.mode_options.push_back(std::move(mode_options));
  }
  for (size_t e = 0; e < m.dag.edges.size(); ++e) p.t_transfer.push_back(transfer_time(m, e, 0));
  p.validate();
  return f;
}

}  // namespace hetcim::partition
