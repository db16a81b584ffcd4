#include "partition/jackson.h"

#include <algorithm>
#include <limits>

namespace hetcim::partition {

double JacksonBound::value(double cutoff) {
  std::sort(jobs_.begin(), jobs_.end(),
            [](const JacksonJob& a, const JacksonJob& b) { return a.head < b.head; });
  const auto by_tail = [](const Running& a, const Running& b) { return a.tail < b.tail; };
  heap_.clear();
  double bound = 0.0;
  double now = jobs_.empty() ? 0.0 : jobs_.front().head;
  size_t next = 0;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  while (next < jobs_.size() || !heap_.empty()) {
    if (heap_.empty()) now = std::max(now, jobs_[next].head);
    while (next < jobs_.size() && jobs_[next].head <= now) {
      heap_.push_back({jobs_[next].tail, jobs_[next].duration});
      std::push_heap(heap_.begin(), heap_.end(), by_tail);
      ++next;
    }
    // The job with the largest tail runs until it completes or the next release; a preempted
    // job keeps its tail (the heap key), so it stays on top with less remaining.
    Running& top = heap_.front();
    const double release = next < jobs_.size() ? jobs_[next].head : kInf;
    if (now + top.remaining <= release) {
      now += top.remaining;
      bound = std::max(bound, now + top.tail);
      if (bound >= cutoff) return bound;
      std::pop_heap(heap_.begin(), heap_.end(), by_tail);
      heap_.pop_back();
    } else {
      top.remaining -= release - now;
      now = release;
    }
  }
  return bound;
}

double jackson_preemptive_bound(std::vector<JacksonJob>& jobs) {
  JacksonBound b;
  for (const JacksonJob& j : jobs) b.add(j.head, j.duration, j.tail);
  return b.value();
}

}  // namespace hetcim::partition
