// From a lowered network and a platform (platform.h) to the K-engine problem
// (partition/multi_problem.h): which engines support each operator, at what latency, energy and
// capacity, and the bytes every edge moves. The cost models:
//   seed001-cores  cycles = work / throughput of cluster::CoresConfig (point-wise and dense MACs,
//                  depth-wise MACs, element-wise outputs, pooling inputs, data movement bytes at
//                  the marshaling rate; reshapes free), at the cluster clock
//   seed001-ima    cluster::dense_ima_layer + ima_layer_cost (row/column tiles, one job per tile
//                  and output pixel, pipelined or sequential as the cluster says) plus the
//                  row-tile partial sums at the cores' element-wise rate; capacity = tiles (whole
//                  crossbars). Depth-wise 3x3 layers also as c_job = 8 and 16 slices
//                  (cluster::depthwise_ima_layer), packed ⌊R/9c⌋ x ⌊C/c⌋ slices per crossbar
//   seed001-dw     cluster::dw_engine_cost (3x3 depth-wise only)
//   seed000-host / seed000-cim  exactly partition::build_problem's host column and accelerator
//                  modes (one copy of the weights; up to Platform::replicas copies when set),
//                  energies and powers of cost::Hardware
// Energy: running power x latency (+ the 22 nm energy per IMA job, cluster::ima_job_energy), powers
// scaled to the cluster clock by f V^2 (cluster::scale_power); the cluster's base power is the
// cores engine's static power. Every figure is modelled; the assumptions behind the seed001 ones
// are listed in src/cluster/README.md, the seed000 ones in cost/hardware.h.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "partition/multi_problem.h"
#include "platform/platform.h"
#include "workload/workload.h"

namespace hetcim::platform {

struct PlatformProblem {
  partition::MultiProblem problem;
  // Per operator and option: cycles of the cycle-model engines (seed001-*), -1 for the others.
  std::vector<std::vector<int64_t>> cycles;
  double frequency = 0.0;  // Hz of the cycle models (0 if none)
  std::string costs;       // how the costs were obtained, for the provenance
};

// Objective "latency" (makespan) or "energy" (total energy; the makespan still counts through
// the static and idle powers). `lowered` must be passes::lower's output; the workload is analysed
// here with the crossbar geometry of the platform's cost models.
[[nodiscard]] PlatformProblem build_platform_problem(const graph::Graph& lowered,
                                                     const Platform& platform,
                                                     const std::string& objective = "latency");

}  // namespace hetcim::platform
