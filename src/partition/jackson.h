// Jackson's preemptive schedule: the optimum of the preemptive relaxation of one machine with
// release times (heads) r_j, processing times p_j and delivery times (tails) q_j, i.e. a lower
// bound on max_j (C_j + q_j) of any non-preemptive schedule. Runs the available job with the
// largest tail at every moment; O(m log m) (two sorts, then a bit set over the jobs' tail
// ranks as the priority queue).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace hetcim::partition {

struct JacksonJob {
  double head = 0.0;
  double duration = 0.0;
  double tail = 0.0;
};

// Reorders `jobs`. Returns 0 for no jobs.
[[nodiscard]] double jackson_preemptive_bound(std::vector<JacksonJob>& jobs);

// The same bound with buffers kept between calls (the searches evaluate it at every node).
class JacksonBound {
 public:
  void clear() { jobs_.clear(); }
  void add(double head, double duration, double tail) { jobs_.push_back({head, duration, tail}); }
  // Stops early once the bound reaches `cutoff`: then returns a value >= cutoff, still a bound.
  [[nodiscard]] double value(double cutoff = std::numeric_limits<double>::infinity());

 private:
  std::vector<JacksonJob> jobs_;
  std::vector<int> by_tail_;       // job indices, largest tail first
  std::vector<int> rank_;          // per job (head order): position in by_tail_
  std::vector<uint64_t> running_;  // available jobs, as a bit set over ranks
  std::vector<double> remaining_;  // per rank
};

}  // namespace hetcim::partition
