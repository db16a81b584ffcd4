// Renderings of the cluster analyses as strings (the CLI writes them): aligned text tables, CSV
// with a header row, and JSON. Pure functions; no I/O.
#pragma once

#include <string>
#include <vector>

#include "cluster/bottleneck_mapping.h"
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

}  // namespace hetcim::cluster
