// The MILP of milp.h as plain arrays (columns, sparse rows, bounds, names), before it is handed
// to a solver or written to a file: its options, its sizes and its big-M, which milp.h's solve and
// file export share.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "partition/cbc.h"
#include "partition/problem.h"

namespace hetcim::partition {

struct MilpOptions {
  double time_limit_seconds = 60.0;  // wall clock (CBC timeMode elapsed); > 0, may be infinity
  double relative_gap = 0.0;         // stop once (incumbent - bound) / incumbent <= this, >= 0
  int threads = 1;                   // CBC threads (>= 1); more than 1 is not deterministic
  int seed = 1;                      // CBC random seed
  bool binary_z = true;              // z_uv binary as in the paper; false: continuous in [0, 1]
  // Time unit of the model in seconds; 0 = automatic: a power of ten near M / 1000, which keeps
  // CBC's absolute tolerances small against the latencies.
  double time_unit_seconds = 0.0;
};

struct MilpStats {
  size_t operators = 0, edges = 0, parallel_pairs = 0, offloadable = 0, sinks = 0;
  size_t multi_mode_operators = 0;
  size_t bus_jobs = 0, bus_pairs = 0;  // serial bus: potential transfers, disjunctive pairs
  // Table I of the paper counts these (one sink): N + |P| and 3|E| + 2|P| + N + (N - |V_acc|) + 2.
  size_t paper_binaries = 0;
  size_t paper_constraints = 0;
  // The model actually built: integer columns (x, o, y, and z when binary), continuous columns
  // (s, f, C_max, and z when continuous), rows ((6) has one row per sink; one link row per
  // multi-mode operator).
  size_t binaries = 0;
  size_t continuous = 0;
  size_t rows = 0;
  double big_m_seconds = 0.0;      // eq. 13
  double time_unit_seconds = 0.0;  // unit of the time columns in the built model
};

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

// Big-M of eq. 13 in seconds.
[[nodiscard]] double milp_big_m(const Problem& p);

// Sizes of the model (built, not solved).
[[nodiscard]] MilpStats milp_stats(const Problem& p, const MilpOptions& opt = {});

[[nodiscard]] MilpModel build_milp_model(const Problem& p, const MilpOptions& opt);

}  // namespace hetcim::partition
