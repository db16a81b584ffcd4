// From the per-operator workload and the cost models to a partitioning Problem: the host column
// (measured or modelled), the accelerator modes (eq. 1-3; with replication, one mode per copy
// count r = 1..max_replicas that fits the budget and shortens the operator), the transfer
// latencies and the crossbar budget; and the energy model (cost/energy_model.h): host energy
// P_host * T_host per operator, CIM energy per mode (the same for every copy count r), bus energy
// per edge (PerEdge) and per producer (PerTensorDirection; both are filled, as the latencies
// are), the accelerator's static power and the host's idle power.
#pragma once

#include "cost/hardware.h"
#include "cost/host_costs.h"
#include "partition/problem.h"
#include "workload/workload.h"

namespace hetcim::partition {

struct BuildOptions {
  int64_t max_replicas = 1;  // 1 = the paper's model (one copy of the weights per operator)
  TransferModel transfer_model = TransferModel::PerEdge;
  BusModel bus_model = BusModel::Parallel;
};

[[nodiscard]] Problem build_problem(const workload::Workload& w, const cost::HostCosts& host,
                                    const cost::Hardware& hw, const BuildOptions& options = {});

}  // namespace hetcim::partition
