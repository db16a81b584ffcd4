// The energy model of the CPU + RRAM-crossbar system (beyond seed 000, which models latency
// only; issue #4 asks for an energy objective). Next to the latency model of cim_model.h:
//
//   host operator v:        E_host,v = P_host * T_host,v
//   CIM operator v:         E_acc,v  = N_mvm,v * N_crossbar,v * e_mvm
//                                      + b_elem * (N_in,v + N_out,v) * e_byte,cim
//   transfer of u's output: E_transfer,u = b_elem * N_out,u * e_byte,bus
//   static:                 P_cim,static * makespan + P_host,idle * (makespan - host busy time)
//
// Every MVM drives all crossbars that hold a slice of the weight matrix (eq. 1), so one input
// vector costs N_crossbar,v crossbar-MVMs. The load and store terms mirror eq. 3. The per-operator
// and per-transfer terms are additive over a partition; the static term needs the schedule
// (partition/energy.h). The parameters (CimConfig, HostSpec, Hardware::bus_e_byte) are read from
// the hardware description; their defaults are literature-based assumptions, see cim_model.h,
// host_model.cpp and hardware.cpp.
#pragma once

#include <cstdint>

#include "cost/cim_model.h"
#include "workload/workload.h"

namespace hetcim::cost {

// E = P * t: the energy of the host running an operator for `t_host_seconds` at `power` W.
[[nodiscard]] double host_energy(double t_host_seconds, double power);

// E_acc,v = N_mvm * crossbars * e_mvm + b_elem * (N_in + N_out) * e_byte. Independent of
// `replicas`: r copies of the weights split the N_mvm input vectors between them (ceil(N_mvm / r)
// each, cim_model.h), so the crossbar-MVMs add up to N_mvm * crossbars whatever r is; replication
// buys time, not energy. The operator must be offloadable (InternalError otherwise).
[[nodiscard]] double cim_energy(const workload::OpWorkload& op, const CimConfig& cim,
                                int64_t replicas = 1);

// E_transfer,u = b_elem * N_out,u * e_byte: the producer's output crossing the shared bus once.
[[nodiscard]] double transfer_energy(const workload::OpWorkload& producer, double bus_e_byte,
                                     int64_t elem_bytes);

}  // namespace hetcim::cost
