// What the points of a design-space exploration claim, counted: how many, cached, proven optimal,
// MILP runs, solve time and host sources (api::DseResult::claim; report/dse.h prints it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dse/dse.h"

namespace hetcim::results {

// What a set of points claims, counted: the reports' sentences come from here.
struct DseSummary {
  size_t points = 0, cached = 0, optimal = 0, milp_run = 0, milp_optimal = 0;
  double solve_seconds = 0;  // exact solver time spent in this run (cached points excluded)
  std::vector<std::string> host_sources;  // "<host> = <source>", one per distinct (host, source)
};
[[nodiscard]] DseSummary summarize_dse(const std::vector<dse::DsePoint>& points);
// "64 grid points; all 64 solved to proven optimality by hetcim's exact solver (60 in this run, 4
// read from the cache, their status recorded when solved)" or, when not all are proven, how many
// are and which statuses the others have.
[[nodiscard]] std::string dse_claim(const std::vector<dse::DsePoint>& points);

}  // namespace hetcim::results
