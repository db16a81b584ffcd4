// Capacity vectors of the K-engine exact solver (multi_exact.cpp): per engine with a capacity, the
// resident capacity used; then per engine with reprogram options, the reserved reprogramming area
// (the largest reprogrammed footprint so far). The first kind adds up over parts of a solution,
// the second takes the maximum; both only grow, so a point with no more of either and no more cost
// dominates (every completion of the dominated point completes the dominating one within the
// capacities too).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "partition/multi_problem.h"

namespace hetcim::partition {

using Cap = std::vector<int64_t>;

[[nodiscard]] inline bool cap_le(const Cap& a, const Cap& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] > b[i]) return false;
  return true;
}

// Keeps the points no other point beats in both capacity and cost.
template <typename T, typename CapOf, typename CostOf>
[[nodiscard]] std::vector<T> pareto_filter(std::vector<T> pts, CapOf cap_of, CostOf cost_of) {
  std::stable_sort(pts.begin(), pts.end(),
                   [&](const T& a, const T& b) { return cost_of(a) < cost_of(b); });
  std::vector<T> kept;
  for (T& p : pts) {
    bool dom = false;
    for (const T& q : kept)
      if (cap_le(cap_of(q), cap_of(p))) {
        dom = true;
        break;
      }
    if (!dom) kept.push_back(std::move(p));
  }
  return kept;
}

// The dimensions of a problem's capacity vectors and their arithmetic.
struct CapacitySpace {
  explicit CapacitySpace(const MultiProblem& p);

  std::vector<int> cap_index;      // per engine: its resident dimension (-1: none)
  std::vector<int> reserve_index;  // per engine: its reserved-area dimension (-1: none)
  std::vector<int> reserve_of;     // per resident dimension: the matching reserved one or -1
  size_t resident_dims = 0;
  Cap limit;  // per dimension: the engine's capacity

  // The dimension an option's capacity goes to (-1: none).
  [[nodiscard]] int dim(const MultiOption& x) const {
    const auto e = static_cast<size_t>(x.engine);
    return x.reprogram ? reserve_index[e] : cap_index[e];
  }
  [[nodiscard]] Cap of(const MultiOption& x) const {
    Cap c(limit.size(), 0);
    if (dim(x) >= 0) c[static_cast<size_t>(dim(x))] = x.capacity;
    return c;
  }
  // Two parts of a solution together: resident capacities add, reserved areas take the maximum.
  void add(Cap& a, const Cap& b) const {
    for (size_t d = 0; d < a.size(); ++d)
      a[d] = d < resident_dims ? a[d] + b[d] : std::max(a[d], b[d]);
  }
  // Capacity still free on resident dimension d (its reserved area counted).
  [[nodiscard]] int64_t free(const Cap& c, size_t d) const {
    const int r = reserve_of[d];
    return limit[d] - c[d] - (r >= 0 ? c[static_cast<size_t>(r)] : 0);
  }
  [[nodiscard]] bool fits(const Cap& c) const {
    for (size_t d = 0; d < resident_dims; ++d)
      if (free(c, d) < 0) return false;
    return true;
  }
};

}  // namespace hetcim::partition
