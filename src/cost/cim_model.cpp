#include "cost/cim_model.h"

#include "util/error.h"

namespace hetcim::cost {

workload::WorkloadOptions workload_options(const CimConfig& cim) {
  workload::WorkloadOptions o;
  o.xbar_rows = cim.xbar_rows;
  o.xbar_cols = cim.xbar_cols;
  o.elem_bytes = cim.elem_bytes;
  return o;
}

double cim_latency(const workload::OpWorkload& op, const CimConfig& cim, int64_t replicas) {
  HETCIM_ASSERT(op.offloadable, "operator ", op.name, " cannot run on a crossbar");
  HETCIM_ASSERT(replicas >= 1);
  const double b = static_cast<double>(cim.elem_bytes);
  const double load = b * static_cast<double>(op.in_elems) / cim.bandwidth;
  const double store = b * static_cast<double>(op.out_elems) / cim.bandwidth;
  const int64_t mvms = (op.n_mvm + replicas - 1) / replicas;
  return load + static_cast<double>(mvms) * cim.t_mvm + store;
}

double transfer_latency(const workload::OpWorkload& producer, double bus_bandwidth,
                        int64_t elem_bytes) {
  return static_cast<double>(elem_bytes) * static_cast<double>(producer.out_elems) / bus_bandwidth;
}

}  // namespace hetcim::cost
