#include "partition/build.h"

#include "cost/cim_model.h"
#include "cost/energy_model.h"
#include "util/error.h"

namespace hetcim::partition {

Problem build_problem(const workload::Workload& w, const cost::HostCosts& host,
                      const cost::Hardware& hw, const BuildOptions& o) {
  if (o.max_replicas < 1) throw user_error("replication: the number of copies must be >= 1");
  HETCIM_ASSERT(host.t_host.size() == w.ops.size());
  // One source of truth for the crossbar geometry and the element width: the hardware's.
  if (w.options.xbar_rows != hw.cim.xbar_rows || w.options.xbar_cols != hw.cim.xbar_cols ||
      w.options.elem_bytes != hw.cim.elem_bytes)
    throw user_error("hardware '", hw.name, "': crossbar ", hw.cim.xbar_rows, "x", hw.cim.xbar_cols,
                     " with ", hw.cim.elem_bytes,
                     "-byte elements, but the workload was analysed for ", w.options.xbar_rows, "x",
                     w.options.xbar_cols, " with ", w.options.elem_bytes,
                     "-byte elements (analyse it with cost::workload_options(hw.cim))");
  Problem p;
  p.dag = w.dag;
  p.t_host = host.t_host;
  p.crossbar_budget = hw.cim.crossbars;
  p.transfer_model = o.transfer_model;
  p.bus_model = o.bus_model;
  const cost::HostPower power = cost::host_power(hw.host);
  p.p_cim_static = hw.cim.static_power;
  p.p_host_idle = power.idle;
  for (size_t i = 0; i < w.ops.size(); ++i) {
    const workload::OpWorkload& op = w.ops[i];
    p.names.push_back(op.name);
    p.e_host.push_back(cost::host_energy(host.t_host[i], power.active));
    std::vector<AccMode> modes;
    if (op.offloadable && op.crossbars <= hw.cim.crossbars) {
      for (int64_t r = 1; r <= o.max_replicas && r * op.crossbars <= hw.cim.crossbars; ++r) {
        const double t = cost::cim_latency(op, hw.cim, r);
        // A copy that does not shorten the operator (N_mvm already split as far as it goes) is
        // never worth its crossbars.
        if (!modes.empty() && t >= modes.back().t_acc) break;
        modes.push_back({r * op.crossbars, t, cost::cim_energy(op, hw.cim, r)});
      }
    }
    p.acc.push_back(std::move(modes));
    p.t_out.push_back(cost::transfer_latency(op, hw.bus_bandwidth, hw.cim.elem_bytes));
    p.e_out.push_back(cost::transfer_energy(op, hw.bus_e_byte, hw.cim.elem_bytes));
  }
  for (auto [u, v] : p.dag.edges) {
    p.t_transfer.push_back(p.t_out[static_cast<size_t>(u)]);
    p.e_transfer.push_back(p.e_out[static_cast<size_t>(u)]);
  }
  p.validate();
  return p;
}

}  // namespace hetcim::partition
