#include "partition/jackson.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace hetcim::partition {

double JacksonBound::value(double cutoff) {
  std::sort(jobs_.begin(), jobs_.end(),
            [](const JacksonJob& a, const JacksonJob& b) { return a.head < b.head; });
  const size_t m = jobs_.size();
  // The available job with the largest tail runs: rank the jobs by tail once, and keep the
  // available ones as a bit set over ranks (lowest set bit = largest tail).
  by_tail_.resize(m);
  for (size_t i = 0; i < m; ++i) by_tail_[i] = static_cast<int>(i);
  std::sort(by_tail_.begin(), by_tail_.end(), [&](int a, int b) {
    return jobs_[static_cast<size_t>(a)].tail > jobs_[static_cast<size_t>(b)].tail;
  });
  rank_.resize(m);
  for (size_t r = 0; r < m; ++r) rank_[static_cast<size_t>(by_tail_[r])] = static_cast<int>(r);
  const size_t words = (m + 63) / 64;
  running_.assign(words, 0);
  remaining_.resize(m);
  size_t low = words;  // no set bit below word `low`
  double bound = 0.0;
  double now = m == 0 ? 0.0 : jobs_.front().head;
  size_t next = 0, available = 0;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  while (next < m || available > 0) {
    if (available == 0) now = std::max(now, jobs_[next].head);
    for (; next < m && jobs_[next].head <= now; ++next) {
      const auto r = static_cast<size_t>(rank_[next]);
      running_[r >> 6] |= uint64_t{1} << (r & 63);
      remaining_[r] = jobs_[next].duration;
      low = std::min(low, r >> 6);
      ++available;
    }
    while (running_[low] == 0) ++low;
    const size_t r = (low << 6) + static_cast<size_t>(std::countr_zero(running_[low]));
    const double release = next < m ? jobs_[next].head : kInf;
    if (now + remaining_[r] <= release) {  // completes before the next release
      now += remaining_[r];
      bound = std::max(bound, now + jobs_[static_cast<size_t>(by_tail_[r])].tail);
      if (bound >= cutoff) return bound;
      running_[r >> 6] &= ~(uint64_t{1} << (r & 63));
      if (--available == 0) low = words;
    } else {  // preempted (or not) at the release
      remaining_[r] -= release - now;
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
