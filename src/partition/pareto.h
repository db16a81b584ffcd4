// A Pareto front over (crossbars, latency), both minimised: points sorted by crossbars ascending
// with strictly decreasing latency. `Payload` rides along with each point.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace hetcim::partition {

template <typename Payload>
class ParetoFront {
 public:
  struct Point {
    int64_t crossbars;
    double latency;
    Payload payload;
  };

  // Smallest latency among points with at most `crossbars` (infinity if none).
  [[nodiscard]] double best_within(int64_t crossbars) const {
    double best = std::numeric_limits<double>::infinity();
    for (const Point& pt : points_) {
      if (pt.crossbars > crossbars) break;
      best = pt.latency;
    }
    return best;
  }

  // True if some point has crossbars <= c and latency <= l.
  [[nodiscard]] bool dominates(int64_t c, double l) const { return best_within(c) <= l; }

  // Inserts unless dominated; removes the points the new one dominates. Returns whether kept.
  bool insert(int64_t c, double l, Payload payload) {
    if (dominates(c, l)) return false;
    std::vector<Point> next;
    next.reserve(points_.size() + 1);
    // Points with fewer crossbars stay; the new point goes before the first with >= c; of the
    // rest, those it dominates go.
    const auto pos = std::find_if(points_.begin(), points_.end(),
                                  [c](const Point& pt) { return pt.crossbars >= c; });
    for (auto it = points_.begin(); it != pos; ++it) next.push_back(std::move(*it));
    next.push_back(Point{c, l, std::move(payload)});
    for (auto it = pos; it != points_.end(); ++it)
      if (it->latency < l) next.push_back(std::move(*it));  // else dominated by the new point
    points_ = std::move(next);
    return true;
  }

  [[nodiscard]] const std::vector<Point>& points() const { return points_; }
  [[nodiscard]] size_t size() const { return points_.size(); }
  [[nodiscard]] bool empty() const { return points_.empty(); }

 private:
  std::vector<Point> points_;
};

}  // namespace hetcim::partition
