// Reports of one partitioning run: a text summary, a JSON document with the assignment and the
// schedule, and a Gantt chart (SVG) of the host, the accelerator and the bus.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "partition/energy_front.h"
#include "partition/milp.h"
#include "partition/problem.h"
#include "partition/schedule.h"
#include "partition/status.h"
#include "partition/summary.h"
#include "util/provenance.h"

namespace hetcim::report {

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

[[nodiscard]] std::string partition_text(const PartitionRun& r, const partition::Problem& p,
                                         const partition::Schedule& s);
[[nodiscard]] nlohmann::json partition_json(const PartitionRun& r, const partition::Problem& p,
                                            const partition::Schedule& s);
// The latency-energy front (partition/energy_front.h): a table, JSON, and an SVG plot.
// `provenance` carries the facts (host source, solver...) the caller sets.
[[nodiscard]] std::string front_text(const partition::Problem& p, const partition::FrontResult& f,
                                     const Provenance& provenance);
[[nodiscard]] nlohmann::json front_json(const partition::Problem& p,
                                        const partition::FrontResult& f,
                                        const Provenance& provenance);
[[nodiscard]] std::string front_svg(const std::string& title, const partition::Problem& p,
                                    const partition::FrontResult& f, const Provenance& provenance);

[[nodiscard]] std::string gantt_svg(const PartitionRun& r, const partition::Problem& p,
                                    const partition::Schedule& s);

}  // namespace hetcim::report
