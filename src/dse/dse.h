// Design-space exploration of seed 000: every (model, host, crossbar budget, MVM latency) point
// partitioned by the exact solver (and optionally by the paper's MILP for comparison), in
// parallel over cores and, under MPI, over ranks (dist/dist.h: rank 0 reads the cache, hands the
// other points out costliest first and gathers the results), with a result cache so that
// re-running a grid only solves new points. Output order is the grid order whatever the thread
// and rank count, and every field but the measured solve times is the same.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cost/hardware.h"
#include "cost/host_costs.h"
#include "partition/build.h"
#include "workload/workload.h"

namespace hetcim::dse {

struct DseModel {
  std::string name;
  workload::Workload workload;
};

struct DseHost {
  std::string name;  // "arm", "x86", "this", ...
  // Overrides the source of `costs` in the points when set (e.g. "measured on <CPU> in this run").
  std::string source;
  cost::Hardware hardware;             // bus, B_cim, crossbar geometry (budget and T_mvm are swept)
  std::vector<cost::HostCosts> costs;  // one per DseModel, same order
};

struct DseOptions {
  std::vector<int64_t> crossbars = {25, 50, 100, 200};
  std::vector<double> t_mvm = {50e-9, 100e-9, 500e-9, 1000e-9};
  partition::BuildOptions build;
  bool run_milp = false;            // also solve the paper's MILP on every point
  double milp_time_limit = 60.0;    // seconds, wall clock
  double exact_time_limit = 600.0;  // seconds, wall clock
  int threads = 1;                  // worker threads over grid points (>= 1), in every rank
  std::string cache_dir;            // "" = no cache
  // Split the grid over the MPI ranks of this run (dist/dist.h) when it was started by an MPI
  // launcher: every rank must then call run_dse. Off: this process solves the whole grid alone
  // and never touches MPI (`hetcim reproduce`).
  bool over_ranks = false;
  // Told why a cache entry was not used (damaged or implausible content, another point's key, or
  // a plan that does not replay to the entry's numbers and status: dse/entry_check.h; it is solved
  // again and overwritten), e.g. to print a warning; called on rank 0 before any point is solved.
  std::function<void(const std::string&)> on_cache_warning;
};

struct DsePoint {
  std::string model, host;
  std::string host_source;  // cost::HostCosts::source: "modelled by ..." | "measured on ..."
  int64_t crossbars = 0;
  double t_mvm = 0;
  // problem
  int64_t operators = 0, edges = 0, parallel_pairs = 0, offloadable = 0;
  int64_t milp_binaries = 0, milp_constraints = 0;  // Table I counting
  // exact solver; status "optimal" whenever the bound meets the objective (also when the time
  // limit struck afterwards)
  std::string status;
  double latency = 0, cpu_only = 0, speedup = 0, bound = 0, seconds = 0;
  int host_ops = 0, cim_ops = 0;
  int64_t crossbars_used = 0;
  double host_busy = 0, cim_busy = 0;
  int64_t nodes = 0;
  // energy per inference (partition/energy.h) of the latency-optimal partition and of the host
  // alone
  double energy = 0, cpu_only_energy = 0;
  // MILP (when run)
  bool milp_run = false;
  std::string milp_status;
  double milp_objective = 0, milp_bound = 0, milp_gap = 0, milp_seconds = 0;
  // Read from the cache instead of solved in this run. A cached point was solved by the same code
  // (the cache key holds the commit) with the same solver options; `seconds` and `status` are
  // those of that earlier solve. Its plan was replayed on this point's problem and every number
  // but `seconds`, `nodes` and the MILP's re-derived from it (dse/entry_check.h).
  bool cached = false;
  // The MPI rank that solved it (dist/dist.h; 0 in a run of one process and for cached points).
  // Not written to any output: the files of an N-rank run equal those of one process.
  int rank = 0;
};

// The key of a point's cache entry: FNV-1a over the problem's content, the code version (git
// commit of this build) and every solver option of `options`.
[[nodiscard]] std::string dse_cache_key(const partition::Problem& p, const DseOptions& options);

// Called on rank 0 only, one call at a time.
using Progress = std::function<void(size_t done, size_t total)>;

// With `over_ranks` in an MPI run (dist/dist.h), every rank calls run_dse with the same models,
// hosts and options; rank 0 returns the points (and alone reads and writes the cache), the other
// ranks an empty vector. A point that fails on any rank ends every rank with dist::SharedFailure.

[[nodiscard]] std::vector<DsePoint> run_dse(const std::vector<DseModel>& models,
                                            const std::vector<DseHost>& hosts,
                                            const DseOptions& options,
                                            const Progress& progress = {});

}  // namespace hetcim::dse
