// The analytical CIM accelerator and bus model of seed 000 (eqs. 2-3 and the transfer model).
#pragma once

#include <cstdint>

#include "workload/workload.h"

namespace hetcim::cost {

struct CimConfig {
  int64_t xbar_rows = 256;     // M
  int64_t xbar_cols = 256;     // N
  int64_t crossbars = 100;     // C, the budget
  double t_mvm = 50e-9;        // seconds per MVM
  double bandwidth = 10.24e9;  // B_cim, bytes/s (internal load/store)
  int64_t elem_bytes = 1;      // b_elem

  // Energy (beyond seed 000, which gives no energy figures). The defaults are ASSUMPTIONS derived
  // from ISAAC's published component figures (Shafiee et al., ISCA 2016, 32 nm; as tabulated in
  // the Accelergy hwcomponents library: 8-bit ADC 1.67 pJ per conversion = 16 mW / (8 ADCs x
  // 1.2 GS/s); 1-bit DAC 0.42 pJ per row and input bit; 128x128 array 0.3 mW at 100 ns per read
  // = 30 pJ; shift-and-add 0.021 pJ), scaled to one 256x256 crossbar holding int8 weights in one
  // cell each, inputs applied bit-serially (8 input bits), one ADC conversion per column and bit:
  //   ADC 256 x 8 x 1.67 pJ = 3.41 nJ, DAC 256 x 8 x 0.42 pJ = 0.85 nJ,
  //   array 4 x 30 pJ x 8 = 0.96 nJ, shift-and-add 256 x 8 x 0.021 pJ = 0.04 nJ  -> 5.3 nJ.
  // The energy does not depend on t_mvm (a slower MVM at the same conversions costs the same).
  double e_mvm = 5.3e-9;  // J per MVM on one crossbar, incl. DAC/ADC/periphery
  // Internal load/store at B_cim: ISAAC's eDRAM buffer (20.45 pJ per 256-bit access = 0.64 pJ/B)
  // plus its eDRAM bus (0.054 pJ/bit = 0.43 pJ/B), rounded: 1 pJ/B. An assumption.
  double e_byte = 1e-12;  // J per byte loaded or stored inside the accelerator
  // Leakage and always-on control of the whole accelerator: RRAM arrays are non-volatile and
  // ISAAC's tables give its converters no leakage, so this is only the periphery left powered
  // (clock tree, buffers, controllers). An assumption: 1 mW per crossbar tile x 100 crossbars.
  double static_power = 0.1;  // W, drawn for the whole makespan
};

// The workload options a CIM configuration implies: its crossbar geometry and element width (one
// column per weight). The configuration is the one source of truth; partition::build_problem
// checks that a workload was analysed with it.
[[nodiscard]] workload::WorkloadOptions workload_options(const CimConfig& cim);

// T_acc,v = b_elem*N_in/B_cim + ceil(N_mvm / replicas)*T_mvm + b_elem*N_out/B_cim (eq. 2-3).
// All crossbars of an operator work in parallel; `replicas` copies of the weights split the input
// vectors between them (replicas = 1 is the paper's model).
[[nodiscard]] double cim_latency(const workload::OpWorkload& op, const CimConfig& cim,
                                 int64_t replicas = 1);

// T_transfer,(u,v) = b_elem * N_out,u / B_shared.
[[nodiscard]] double transfer_latency(const workload::OpWorkload& producer, double bus_bandwidth,
                                      int64_t elem_bytes);

}  // namespace hetcim::cost
