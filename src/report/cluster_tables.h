// Renderings of seed 001's cluster analyses (src/cluster) as strings: aligned text tables, CSV
// with a header row, and JSON. Pure functions; no I/O (the CLI and Python write or parse them;
// report/cluster.h draws the figures and adds the provenance).
#pragma once

#include <string>
#include <vector>

#include "cluster/bottleneck_mapping.h"
#include "cluster/calibration.h"
#include "cluster/roofline.h"

namespace hetcim::report {

[[nodiscard]] std::string config_text(const cluster::ClusterConfig& c);

[[nodiscard]] std::string roofline_text(const cluster::ClusterConfig& c,
                                        const std::vector<cluster::RooflinePoint>& points);
[[nodiscard]] std::string roofline_csv(const std::vector<cluster::RooflinePoint>& points);
[[nodiscard]] std::string roofline_json(const cluster::ClusterConfig& c,
                                        const std::vector<cluster::RooflinePoint>& points);

[[nodiscard]] std::string bottleneck_text(const cluster::ClusterConfig& c,
                                          const cluster::BottleneckStudy& s);
[[nodiscard]] std::string bottleneck_csv(
    const cluster::BottleneckStudy& s);  // one row per mapping and layer
[[nodiscard]] std::string bottleneck_json(const cluster::ClusterConfig& c,
                                          const cluster::BottleneckStudy& s);

// The Fig. 9 calibration (calibration.h), labelled CALIBRATION in the first line and in the JSON's
// "kind": the fit, the speedups before and after beside the paper's, and Fig. 7 before and after.
[[nodiscard]] std::string calibration_text(const cluster::ClusterConfig& c,
                                           const cluster::Fig9Calibration& cal);
[[nodiscard]] std::string calibration_json(const cluster::ClusterConfig& c,
                                           const cluster::Fig9Calibration& cal);

// The constants of the model (cluster/constants.h) as aligned text: field, value, source,
// reference ("given" when not the preset's value).
[[nodiscard]] std::string constant_table_text(const cluster::ClusterConfig& config);

}  // namespace hetcim::report
