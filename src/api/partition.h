// partition: seed 000's CPU-CIM partitioning of one network on one hardware point. The model is
// lowered, analysed with the crossbar geometry and element width of the hardware (the one source
// of truth: cost::CimConfig), costed (host measured, from a profile, or modelled) and built into a
// partition::Problem; then solved (exact solver or the paper's MILP), or a partition file is
// replayed through the simulator and the checker, or the latency-energy front is computed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/accuracy.h"
#include "api/hardware.h"
#include "api/model.h"
#include "api/options.h"
#include "api/profile.h"
#include "api/status.h"
#include "partition/accuracy_front.h"
#include "partition/energy_front.h"
#include "partition/milp.h"
#include "partition/problem.h"
#include "partition/schedule.h"
#include "results/partition_run.h"
#include "util/provenance.h"

namespace hetcim::api {

struct PartitionRequest {
  HardwareRequest hardware;
  // A platform of K engines (platform/platform.h: a preset or a YAML file) instead of seed 000's
  // two-device hardware: the network is then mapped by api::partition_on_platform
  // (api/platform.h). With a platform, hardware.crossbars, hardware.t_mvm, hardware.host,
  // replicas and bus_model set the platform's sweep keys of the same meaning (crossbars, t_mvm,
  // host, replicas, serial) on its one point, and solver, time_limit, node_limit, gap and threads
  // drive its solver; every other field must keep its default (UserError naming it).
  std::string platform;               // "" = the two-device hardware
  std::optional<int64_t> imas;        // platform: crossbars of its crossbar engine (1..4096)
  bool reprogram = false;             // platform: enable every engine's reprogramming block
  std::string objective = "latency";  // platform: "latency" | "energy" (total, static included)
  std::string solver = "exact";  // "exact" (proves optimality) | "milp" (the paper's MILP, CBC)
  double time_limit = 600.0;     // seconds, wall clock, per solve (> 0)
  int64_t node_limit = 0;        // exact: deterministic limit on search nodes (>= 0; 0 = none)
  double gap = 0.0;              // MILP: stop at this relative gap, [0, 1]
  int threads = 1;               // MILP: CBC threads (1 is deterministic), 1..256
  int64_t replicas = 1;          // beyond the paper: up to R weight copies per operator, 1..64
  std::string transfers = "per-edge";  // "per-edge" (the paper) | "per-tensor"
  // "parallel" (the paper) | "serial"; unset: the hardware's (seed 000's: parallel) or, with a
  // platform, each link's own.
  std::optional<std::string> bus_model;
  double energy_weight = 0.0;  // s/J: minimise latency + W x energy; 0 = latency (>= 0)
  std::string replay;          // a partition file to replay instead of solving
  // The latency-energy front (partition_front): "supported" (weighted sums: the hull's
  // vertices) | "full" (every non-dominated point, partition/energy_front.h)
  std::string front = "supported";
  // How host "this" is measured (api::profile); its progress callback reports the runs.
  ProfileRequest host_measurement;
  // Accuracy (issue 13): a sensitivity file (`hetcim sensitivity`) measured on accuracy.chip makes
  // the accuracy drop a second budget (max_accuracy_drop, a fraction: 0.01 = 1 point; -1 =
  // none) and every returned plan is re-evaluated on the chip (the file's images and seeds;
  // accuracy.dataset, when set, must be the file's).
  std::string sensitivity;
  double max_accuracy_drop = -1.0;
  AccuracySetup accuracy;
  bool evaluate_plans = true;
  // With a budget and evaluate_plans: verify the returned plan end to end and tighten until the
  // upper end of its measured drop's interval is within the budget (PartitionResult::tightening):
  // after a plan fails, the cost budget becomes min(used - 1, floor(used x budget / upper end))
  // ppm and the problem is solved again; a failing plan whose summed cost is 0 instead keeps off
  // the chip, from then on, its operator with the largest logit error (the file's output_error).
  // At most max_tightening solves (1..1000); the result says whether the last plan fits.
  bool verify = true;
  int max_tightening = 50;
  // Held-out evaluation (issue 13): with eval_samples > 0 and a synthetic sensitivity file, the
  // returned plan is measured once more, after it was chosen and verified, on eval_samples inputs
  // of the file's generator with seed eval_seed (PartitionResult::heldout): inputs none of which
  // equals one of the file's (UserError otherwise, naming eval_seed), so neither the
  // sensitivities nor the verification saw them. A data set's held-out check is `hetcim execute`
  // on the test split. 0..2^24 samples.
  int64_t eval_samples = 0;
  uint64_t eval_seed = 2;

  // UserError naming the field.
  void validate() const;
};

// How a request builds its problems (replicas, transfers, bus_model): the fields PartitionRequest
// and DseRequest share, described once (PartitionRequest's bus_model is unset by default, so that
// a platform keeps its links' own).
template <typename R>
FieldTable<R> problem_build_fields() {
  return {
      field("replicas", &R::replicas,
            "Beyond the paper: allow up to R copies of an operator's weights on spare crossbars "
            "(R copies run ceil(N_mvm/R) MVMs)")
          .range(1, 64),
      field("transfers", &R::transfers,
            "per-edge (the paper) or per-tensor (once per tensor and direction)")
          .one_of({"per-edge", "per-tensor"}),
      field("bus_model", &R::bus_model,
            "parallel (the paper: transfers overlap) or serial (the shared bus carries one "
            "transfer at a time); with --platform, every link (by default the platform's own)")
          .one_of({"parallel", "serial"}),
  };
}

// The fields of partition_fields() a request with a platform takes (api/platform.h): platform,
// imas, reprogram, objective, the seed-000 overrides crossbars, t_mvm, host, replicas, bus_model,
// and the solver's solver, time_limit, node_limit, gap, threads.
[[nodiscard]] const FieldTable<PartitionRequest>& platform_fields();
// The fields of partition_fields() the two-device calls (the fronts, the MILP text) take: all but
// platform, imas, reprogram and objective.
[[nodiscard]] const FieldTable<PartitionRequest>& two_device_fields();

// The problem as built for a request, before any solve: what the MILP export and every solve use.
struct PartitionProblem {
  std::string model;     // the model's spec
  std::string hardware;  // preset name or file; host "this": "this machine as host + the CIM ..."
  cost::Hardware resolved;       // the hardware after the overrides
  std::string host_source;       // "modelled: ..." | "measured: ..."
  partition::Problem problem;    // as built: reports use it
  partition::Problem objective;  // what the solvers minimise (energy folded in when weighted)
  double energy_weight = 0.0;
  double scale = 1.0;  // objective bound -> latency + weight x energy bound
  // The library's provenance with "seeds" set when host "this" was measured (how: describe()).
  Provenance provenance;
  std::optional<AccuracyModel> accuracy;  // with a sensitivity file: its costs are in `problem`
};

struct PartitionResult {
  Status status;
  Provenance provenance;
  results::PartitionRun run;  // what the reports print: model, hardware, solver, bound, nodes...
  partition::Problem problem;
  partition::Schedule schedule;
  double latency_s = 0.0;                          // the schedule's makespan
  std::optional<accuracy::PlanAccuracy> accuracy;  // re-evaluated on the chip
  std::string accuracy_set;                        // the images it was evaluated on
  // With a budget and verify: every solve of the tightening loop; the last is the plan returned.
  std::optional<accuracy::Tightening> tightening;
  // With eval_samples: the returned plan on the held-out inputs, and their description.
  std::optional<accuracy::PlanAccuracy> heldout;
  std::string heldout_set;
};

// The latency x energy x accuracy-drop front (partition/accuracy_front.h), each point
// re-evaluated on the chip when the request says so.
struct Front3dResult {
  Status status;
  Provenance provenance;
  std::string title;
  partition::Problem problem;
  partition::Front3d front;
  std::vector<accuracy::PlanAccuracy> accuracy;  // per point (empty: not evaluated)
  std::string accuracy_set;
};

struct FrontResult {
  Status status;
  Provenance provenance;
  std::string title;
  partition::Problem problem;
  partition::FrontResult front;
};

// The two-device path (this header's calls): UserError naming `platform` when the request has one
// (api/platform.h maps a network on a platform).
[[nodiscard]] PartitionProblem build_partition_problem(const Model& model,
                                                       const PartitionRequest& request);
// Solves (or replays) the problem as the request says.
[[nodiscard]] PartitionResult partition(const PartitionProblem& problem,
                                        const PartitionRequest& request);
[[nodiscard]] PartitionResult partition(const Model& model, const PartitionRequest& request = {});
// The latency-energy Pareto front (exact solver over every weight); UserError with a MILP solver,
// a replay or an energy weight.
[[nodiscard]] FrontResult partition_front(const PartitionProblem& problem,
                                          const PartitionRequest& request);
// UserError without a sensitivity file, with the MILP solver, a replay or an energy weight.
[[nodiscard]] Front3dResult partition_front_3d(const PartitionProblem& problem,
                                               const PartitionRequest& request);
// The paper's MILP of the problem (its objective) as the text of an MPS or LP file (its header
// states the time unit); the caller writes it (the CLI through its OutputSet).
[[nodiscard]] std::string partition_milp_text(const PartitionProblem& problem,
                                              partition::MilpFileFormat format);

}  // namespace hetcim::api
