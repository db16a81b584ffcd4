// dse: seed 000's design-space exploration. Every model on every host for every crossbar budget
// and MVM latency, partitioned to proven optimality by the exact solver (optionally also by the
// paper's MILP), in parallel, with a content-hashed result cache (dse/dse.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/profile.h"
#include "api/status.h"
#include "dse/dse.h"
#include "util/provenance.h"

namespace hetcim::api {

struct DseRequest {
  std::vector<std::string> models = {"resnet18", "resnet50", "mobilenetv2", "yolov5n"};
  std::vector<int64_t> crossbars = {25, 50, 100, 200};           // each >= 1
  std::vector<double> t_mvm = {50e-9, 100e-9, 500e-9, 1000e-9};  // seconds, each > 0
  // arm, x86, host model names, profile files (.csv / .json, "{model}" in the path for several
  // models), or "this" (measure this CPU now, model by model).
  std::vector<std::string> hosts = {"arm", "x86"};
  std::optional<double> bus;  // bytes/s for every host; default: seed 000's bus of each host
  // Seconds per exact solve (> 0): a point it stops keeps the best plan found and a bound
  // (status time-limit).
  double time_limit = 600.0;
  bool milp = false;                   // also solve the paper's MILP on every point
  double milp_time_limit = 60.0;       // seconds per MILP (> 0)
  int threads = 1;                     // grid points solved in parallel, 1..1024
  int64_t replicas = 1;                // 1..64
  std::string transfers = "per-edge";  // "per-edge" | "per-tensor"
  std::string bus_model = "parallel";  // "parallel" | "serial"
  std::string cache_dir;               // "" = no cache
  // How a "this" host is measured, model by model (api::profile); its progress callback reports
  // the runs of each measurement.
  ProfileRequest host_measurement;

  // UserError naming the field.
  void validate() const;
};

struct DseResult {
  Status status;  // origin: solved (some points may come from the cache: see `cached`)
  // Facts: host source (every host), solver (with time limits), status (results::dse_claim), cache
  // (directory, points read from it, the key), seeds.
  Provenance provenance;
  // Grid order. In a run started by an MPI launcher (`mpirun -np N`, `srun`) every rank calls
  // run_dse with the same request and the grid is split over the ranks (dse/dse.h, dist/dist.h):
  // rank 0 gets the points, the other ranks an empty result.
  std::vector<dse::DsePoint> points;
  size_t cached = 0;           // points read from the cache
  size_t optimal = 0;          // points proven optimal
  double solve_seconds = 0.0;  // in the exact solver, points solved in this run
  std::string claim;           // results::dse_claim: what the points prove
  std::string host_sources;    // "<host> = <source>; ..."
};

struct DseCallbacks {
  std::function<void(size_t total)> solving;          // every host is ready: the grid starts
  dse::Progress progress;                             // (done, total) over grid points
  std::function<void(const std::string&)> measuring;  // a "this" host is measuring this model
  // Why a cache entry was not used (damaged or implausible; it is solved again and overwritten);
  // called from worker threads, one call at a time.
  std::function<void(const std::string&)> cache_warning;
};

[[nodiscard]] DseResult run_dse(const DseRequest& request, const DseCallbacks& callbacks = {});

}  // namespace hetcim::api
