#include "partition/summary.h"

namespace hetcim::partition {

Summary summarize(const Problem& p, const Schedule& s) {
  Summary r;
  r.latency = s.makespan;
  for (size_t v = 0; v < p.size(); ++v) {
    r.cpu_only += p.t_host[v];
    const int m = s.assignment.mode[v];
    const double t = p.duration(static_cast<int>(v), m);
    if (m == kHost) {
      ++r.host_ops;
      r.host_busy += t;
    } else {
      ++r.cim_ops;
      r.cim_busy += t;
    }
  }
  r.speedup = r.latency > 0 ? r.cpu_only / r.latency : 0;
  r.crossbars_used = crossbars_used(p, s.assignment);
  return r;
}

}  // namespace hetcim::partition
