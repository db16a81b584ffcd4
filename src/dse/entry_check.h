// What a DSE cache entry claims, checked before it is trusted (issue 35): an entry carries its own
// cache key and the plan it reports (the seed-000 grid: mode per operator, host order, bus order;
// the platform grid: option per operator and job list). On reading, the plan is replayed through
// the schedule simulator and checker against the problem of the point being answered, every
// number derived from the plan (latency, energy, objective, operator split, busy times, crossbars)
// is computed again and compared with the entry's, and the status is derived from the stored
// bound and the replayed objective. What this cannot detect is stated in docs/hostile-inputs.md:
// a forged entry whose plan is feasible and whose numbers are those of that plan, but which is
// not the optimum it claims (a bound set equal to a suboptimal objective), is only found by
// solving again.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dse/dse.h"
#include "dse/platform_dse.h"
#include "partition/multi_schedule.h"
#include "partition/problem.h"
#include "partition/schedule.h"

namespace hetcim::dse {

// The fields of `d` that follow from a schedule of `p`: latency, CPU-only latency, speedup,
// operators and busy time per device, crossbars used, energies (with an energy model).
void derive_point_fields(const partition::Problem& p, const partition::Schedule& s, DsePoint& d);

// The status a solve reports: "optimal" when its proven bound reaches the objective of its plan
// (within 1e-9 relative), whatever limit struck afterwards; otherwise `limited` ("time-limit",
// "node-limit"). One rule for the solver's output and the cache's check.
[[nodiscard]] std::string derived_status(double bound, double objective,
                                         const std::string& limited);

// The plan of a schedule as cache-entry fields: "assignment", "host_order", "bus_order".
[[nodiscard]] nlohmann::json plan_fields(const partition::Schedule& s);
// The plan of a K-engine schedule: "option", "order".
[[nodiscard]] nlohmann::json multi_plan_fields(const partition::MultiSchedule& s);

// Why entry `j` (whose solver fields were read into `d`) is not an answer of `p` under cache
// key `key`: "" when its key, plan, numbers and status all check.
[[nodiscard]] std::string entry_mismatch(const partition::Problem& p, const std::string& key,
                                         const nlohmann::json& j, const DsePoint& d);
[[nodiscard]] std::string platform_entry_mismatch(const partition::MultiProblem& p,
                                                  const std::string& key, const nlohmann::json& j,
                                                  const PlatformDsePoint& d);

}  // namespace hetcim::dse
