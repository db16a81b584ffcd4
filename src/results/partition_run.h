// What one two-device partitioning run was (api::PartitionResult::run): the model, hardware,
// host source, solver, status, bound and size of the solve, and its provenance. Plain data that
// report/partition.h renders as text, JSON and a Gantt chart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "partition/milp.h"
#include "partition/status.h"
#include "util/provenance.h"

namespace hetcim::results {

struct PartitionRun {
  std::string model;
  std::string hardware;     // preset or file
  std::string host_source;  // "modelled by ..." | "measured on ..." (cost::HostCosts::source)
  double t_mvm = 0;
  std::string solver;  // "exact" | "milp"
  partition::SolveStatus status = partition::SolveStatus::NoSolution;
  double bound = 0, seconds = 0;
  int64_t nodes = 0;
  std::optional<partition::MilpStats> milp;  // the MILP's size (always reported, also for exact)
  double energy_weight = 0;  // s/J: the objective was latency + energy_weight * total energy
  // Command line, version, date, machine; the reports add the host source, solver and status.
  Provenance provenance;
  // Where a limited run's plan comes from (partition::ExactResult::incumbent); "" otherwise.
  std::string incumbent;
};

// The run's provenance with its facts: host source, solver and status, cache ("none"), seeds.
[[nodiscard]] Provenance partition_provenance(const PartitionRun& r);

}  // namespace hetcim::results
