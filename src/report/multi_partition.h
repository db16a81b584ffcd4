// Reports of a K-engine mapping (partition/multi_exact.h or multi_milp.h on a platform/): a
// per-operator table
// (engine, option, cycles, start, finish, energy), a JSON document, and a Gantt chart with one
// lane per engine and per serial link.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "partition/multi_exact.h"
#include "partition/multi_milp.h"
#include "platform/build.h"
#include "util/provenance.h"

namespace hetcim::report {

struct MultiPartitionRun {
  std::string model;
  std::string platform;
  const platform::PlatformProblem* problem = nullptr;
  const partition::MultiExactResult* solve = nullptr;  // the exact solver's result, or
  Provenance provenance;  // with the facts: platform, costs, solver, status, objective
  const partition::MultiMilpResult* milp = nullptr;  // set: the MILP's result (solve unused)
};

[[nodiscard]] std::string multi_partition_text(const MultiPartitionRun& r);
[[nodiscard]] nlohmann::json multi_partition_json(const MultiPartitionRun& r);
[[nodiscard]] std::string multi_gantt_svg(const MultiPartitionRun& r);

}  // namespace hetcim::report
