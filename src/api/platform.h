// platform partition: one network mapped across the K engines of a platform (platform/platform.h:
// seed 000's CPU + CIM, seed 001's cluster, or a YAML description), proven optimal by the exact
// solver its shape calls for (partition/solve_by_shape.h) or solved by the K-engine MILP on CBC
// (partition/multi_milp.h), and checked by the simulator. The request is partition's
// (api/partition.h) with its `platform` set: the one request of `hetcim partition`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/model.h"
#include "api/partition.h"
#include "api/status.h"
#include "dse/platform_dse.h"
#include "partition/multi_exact.h"
#include "partition/multi_milp.h"
#include "platform/build.h"
#include "platform/platform.h"
#include "util/provenance.h"

namespace hetcim::api {

struct PlatformPartitionResult {
  Status status;
  Provenance provenance;
  std::string model;
  std::string platform;  // preset name or file
  platform::Platform description;
  platform::PlatformProblem problem;
  // Exact solver: its schedule went through multi_simulate and multi_check. With the MILP, `milp`
  // holds CBC's result (its incumbent replayed and checked the same way) and `solve` is empty.
  partition::MultiExactResult solve;
  std::optional<partition::MultiMilpResult> milp;
};

// The problem a request poses, before it is solved: what --mps, --lp and --problem-json write.
struct PlatformPartitionProblem {
  std::string model;
  std::string platform;  // preset name or file
  platform::Platform description;
  platform::PlatformProblem problem;
};

// UserError naming `platform` when the request has none.
[[nodiscard]] PlatformPartitionProblem build_platform_partition_problem(const Model& model,
                                                                        const PartitionRequest& r);

// The problem as the K-engine MILP's MPS or LP file (partition/multi_milp.h), and as JSON
// (platform/problem_json.h): the whole problem, for another solver.
[[nodiscard]] std::string platform_milp_text(const PlatformPartitionProblem& problem,
                                             partition::MilpFileFormat format);
[[nodiscard]] std::string platform_problem_json(const PlatformPartitionProblem& problem);

[[nodiscard]] PlatformPartitionResult partition_on_platform(const PlatformPartitionProblem& problem,
                                                            const PartitionRequest& r);
[[nodiscard]] PlatformPartitionResult partition_on_platform(const Model& model,
                                                            const PartitionRequest& r);

// dse --platform P --sweep KEY=v1,v2: every model on every point of a grid over platform
// parameters (platform/sweep.h), each mapped by the K-engine exact solver, in parallel (threads,
// MPI ranks) with a result cache (dse/platform_dse.h).
struct PlatformDseRequest {
  std::string platform = "pulp-pcm-cluster";  // preset or YAML file
  std::optional<int64_t> imas;                // as PartitionRequest::imas
  std::vector<std::string> sweeps;            // "KEY=v1,v2,..." each (may be empty: one point)
  std::vector<std::string> models = {"mobilenetv2"};
  std::string objective = "latency";  // "latency" | "energy"
  double time_limit = 600.0;          // seconds per point (> 0)
  int threads = 1;                    // 1..1024
  std::string cache_dir;              // "" = no cache

  void validate() const;  // UserError naming the field
};

struct PlatformDseResult {
  Status status;  // origin solved (some points may be cached)
  Provenance provenance;
  platform::Platform description;
  std::vector<platform::SweepAxis> axes;
  std::vector<dse::PlatformDsePoint> points;  // grid order; empty on ranks other than 0
  size_t cached = 0, optimal = 0;
  double solve_seconds = 0.0;  // in the exact solver, points solved in this run
  // Per axis that moved no result visibly (< 1e-4 relative): by how much and why
  // (dse/sweep_notes.h), computed from the grid's problems and plans.
  std::vector<std::string> notes;
};

[[nodiscard]] PlatformDseResult run_platform_dse(
    const PlatformDseRequest& request,
    const std::function<void(size_t done, size_t total)>& progress = {},
    const std::function<void(const std::string&)>& cache_warning = {});

}  // namespace hetcim::api
