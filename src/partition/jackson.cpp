#include "partition/jackson.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace hetcim::partition {

double jackson_preemptive_bound(std::vector<JacksonJob>& jobs) {
  std::sort(jobs.begin(), jobs.end(),
            [](const JacksonJob& a, const JacksonJob& b) { return a.head < b.head; });
  struct Running {
    double tail;
    double remaining;
    bool operator<(const Running& o) const { return tail < o.tail; }  // max-heap on tail
  };
  std::priority_queue<Running> avail;
  double bound = 0.0;
  double now = jobs.empty() ? 0.0 : jobs.front().head;
  size_t next = 0;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  while (next < jobs.size() || !avail.empty()) {
    if (avail.empty()) now = std::max(now, jobs[next].head);
    while (next < jobs.size() && jobs[next].head <= now) {
      avail.push({jobs[next].tail, jobs[next].duration});
      ++next;
    }
    Running top = avail.top();
    avail.pop();
    const double release = next < jobs.size() ? jobs[next].head : kInf;
    if (now + top.remaining <= release) {
      now += top.remaining;
      bound = std::max(bound, now + top.tail);
    } else {
      top.remaining -= release - now;
      now = release;
      avail.push(top);
    }
  }
  return bound;
}

}  // namespace hetcim::partition
