// A wall-clock deadline shared by the searches of one solve.
#pragma once

#include <chrono>
#include <cmath>

namespace hetcim::partition {

class Deadline {
 public:
  explicit Deadline(double seconds) : start_(std::chrono::steady_clock::now()) {
    unlimited_ = !std::isfinite(seconds);
    if (!unlimited_)
      at_ = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(seconds));
  }
  [[nodiscard]] bool expired() const {
    return !unlimited_ && std::chrono::steady_clock::now() >= at_;
  }
  [[nodiscard]] double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_, at_;
  bool unlimited_ = true;
};

}  // namespace hetcim::partition
