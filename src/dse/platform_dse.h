// Design-space exploration of a K-engine platform (issue 12): every model on every point of a grid
// over platform parameters (platform/sweep.h: imas, bus_width, link_bandwidth, ...), each mapped
// by the exact solver the problem's shape calls for (partition/solve_by_shape.h: seed 000's
// two-device solver on its host + crossbar + one bus shape, the K-engine exact solver otherwise),
// in parallel over threads and MPI ranks with dist::run_queue, with a result cache keyed by the
// problem's content, the commit and every solver option, as dse.h does for seed 000's grid. Output
// order is the grid order (model, then the axes, the first axis slowest) whatever the thread and
// rank count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "partition/multi_problem.h"
#include "platform/platform.h"
#include "platform/sweep.h"

namespace hetcim::dse {

struct PlatformDseModel {
  std::string name;
  graph::Graph lowered;  // passes::lower's output
};

struct PlatformDseOptions {
  std::string objective = "latency";  // "latency" | "energy"
  double time_limit = 600.0;          // seconds per point, wall clock (> 0)
  int threads = 1;                    // worker threads over grid points (>= 1), in every rank
  std::string cache_dir;              // "" = no cache
  bool over_ranks = false;            // split the grid over MPI ranks (see dse.h)
  std::function<void(const std::string&)> on_cache_warning;
};

struct PlatformDsePoint {
  std::string model;
  std::vector<std::string> values;  // one per axis, as typed
  int64_t operators = 0;
  std::string status;  // the exact solver's: optimal, time-limit, infeasible, ...
  double latency = 0, energy = 0, objective = 0, bound = 0, seconds = 0;
  int64_t nodes = 0;
  std::vector<std::string> engines;    // the platform's engines
  std::vector<int64_t> operators_on;   // per engine: operators mapped to it
  std::vector<int64_t> capacity_used;  // per engine: crossbars used (0 without a capacity)
  std::vector<int> option;             // the plan: per operator, its option (MultiProblem::options)
  bool cached = false;  // read from the cache (solved by the same commit with the same options)
  int rank = 0;         // the MPI rank that solved it (not written to any output)
};

// FNV-1a over the problem's content, the commit of this build and every solver option.
[[nodiscard]] std::string platform_dse_cache_key(const partition::MultiProblem& p,
                                                 const PlatformDseOptions& o);

// With `over_ranks` in an MPI run every rank calls this with the same arguments; rank 0 returns
// the points, the others an empty vector. UserError naming the axis and value for a grid point
// that does not apply to the platform (before anything is solved).
[[nodiscard]] std::vector<PlatformDsePoint> run_platform_dse(
    const std::vector<PlatformDseModel>& models, const platform::Platform& base,
    const std::vector<platform::SweepAxis>& axes, const PlatformDseOptions& o,
    const std::function<void(size_t done, size_t total)>& progress = {});

}  // namespace hetcim::dse
