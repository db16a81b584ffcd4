#include "results/partition_run.h"

namespace hetcim::results {

Provenance partition_provenance(const PartitionRun& r) {
  Provenance p = r.provenance;
  p.set("host source", r.host_source);
  if (r.status == partition::SolveStatus::Replayed) {
    p.set("solver", r.solver + " (no optimality claim)");
  } else {
    p.set("solver", r.solver == "exact" ? "exact (hetcim)" : "the paper's MILP on CBC");
    p.set("status",
          std::string(partition::solve_status_name(r.status)) +
              (r.status == partition::SolveStatus::Optimal ? " (proven)" : " (not proven)"));
    if (!r.incumbent.empty()) p.set("incumbent", r.incumbent);
  }
  p.set("cache", "none (solved in this run)");
  if (!p.find("seeds")) p.set("seeds", "none (deterministic)");
  return p;
}

}  // namespace hetcim::results
