#include "partition/accuracy_front.h"

#include <algorithm>
#include <numeric>

#include "partition/energy_front.h"
#include "util/error.h"

namespace hetcim::partition {

Front3d latency_energy_accuracy_front(const Problem& p, double time_limit_seconds,
                                      size_t max_fronts) {
  if (!p.has_accuracy()) throw user_error("pareto-3d: the problem has no accuracy costs");
  if (!p.has_energy()) throw user_error("pareto-3d: the problem has no energy model");
  Front3d f;
  Problem q = p;
  q.drop_budget_ppm = std::accumulate(p.drop_ppm.begin(), p.drop_ppm.end(), int64_t{0});
  FrontOptions fo;
  fo.time_limit_seconds = time_limit_seconds;
  std::vector<Front3dPoint> all;
  while (true) {
    const FrontResult slice = latency_energy_front(q, fo);
    ++f.fronts;
    f.solves += slice.solves;
    f.complete = f.complete && slice.complete;
    int64_t most = -1;
    for (const FrontPoint& pt : slice.points) {
      const int64_t d = drop_used(q, pt.schedule.assignment);
      all.push_back({pt.makespan, pt.energy.total, d, q.drop_budget_ppm, pt.schedule});
      most = std::max(most, d);
    }
    if (most <= 0) break;
    if (f.fronts == max_fronts) {
      f.complete = false;
      break;
    }
    q.drop_budget_ppm = most - 1;
  }
  const auto dominates = [](const Front3dPoint& a, const Front3dPoint& b) {
    return a.makespan <= b.makespan && a.energy <= b.energy && a.drop_ppm <= b.drop_ppm;
  };
  for (size_t i = 0; i < all.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < all.size() && !dominated; ++j) {
      if (i == j || !dominates(all[j], all[i])) continue;
      // Of equal points keep the first found.
      dominated = !dominates(all[i], all[j]) || j < i;
    }
    if (!dominated) f.points.push_back(all[i]);
  }
  std::stable_sort(
      f.points.begin(), f.points.end(), [](const Front3dPoint& a, const Front3dPoint& b) {
        return a.drop_ppm < b.drop_ppm || (a.drop_ppm == b.drop_ppm && a.makespan < b.makespan);
      });
  return f;
}

}  // namespace hetcim::partition
