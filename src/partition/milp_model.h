// The MILP of milp.h as plain arrays (columns, sparse rows, bounds, names), before it is handed
// to a solver or written to a file.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "partition/cbc.h"
#include "partition/milp.h"

namespace hetcim::partition {

struct MilpModel : LinearModel {
  // Column indices.
  int x0 = 0, o0 = 0, z0 = 0, s0 = 0, f0 = 0, cmax = 0;
  std::vector<int> y_first;  // per operator: first y column, -1 when the operator has < 2 modes
  std::vector<std::pair<int, int>> pairs;  // the parallel pairs, column o0 + i
  // Serial bus: one job per potential transfer (PerEdge: per edge, key = its index;
  // PerTensorDirection: per producer and direction, consumers = all its successors, key = -1).
  struct BusJob {
    int producer;
    bool to_host;
    std::vector<int> consumers;
    int key;
    int b;       // start column
    int active;  // activity column (z_e or w)
  };
  std::vector<BusJob> bus;
  double unit = 1.0;  // seconds per model time unit
  MilpStats stats;
};

[[nodiscard]] MilpModel build_milp_model(const Problem& p, const MilpOptions& opt);

}  // namespace hetcim::partition
