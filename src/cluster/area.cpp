#include "cluster/area.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::cluster {

AreaBreakdown cluster_area(const ClusterConfig& c) {
  const AreaConfig& a = c.area;
  AreaBreakdown r;
  const double pipelined = a.ima_share * a.total;
  const double sequential = pipelined / (1.0 + a.pipeline_ima_overhead);
  const double digital_seq = sequential * a.pipeline_ima_overhead / a.pipeline_digital_overhead;
  r.ima_analog = sequential - digital_seq;
  r.ima_digital = c.ima.execution == ImaExecution::Pipelined
                      ? digital_seq * (1.0 + a.pipeline_digital_overhead)
                      : digital_seq;
  r.ima = r.ima_analog + r.ima_digital;
  r.tcdm = a.tcdm_share * a.total * static_cast<double>(c.tcdm_bytes) /
           static_cast<double>(kReferenceTcdmBytes);
  r.dw = a.dw_share * a.total;
  const double cores = static_cast<double>(c.cores.count);
  r.interconnect = a.interconnect_share * a.total *
                   (cores + static_cast<double>(c.ima.bus_width_bits) / 32.0) /
                   (cores + static_cast<double>(a.reference_bus_width_bits) / 32.0);
  r.rest = (1.0 - a.ima_share - a.tcdm_share - a.dw_share - a.interconnect_share) * a.total;
  r.total = r.ima + r.tcdm + r.dw + r.interconnect + r.rest;
  return r;
}

double tcdm_bus_efficiency(const ClusterConfig& c, int64_t bus_width_bits) {
  if (c.tcdm_contention <= 0) return 1.0;
  const double banks = static_cast<double>(c.tcdm_banks);
  const double k = std::min(banks, std::ceil(static_cast<double>(bus_width_bits) / 32.0));
  const double free_per_core = 1.0 - c.tcdm_contention * k / banks;
  const double e = std::pow(free_per_core, static_cast<double>(c.cores.count));
  if (e < 1e-3)
    throw user_error("tcdm.contention ", c.tcdm_contention, ": the ", c.cores.count,
                     " cores leave a ", bus_width_bits, "-bit stream its ", k, " of ", banks,
                     " banks in ", e * 100, " % of the cycles (the model needs at least 0.1 %)");
  return e;
}

ImaConfig ima_with_tcdm(const ClusterConfig& c, const ImaConfig& ima) {
  ImaConfig r = ima;
  r.stream_efficiency = tcdm_bus_efficiency(c, ima.bus_width_bits);
  return r;
}

}  // namespace hetcim::cluster
