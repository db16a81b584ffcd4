// The host column of the cost table: one latency per operator, from a measured profile file
// (matched by operator name) or from an analytical host model, with a label that says which.
#pragma once

#include <string>
#include <vector>

#include "cost/hardware.h"
#include "cost/host_model.h"
#include "cost/host_profile.h"
#include "workload/workload.h"

namespace hetcim::cost {

struct HostCosts {
  std::vector<double> t_host;  // seconds, one per workload operator
  // "modelled by arm-cortex-a72 (analytical host model)" | "measured on <CPU> (profile host.csv)"
  std::string source;
  bool modelled = true;
};

// From the host description: its profile file when given, otherwise its model preset.
[[nodiscard]] HostCosts host_costs(const workload::Workload& w, const HostSpec& host, bool int8);

// From a profile already in memory; `origin` names it in errors. Every operator of the workload
// must be in the profile (UserError naming the first one missing) and the precisions must agree.
[[nodiscard]] HostCosts host_costs_from_profile(const workload::Workload& w, const HostProfile& p,
                                                const std::string& origin, bool int8);

[[nodiscard]] HostCosts host_costs_from_model(const workload::Workload& w, const HostModel& m,
                                              bool int8);

}  // namespace hetcim::cost
