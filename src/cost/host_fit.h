// A CALIBRATION of an analytical host model (host_model.h) to published figures: three of its
// parameters (the efficiency, so the effective MAC rate peak x efficiency; the sustained
// single-core bandwidth; the per-operator overhead) chosen so that what the caller predicts with
// the model comes closest to what a paper prints. The objective is the sum over targets of
// (ln(predicted / published))^2, so a speedup and a latency weigh the same per relative error;
// the search is Nelder-Mead in the logarithms of the three parameters, each held within stated
// bounds, from the model's own values, deterministic (no random process). A model fitted so is a
// calibration, not a measurement: its name and description say CALIBRATION.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cost/host_model.h"

namespace hetcim::cost {

struct HostFitBounds {
  double efficiency_min = 0.01, efficiency_max = 1.0;     // of the model's peak MAC rates
  double bandwidth_min = 0.25e9, bandwidth_max = 25.6e9;  // bytes/s, one core
  double overhead_min = 1e-7, overhead_max = 1e-3;        // s per operator
};

struct HostFitOptions {
  int max_evaluations = 120;  // calls of the predictor, the starting point included
  HostFitBounds bounds;
};

// One published figure the fit is held to, with what the model predicts before and after.
struct HostFitTarget {
  std::string figure;  // "fig5", "fig4", ...
  std::string cell;    // "yolov5n, 25 crossbars, 50 ns: latency (ms)"
  double published = 0;
  double before = 0, after = 0;  // predicted by the starting and the fitted model
};

struct HostFitResult {
  HostModel start, fitted;  // fitted: name "<start>-calibrated", description says CALIBRATION
  std::vector<HostFitTarget> targets;
  double objective_start = 0, objective = 0;  // sum of squared log ratios
  int evaluations = 0;
};

// The predictions of `model` for the targets, in the targets' order (same length, each > 0).
using HostFitPredict = std::function<std::vector<double>(const HostModel& model)>;

// sum_i (ln(predicted_i / published_i))^2; UserError when the lengths differ or a value is not
// positive and finite.
[[nodiscard]] double log_ratio_objective(const std::vector<double>& predicted,
                                         const std::vector<double>& published);

// `start` with efficiency, memory bandwidth and overhead replaced (efficiency clamped to (0, 1]).
[[nodiscard]] HostModel with_fit_parameters(const HostModel& start, double efficiency,
                                            double bandwidth, double overhead);

// Fits efficiency, memory_bandwidth and op_overhead of `start` (the starting point, which must
// lie within the bounds) to `targets` (figure, cell and published filled in; before/after are
// filled here). UserError without targets or when `predict` returns a wrong length or a value
// that is not positive.
[[nodiscard]] HostFitResult fit_host_model(const HostModel& start,
                                           std::vector<HostFitTarget> targets,
                                           const HostFitPredict& predict,
                                           const HostFitOptions& options = {});

}  // namespace hetcim::cost
