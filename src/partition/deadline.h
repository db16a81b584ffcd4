// The limits shared by the searches of one solve: a wall-clock deadline and a deterministic work
// limit. Every search node (branch-and-bound of the segment fronts, exact sequencing) is charged
// once; the node budget makes a limited run reproducible (same problem, same limit, same result on
// any machine), the wall clock (read every 256 nodes) does not. A cancel request (util/cancel.h:
// Ctrl-C in the Python binding) expires the deadline at the next clock reading.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>

#include "util/cancel.h"

namespace hetcim::partition {

class Deadline {
 public:
  // seconds: infinity = no wall-clock limit; max_nodes: 0 = no node limit.
  explicit Deadline(double seconds, int64_t max_nodes = 0)
      : start_(std::chrono::steady_clock::now()), max_nodes_(max_nodes) {
    unlimited_ = !std::isfinite(seconds);
    if (!unlimited_)
      at_ = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(seconds));
  }
  [[nodiscard]] bool expired() const {
    return cancel_requested() || (!unlimited_ && std::chrono::steady_clock::now() >= at_);
  }
  // Charges one search node; true once the node budget is spent (for good) or the wall clock has
  // run out.
  [[nodiscard]] bool charge() const {
    ++nodes_;
    if (max_nodes_ > 0 && nodes_ > max_nodes_) {
      node_limited_ = true;
      return true;
    }
    return (nodes_ & 255) == 0 && expired();
  }
  [[nodiscard]] bool node_limited() const { return node_limited_; }
  [[nodiscard]] int64_t charged() const { return nodes_; }
  [[nodiscard]] double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_, at_;
  bool unlimited_ = true;
  int64_t max_nodes_ = 0;
  mutable int64_t nodes_ = 0;
  mutable bool node_limited_ = false;
};

}  // namespace hetcim::partition
