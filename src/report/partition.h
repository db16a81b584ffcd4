// Reports of one partitioning run (results/partition_run.h): a text summary, a JSON document with
// the assignment and the schedule, and a Gantt chart (SVG) of the host, the accelerator and the
// bus.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "partition/energy_front.h"
#include "partition/milp.h"
#include "partition/problem.h"
#include "partition/schedule.h"
#include "partition/summary.h"
#include "report/figure_style.h"
#include "results/partition_run.h"
#include "util/provenance.h"

namespace hetcim::report {

[[nodiscard]] std::string partition_text(const results::PartitionRun& r,
                                         const partition::Problem& p, const partition::Schedule& s);
[[nodiscard]] nlohmann::json partition_json(const results::PartitionRun& r,
                                            const partition::Problem& p,
                                            const partition::Schedule& s);
// The latency-energy front (partition/energy_front.h): a table, JSON, and an SVG plot.
// `provenance` carries the facts (host source, solver...) the caller sets.
[[nodiscard]] std::string front_text(const partition::Problem& p, const partition::FrontResult& f,
                                     const Provenance& provenance);
[[nodiscard]] nlohmann::json front_json(const partition::Problem& p,
                                        const partition::FrontResult& f,
                                        const Provenance& provenance);
[[nodiscard]] std::string front_svg(const std::string& title, const partition::Problem& p,
                                    const partition::FrontResult& f, const Provenance& provenance,
                                    const FigureOptions& fig_options = {});

[[nodiscard]] std::string gantt_svg(const results::PartitionRun& r, const partition::Problem& p,
                                    const partition::Schedule& s);

}  // namespace hetcim::report
