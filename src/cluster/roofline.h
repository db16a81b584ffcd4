// Seed 001, Fig. 7: the IMA roofline. Synthetic point-wise layers that use a share u of the
// crossbar (rows_used = round(R * sqrt(u)), cols_used = round(C * sqrt(u))) run `vectors` jobs
// each, for every bus width, operating point and execution model.
//   operational intensity I = 2 * rows_used * cols_used / (rows_used * in_bytes + cols_used *
//   out_bytes)  [op/B] compute roof = 2 * rows_used * cols_used / t_mvm = u * peak   (grows with I:
//   a diagonal) memory roof  = bus_bytes * f * I attained     = ops of the layer / (cycles of
//   ima_layer_cost / f)
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/cluster_config.h"

namespace hetcim::cluster {

struct RooflineOptions {
  std::vector<int64_t> bus_widths_bits = {32, 64, 128, 256, 512};
  std::vector<double> utilizations = {0.05, 0.10, 0.25, 0.50, 0.75, 1.00};  // in (0, 1]
  std::vector<ImaExecution> executions = {ImaExecution::Sequential, ImaExecution::Pipelined};
  // Empty: the operating points of the configuration (seed 001: 500 and 250 MHz).
  std::vector<OperatingPoint> operating_points;
  int64_t vectors = 256;  // jobs per synthetic layer (a 16x16 output feature map)
};

struct RooflinePoint {
  double frequency = 0;  // Hz
  double voltage = 0;
  int64_t bus_width_bits = 0;
  ImaExecution execution = ImaExecution::Pipelined;
  int64_t rows_used = 0, cols_used = 0;
  double utilization = 0;     // rows_used * cols_used / (R * C)
  double intensity = 0;       // op/B
  double compute_roof = 0;    // op/s
  double memory_roof = 0;     // op/s
  double attained = 0;        // op/s, the job model incl. configuration, fill and drain
  int64_t cycles = 0;         // of the synthetic layer
  double stream_share = 0;    // stream-in + stream-out cycles / (all phase cycles) of a job
  bool memory_bound = false;  // memory roof below compute roof
  double area = 0;            // m^2, the cluster at this bus width and execution (area.h)
};

// Throws UserError for a bus width that is not a positive multiple of 8 bits, a utilization
// outside (0, 1] or vectors < 1.
[[nodiscard]] std::vector<RooflinePoint> roofline(const ClusterConfig& config,
                                                  const RooflineOptions& options);

}  // namespace hetcim::cluster
