// A Pareto front over (crossbars, accuracy drop, latency), all minimised: points sorted by
// crossbars, then drop, ascending; no point has both resources and the latency no larger than
// another's. Without an accuracy model every drop is 0 and the front is the (crossbars, latency)
// staircase: strictly decreasing latency. `Payload` rides along with each point. The second
// resource is a double so that it can also carry a dynamic energy in joules (the full
// latency-energy front, exact.h); accuracy costs in integer ppm are exact in it (< 2^53).
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
    double drop;  // accuracy cost in ppm (problem.h; 0 without an accuracy model) or energy (J)
    double latency;
    Payload payload;
  };

  // Smallest latency among points with at most `crossbars` and at most `drop` (infinity if none).
  [[nodiscard]] double best_within(int64_t crossbars,
                                   double drop = std::numeric_limits<double>::infinity()) const {
    double best = std::numeric_limits<double>::infinity();
    for (const Point& pt : points_) {
      if (pt.crossbars > crossbars) break;
      if (pt.drop <= drop) best = std::min(best, pt.latency);
    }
    return best;
  }

  // True if some point has crossbars <= c, drop <= d and latency <= l.
  [[nodiscard]] bool dominates(int64_t c, double d, double l) const {
    return best_within(c, d) <= l;
  }

  // Inserts unless dominated; removes the points the new one dominates. Returns whether kept.
  bool insert(int64_t c, double d, double l, Payload payload) {
    if (dominates(c, d, l)) return false;
    std::vector<Point> next;
    next.reserve(points_.size() + 1);
    // The new point goes before the first point with (crossbars, drop) >= (c, d); of the rest,
    // those it dominates go (none before it can be dominated: less crossbars or less drop).
    const auto pos = std::find_if(points_.begin(), points_.end(), [c, d](const Point& pt) {
      return pt.crossbars > c || (pt.crossbars == c && pt.drop >= d);
    });
    for (auto it = points_.begin(); it != pos; ++it) next.push_back(std::move(*it));
    next.push_back(Point{c, d, l, std::move(payload)});
    for (auto it = pos; it != points_.end(); ++it)
      if (!(it->crossbars >= c && it->drop >= d && it->latency >= l))
        next.push_back(std::move(*it));
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
