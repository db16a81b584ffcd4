// Renderings of the cluster analyses as strings (the CLI writes them): aligned text tables, CSV
// with a header row, and JSON. Pure functions; no I/O.
#pragma once

#include <string>
#include <vector>

#include "cluster/bottleneck_mapping.h"
#include "cluster/calibration.h"
#include "cluster/roofline.h"

namespace hetcim::cluster {

[[nodiscard]] std::string config_text(const ClusterConfig& c);

[[nodiscard]] std::string roofline_text(const ClusterConfig& c,
                                        const std::vector<RooflinePoint>& points);
[[nodiscard]] std::string roofline_csv(const std::vector<RooflinePoint>& points);
[[nodiscard]] std::string roofline_json(const ClusterConfig& c,
                                        const std::vector<RooflinePoint>& points);

[[nodiscard]] std::string bottleneck_text(const ClusterConfig& c, const BottleneckStudy& s);
[[nodiscard]] std::string bottleneck_csv(
    const BottleneckStudy& s);  // one row per mapping and layer
[[nodiscard]] std::string bottleneck_json(const ClusterConfig& c, const BottleneckStudy& s);

// The Fig. 9 calibration (calibration.h), labelled CALIBRATION in the first line and in the JSON's
// "kind": the fit, the speedups before and after beside the paper's, and Fig. 7 before and after.
[[nodiscard]] std::string calibration_text(const ClusterConfig& c, const Fig9Calibration& cal);
[[nodiscard]] std::string calibration_json(const ClusterConfig& c, const Fig9Calibration& cal);

}  // namespace hetcim::cluster
