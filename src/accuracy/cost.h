// The per-operator cost a partition's accuracy budget is spent in (issue 13), and the map from
// that cost to accuracy points.
//
// Two kinds (`--cost`):
//   top1   the net top-1 drop (paired.h): points of accuracy, exact interval. Coarse: an operator
//          that changes no top-1 on the calibration set costs 0, however close it brings images
//          to their decision boundary.
//   logit  the relative mean squared logit error: mean over images of ||chip - digital||^2 over
//          the mean of ||digital||^2 (the square of relative_error()). Continuous: it resolves
//          effects that flip no top-1. It adds up when the operators' perturbations of the logits
//          are small and uncorrelated (the cross terms of ||e1 + e2||^2 average out); the
//          sensitivity file's greedy check measures how far that holds. Interval: Student t on the
//          per-image squared errors over the fixed digital denominator, at the file's level
//          (approximate: it assumes the mean of the per-image errors is near normal).
// A plan's logit cost is not in accuracy points. logit_fit() maps it to points from the greedy
// check: the prefix sets of operators in ascending cost, each with its summed single costs and its
// measured top-1 drop; the map is piecewise linear through (0, 0) and those points, made
// non-decreasing (running maximum). It is a fit on the calibration set, not a bound: hetcim
// partition verifies every budgeted plan end to end and tightens it (api/partition.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hetcim::accuracy {

enum class CostKind { Top1, Logit };

[[nodiscard]] const char* cost_kind_name(CostKind k);  // "top1", "logit"
// UserError naming `field` for anything but "top1" or "logit".
[[nodiscard]] CostKind parse_cost_kind(const std::string& text, const std::string& field);

struct CostEstimate {
  double value = 0.0, lo = 0.0, hi = 0.0;
};

// The logit cost of `chip` against `digital` (rows x classes each) with its interval at `level`
// (lo clipped at 0; with one row, or identical rows, the interval is the point). UserError when the
// sizes disagree, classes does not divide them, or level is outside (0, 1).
[[nodiscard]] CostEstimate logit_cost(const std::vector<float>& digital,
                                      const std::vector<float>& chip, int64_t classes,
                                      double level);

// The piecewise-linear, non-decreasing map from a summed cost to accuracy points.
class CostToDrop {
 public:
  CostToDrop() = default;
  // `costs` and `drops` pair up (any order; drops as fractions); (0, 0) is added.
  CostToDrop(const std::vector<double>& costs, const std::vector<double>& drops);
  // The fitted drop at `cost` (beyond the last point: its drop, the map is flat there).
  [[nodiscard]] double drop(double cost) const;
  // The largest cost whose fitted drop is <= `budget` (the largest point's cost when every
  // fitted drop is within it).
  [[nodiscard]] double budget(double drop_budget) const;
  [[nodiscard]] bool empty() const { return cost_.size() <= 1; }

 private:
  std::vector<double> cost_{0.0}, drop_{0.0};  // ascending cost, non-decreasing drop
};

}  // namespace hetcim::accuracy
