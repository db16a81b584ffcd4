// A CALIBRATION of the cluster model to seed 001's Fig. 9 (not a reproduction): which per-job IMA
// overhead and which software rates of the cores make the Bottleneck speedups of the four
// mappings cjob8 / cjob16 / hybrid / ima+dw over the cores the paper's 1.23 / 2.27 / 4.6 /
// 11.5x. The fit is an exhaustive search over stated ranges (deterministic; ties keep the first
// point in the order overhead, point-wise rate, depth-wise rate, each ascending):
//   ima.job_overhead_cycles        every integer in [overhead_min, overhead_max]
//   cores.pointwise_mac_per_cycle  rate_points values, geometric over [pointwise_min, max]
//   cores.depthwise_mac_per_cycle  rate_points values, geometric over [depthwise_min, max]
// minimising the residual sqrt(mean_t ln(model_t / paper_t)^2) (the rms relative error in log
// space, so 2x too high and 2x too low weigh the same). Each grid point is evaluated exactly as
// bottleneck_study does (the IMA and DW engine cycles from one study per overhead; the cores'
// layers by cores_cycles at the point's rates), so the fitted constants put back into the model
// give the reported speedups and residual. What the fitted constants do to Fig. 7 (the roofline)
// is the caller's to show (api::cluster_calibrate).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/bottleneck_mapping.h"
#include "cluster/cluster_config.h"
#include "cluster/dw_engine.h"
#include "cluster/roofline.h"
#include "zoo/bottleneck.h"

namespace hetcim::cluster {

struct FitTarget {
  std::string mapping;  // a mapping of parse_mapping, other than cores
  double speedup = 0;   // over the cores mapping, > 0
};

// Seed 001's Fig. 9 performance column (Sec. V-C), typed as data/paper/seed001.yaml has it.
[[nodiscard]] std::vector<FitTarget> fig9_speedup_targets();

struct Fig9FitOptions {
  std::vector<FitTarget> targets = fig9_speedup_targets();
  int64_t overhead_min = 0, overhead_max = 600;      // cycles per IMA job
  double pointwise_min = 2.0, pointwise_max = 32.0;  // MAC/cycle of the 8 cores
  double depthwise_min = 0.25, depthwise_max = 8.0;  // MAC/cycle of the 8 cores
  int64_t rate_points = 241;  // per rate axis, >= 2 (241 over 16x: 1.16 % steps)
};

struct Fig9Fit {
  // The best grid point.
  int64_t job_overhead_cycles = 0;
  double pointwise_mac_per_cycle = 0;
  double depthwise_mac_per_cycle = 0;
  double residual = 0;                 // of the fitted constants
  std::vector<double> speedups;        // per target, with the fitted constants
  double start_residual = 0;           // of the configuration as given
  std::vector<double> start_speedups;  // per target, as given
  std::vector<std::string> at_bound;   // fitted parameters that sit on an end of their range
  int64_t evaluated = 0;               // grid points
  ClusterConfig fitted;                // the configuration with the three constants replaced
};

// rms of ln(model / target) over the targets (speedups[i] belongs to targets[i]).
[[nodiscard]] double fit_residual(const std::vector<double>& speedups,
                                  const std::vector<FitTarget>& targets);

// UserError for targets that are empty, not positive or name the cores / an unknown mapping, for
// empty or non-positive ranges, rate_points < 2, or more than 2e9 grid points.
[[nodiscard]] Fig9Fit fit_fig9(const ClusterConfig& config, const zoo::BottleneckShape& shape,
                               const Fig9FitOptions& options = {});

// The fit and what it does to the rest of the paper: Fig. 9 / 10 (all five mappings) and Fig. 7
// (the roofline at the default sweep of roofline.h) before and after, and the depth-wise engine
// over the cores' software, whose 26x the fitted depth-wise rate changes.
struct Fig9Calibration {
  Fig9FitOptions options;
  Fig9Fit fit;
  BottleneckStudy before, after;  // paper_mappings(), cores first
  std::vector<RooflinePoint> roofline_before, roofline_after;
  DwCost dw;  // the engine on the Bottleneck's depth-wise layer (unchanged by the fit)
  double dw_over_software_before = 0, dw_over_software_after = 0;
};

[[nodiscard]] Fig9Calibration calibrate_fig9(const ClusterConfig& config,
                                             const zoo::BottleneckShape& shape,
                                             const Fig9FitOptions& options = {});

}  // namespace hetcim::cluster
