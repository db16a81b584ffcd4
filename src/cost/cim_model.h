// The analytical CIM accelerator and bus model of seed 000 (eqs. 2-3 and the transfer model).
#pragma once

#include <cstdint>

#include "workload/workload.h"

namespace hetcim::cost {

struct CimConfig {
  int64_t xbar_rows = 256;       // M
  int64_t xbar_cols = 256;       // N
  int64_t crossbars = 100;       // C, the budget
  double t_mvm = 50e-9;          // seconds per MVM
  double bandwidth = 10.24e9;    // B_cim, bytes/s (internal load/store)
  int64_t elem_bytes = 1;        // b_elem
};

// T_acc,v = b_elem*N_in/B_cim + ceil(N_mvm / replicas)*T_mvm + b_elem*N_out/B_cim (eq. 2-3).
// All crossbars of an operator work in parallel; `replicas` copies of the weights split the input
// vectors between them (replicas = 1 is the paper's model).
[[nodiscard]] double cim_latency(const workload::OpWorkload& op, const CimConfig& cim,
                                 int64_t replicas = 1);

// T_transfer,(u,v) = b_elem * N_out,u / B_shared.
[[nodiscard]] double transfer_latency(const workload::OpWorkload& producer, double bus_bandwidth,
                                      int64_t elem_bytes);

}  // namespace hetcim::cost
