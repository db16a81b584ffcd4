#include "cost/energy_model.h"

#include <cmath>

#include "util/error.h"

namespace hetcim::cost {

double host_energy(double t_host_seconds, double power) {
  HETCIM_ASSERT(std::isfinite(t_host_seconds) && t_host_seconds >= 0, "t_host = ", t_host_seconds);
  HETCIM_ASSERT(std::isfinite(power) && power >= 0, "host power = ", power);
  return power * t_host_seconds;
}

double cim_energy(const workload::OpWorkload& op, const CimConfig& cim, int64_t replicas) {
  HETCIM_ASSERT(op.offloadable, "operator ", op.name, " cannot run on a crossbar");
  HETCIM_ASSERT(replicas >= 1);
  // The r copies run ceil(N_mvm / r), ..., and N_mvm - (r - 1) * ceil(N_mvm / r) vectors: N_mvm in
  // all, each on `crossbars` crossbars. `replicas` only enters through this invariance.
  const double crossbar_mvms = static_cast<double>(op.n_mvm) * static_cast<double>(op.crossbars);
  const double bytes =
      static_cast<double>(cim.elem_bytes) * static_cast<double>(op.in_elems + op.out_elems);
  return crossbar_mvms * cim.e_mvm + bytes * cim.e_byte;
}

double transfer_energy(const workload::OpWorkload& producer, double bus_e_byte,
                       int64_t elem_bytes) {
  return static_cast<double>(elem_bytes) * static_cast<double>(producer.out_elems) * bus_e_byte;
}

}  // namespace hetcim::cost
