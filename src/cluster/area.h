// Area of seed 001's cluster away from its built design, and the TCDM bank-conflict option.
//
// Area. The built design (seed 001 Fig. 6: 2.5 mm^2, pipelined IMA, a 128-bit IMA data interface,
// 512 kB TCDM) is split by AreaConfig's shares; each part scales with what it is made of:
//   IMA        pipelined: ima_share x total. Sequential: the pipeline adds +40 % to the digital
//              logic and +5 % to the whole IMA (Sec. IV-B), so the sequential IMA is
//              A_s = A_p / 1.05, of which the digital logic is D_s = A_s x 0.05 / 0.40
//              (12.5 %), the analog macro A_s - D_s; pipelined D_p = 1.4 D_s.
//   TCDM       tcdm_share x total x tcdm_bytes / 512 kB (SRAM area ~ capacity).
//   DW engine  dw_share x total.
//   LIC        interconnect_share x total x (cores + W / 32) / (cores + W_ref / 32): the paper's
//              "interconnect area linearly scaling with the bit-width of the system bus", as
//              master ports of 32 bit (cores.count core ports and W / 32 IMA/DW ports; the
//              share is an assumption, the port count a simplification: the LIC's crossbar grows
//              with masters x banks).
//   rest       (1 - the shares above) x total: cores, caches, DMA, event unit; fixed.
// Not modelled: the IMA's buffers growing with the bus width; the DW engine's own streamer.
//
// TCDM bank conflicts (off by default; ClusterConfig::tcdm_contention = p > 0 turns it on).
// While an accelerator streams, each of the n = cores.count cores accesses one uniformly random
// bank of the B = tcdm_banks word-interleaved banks with probability p per cycle; a beat of the
// accelerator's k = W / 32 words occupies min(k, B) consecutive (distinct) banks and stalls for
// the cycle when a core hits one of them (the cores win, a pessimistic arbitration):
//   P(stall) = 1 - (1 - p min(k, B) / B)^n,  efficiency e = 1 - P(stall)
// and a stream of `beats` beats takes ceil(beats / e) cycles (geometric retries). The IMA's
// stream-in and stream-out phases are charged so; the DW engine's loads are not (not modelled).
#pragma once

#include <cstdint>

#include "cluster/cluster_config.h"

namespace hetcim::cluster {

struct AreaBreakdown {
  double ima = 0;          // m^2, the IMA subsystem of the configured execution model
  double ima_digital = 0;  // its digital logic (buffers, FSM, streamer)
  double ima_analog = 0;   // the analog macro (crossbar, DACs, ADCs)
  double tcdm = 0, dw = 0, interconnect = 0, rest = 0;
  double total = 0;
};

// At config.ima.execution and config.ima.bus_width_bits.
[[nodiscard]] AreaBreakdown cluster_area(const ClusterConfig& config);

// The share of stream cycles that win their banks (1 without contention), at `bus_width_bits`.
[[nodiscard]] double tcdm_bus_efficiency(const ClusterConfig& config, int64_t bus_width_bits);

// config.ima with its stream efficiency set from the TCDM (what the IMA models of the cluster use).
[[nodiscard]] ImaConfig ima_with_tcdm(const ClusterConfig& config, const ImaConfig& ima);

}  // namespace hetcim::cluster
