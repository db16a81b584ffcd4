#include "partition/problem.h"

#include <cmath>
#include <limits>

#include "util/error.h"

namespace hetcim::partition {

const char* transfer_model_name(TransferModel m) {
  switch (m) {
    case TransferModel::PerEdge:
      return "per-edge";
    case TransferModel::PerTensorDirection:
      return "per-tensor-direction";
  }
  return "?";
}

const char* bus_model_name(BusModel m) {
  switch (m) {
    case BusModel::Parallel:
      return "parallel";
    case BusModel::Serial:
      return "serial";
  }
  return "?";
}

namespace {

bool finite_nonneg(double x) {
  return std::isfinite(x) && x >= 0.0;
}

// The energy fields (validate() checked the DAG, names and accelerator modes).
void validate_energy(const Problem& p) {
  const size_t n = p.dag.n;
  if (!finite_nonneg(p.p_cim_static))
    throw user_error("partition problem: p_cim_static = ", p.p_cim_static,
                     " W, expected a finite power >= 0");
  if (!finite_nonneg(p.p_host_idle))
    throw user_error("partition problem: p_host_idle = ", p.p_host_idle,
                     " W, expected a finite power >= 0");
  if (!p.has_energy()) {
    // "No energy model": nothing else may be half given.
    if (!p.e_transfer.empty() || !p.e_out.empty())
      throw user_error(
          "partition problem: transfer energies given without host energies "
          "(e_host is empty)");
    for (size_t v = 0; v < n; ++v)
      for (size_t k = 0; k < p.acc[v].size(); ++k)
        if (p.acc[v][k].energy != 0.0)
          throw user_error("operator '", p.names[v], "': accelerator mode ", k,
                           " has an energy but the problem has no host energies (e_host is empty)");
    return;
  }
  if (p.e_host.size() != n)
    throw user_error("partition problem: ", p.e_host.size(), " host energies for ", n,
                     " operators");
  for (size_t v = 0; v < n; ++v) {
    if (!finite_nonneg(p.e_host[v]))
      throw user_error("operator '", p.names[v], "': e_host = ", p.e_host[v],
                       " J, expected a finite energy >= 0");
    for (size_t k = 0; k < p.acc[v].size(); ++k)
      if (!finite_nonneg(p.acc[v][k].energy))
        throw user_error("operator '", p.names[v], "': accelerator mode ", k,
                         " energy = ", p.acc[v][k].energy, " J, expected a finite energy >= 0");
  }
  switch (p.transfer_model) {
    case TransferModel::PerEdge:
      if (p.e_transfer.size() != p.dag.edges.size())
        throw user_error("partition problem: ", p.e_transfer.size(), " transfer energies for ",
                         p.dag.edges.size(), " edges (per-edge transfer model)");
      for (size_t e = 0; e < p.dag.edges.size(); ++e)
        if (!finite_nonneg(p.e_transfer[e]))
          throw user_error("edge '", p.names[static_cast<size_t>(p.dag.edges[e].first)], "' -> '",
                           p.names[static_cast<size_t>(p.dag.edges[e].second)],
                           "': e_transfer = ", p.e_transfer[e],
                           " J, expected a finite energy >= 0");
      break;
    case TransferModel::PerTensorDirection:
      if (p.e_out.size() != n)
        throw user_error("partition problem: ", p.e_out.size(), " output transfer energies for ", n,
                         " operators (per-tensor-direction transfer model)");
      for (size_t v = 0; v < n; ++v)
        if (!finite_nonneg(p.e_out[v]))
          throw user_error("operator '", p.names[v], "': e_out = ", p.e_out[v],
                           " J, expected a finite energy >= 0");
      break;
  }
}

}  // namespace

void Problem::validate() const {
  const size_t n = dag.n;
  if (dag.succ.size() != n || dag.pred.size() != n)
    throw user_error("partition problem: the DAG adjacency is not built (use Dag::from_edges)");
  if (names.size() != n)
    throw user_error("partition problem: ", names.size(), " names for ", n, " operators");
  if (t_host.size() != n)
    throw user_error("partition problem: ", t_host.size(), " host latencies for ", n, " operators");
  if (acc.size() != n)
    throw user_error("partition problem: ", acc.size(), " accelerator option lists for ", n,
                     " operators");
  for (size_t v = 0; v < n; ++v) {
    if (!finite_nonneg(t_host[v]))
      throw user_error("operator '", names[v], "': t_host = ", t_host[v],
                       " s, expected a finite latency >= 0");
    for (size_t k = 0; k < acc[v].size(); ++k) {
      if (acc[v][k].crossbars < 0)
        throw user_error("operator '", names[v], "': accelerator mode ", k, " needs ",
                         acc[v][k].crossbars, " crossbars, expected >= 0");
      if (!finite_nonneg(acc[v][k].t_acc))
        throw user_error("operator '", names[v], "': accelerator mode ", k,
                         " t_acc = ", acc[v][k].t_acc, " s, expected a finite latency >= 0");
    }
  }
  switch (transfer_model) {
    case TransferModel::PerEdge:
      if (t_transfer.size() != dag.edges.size())
        throw user_error("partition problem: ", t_transfer.size(), " transfer latencies for ",
                         dag.edges.size(), " edges (per-edge transfer model)");
      for (size_t e = 0; e < dag.edges.size(); ++e)
        if (!finite_nonneg(t_transfer[e]))
          throw user_error("edge '", names[static_cast<size_t>(dag.edges[e].first)], "' -> '",
                           names[static_cast<size_t>(dag.edges[e].second)],
                           "': t_transfer = ", t_transfer[e], " s, expected a finite latency >= 0");
      break;
    case TransferModel::PerTensorDirection:
      if (t_out.size() != n)
        throw user_error("partition problem: ", t_out.size(), " output transfer latencies for ", n,
                         " operators (per-tensor-direction transfer model)");
      for (size_t v = 0; v < n; ++v)
        if (!finite_nonneg(t_out[v]))
          throw user_error("operator '", names[v], "': t_out = ", t_out[v],
                           " s, expected a finite latency >= 0");
      break;
  }
  if (!finite_nonneg(energy_weight))
    throw user_error("partition problem: energy weight ", energy_weight,
                     " s/J, expected a finite value >= 0");
  if (energy_weight > 0.0 && !has_energy())
    throw user_error("partition problem: an energy weight needs an energy model (e_host is empty)");
  if (crossbar_budget < 0)
    throw user_error("partition problem: crossbar budget ", crossbar_budget, ", expected >= 0");
  if (has_accuracy()) {
    if (drop_ppm.size() != n)
      throw user_error("partition problem: ", drop_ppm.size(), " accuracy costs for ", n,
                       " operators");
    for (size_t v = 0; v < n; ++v)
      if (drop_ppm[v] < 0 || drop_ppm[v] > kMaxDropPpm)
        throw user_error("operator '", names[v], "': accuracy cost ", drop_ppm[v],
                         " ppm, expected 0..", kMaxDropPpm);
    if (drop_budget_ppm < 0)
      throw user_error("partition problem: accuracy budget ", drop_budget_ppm,
                       " ppm, expected >= 0");
  }
  validate_energy(*this);
}

int64_t Problem::drop_limit() const {
  return has_accuracy() ? drop_budget_ppm : std::numeric_limits<int64_t>::max() / 4;
}

size_t Problem::num_offloadable() const {
  size_t c = 0;
  for (const auto& modes : acc) c += modes.empty() ? 0 : 1;
  return c;
}

double Problem::duration(int v, int mode) const {
  const auto i = static_cast<size_t>(v);
  return mode < 0 ? t_host[i] : acc[i][static_cast<size_t>(mode)].t_acc;
}

double Problem::edge_energy(size_t e) const {
  HETCIM_ASSERT(has_energy(), "the problem has no energy model");
  return transfer_model == TransferModel::PerEdge ? e_transfer[e]
                                                  : e_out[static_cast<size_t>(dag.edges[e].first)];
}

double Problem::energy(int v, int mode) const {
  const auto i = static_cast<size_t>(v);
  HETCIM_ASSERT(has_energy(), "the problem has no energy model");
  return mode < 0 ? e_host[i] : acc[i][static_cast<size_t>(mode)].energy;
}

int64_t Problem::crossbars(int v, int mode) const {
  return mode < 0 ? 0 : acc[static_cast<size_t>(v)][static_cast<size_t>(mode)].crossbars;
}

double Problem::edge_transfer(size_t e) const {
  return transfer_model == TransferModel::PerEdge ? t_transfer[e]
                                                  : t_out[static_cast<size_t>(dag.edges[e].first)];
}

}  // namespace hetcim::partition
