#include "results/dse_summary.h"

#include <algorithm>
#include <map>

namespace hetcim::results {

DseSummary summarize_dse(const std::vector<dse::DsePoint>& pts) {
  DseSummary s;
  s.points = pts.size();
  for (const auto& p : pts) {
    s.cached += p.cached;
    s.optimal += p.status == "optimal";
    s.milp_run += p.milp_run;
    s.milp_optimal += p.milp_run && p.milp_status == "optimal";
    if (!p.cached) s.solve_seconds += p.seconds;
    const std::string hs = p.host + " = " + p.host_source;
    if (std::find(s.host_sources.begin(), s.host_sources.end(), hs) == s.host_sources.end())
      s.host_sources.push_back(hs);
  }
  return s;
}

std::string dse_claim(const std::vector<dse::DsePoint>& pts) {
  const DseSummary s = summarize_dse(pts);
  std::string out = std::to_string(s.points) + " grid points; ";
  const std::string origin = "(" + std::to_string(s.points - s.cached) + " solved in this run, " +
                             std::to_string(s.cached) +
                             " read from the cache, their status recorded when they were solved)";
  if (s.optimal == s.points) {
    out += "all " + std::to_string(s.points) +
           " solved to proven optimality by hetcim's exact solver " + origin;
  } else {
    std::map<std::string, size_t> others;
    for (const auto& p : pts)
      if (p.status != "optimal") ++others[p.status.empty() ? "no status" : p.status];
    out += std::to_string(s.optimal) + " of " + std::to_string(s.points) +
           " proven optimal by hetcim's exact solver; not proven:";
    for (const auto& [status, n] : others) out += " " + std::to_string(n) + " " + status;
    out += " " + origin;
  }
  if (s.milp_run > 0)
    out += "; the paper's MILP (CBC) ran on " + std::to_string(s.milp_run) + " points, " +
           std::to_string(s.milp_optimal) + " proven optimal";
  return out;
}

}  // namespace hetcim::results
