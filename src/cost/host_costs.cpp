#include "cost/host_costs.h"

#include "util/error.h"

namespace hetcim::cost {

HostCosts host_costs_from_model(const workload::Workload& w, const HostModel& m, bool int8) {
  HostCosts c;
  c.source = "modelled by " + m.name + " (analytical host model)";
  c.modelled = true;
  for (const workload::OpWorkload& op : w.ops) c.t_host.push_back(host_latency(op, m, int8));
  return c;
}

HostCosts host_costs_from_profile(const workload::Workload& w, const HostProfile& p,
                                  const std::string& origin, bool int8) {
  const std::string want = int8 ? "int8" : "fp32";
  if (p.precision != want)
    throw user_error(origin, ": profile was measured at precision ", p.precision, ", the model is ",
                     "partitioned at ", want);
  HostCosts c;
  c.modelled = p.modelled;
  // "measured on <CPU> (profile <file>)" or, for a profile filled by a host model,
  // "modelled by <machine> (profile <file>)".
  const std::string where = p.machine.empty() ? "an unnamed machine" : p.machine;
  c.source = std::string(p.modelled ? "modelled by " : "measured on ") + where + " (profile " +
             origin + ")";
  for (const workload::OpWorkload& op : w.ops) {
    const HostProfileOp* row = p.find(op.name);
    if (!row)
      throw user_error(origin, ": no row for operator '", op.name, "' (", op.op_type,
                       "); the profile must come from the same model at the same precision (",
                       p.ops.size(), " rows in the profile, ", w.ops.size(), " operators)");
    c.t_host.push_back(row->median_s);
  }
  return c;
}

HostCosts host_costs(const workload::Workload& w, const HostSpec& host, bool int8) {
  if (!host.profile.empty())
    return host_costs_from_profile(w, read_host_profile(host.profile), host.profile, int8);
  return host_costs_from_model(w, host_model_preset(host.model), int8);
}

}  // namespace hetcim::cost
