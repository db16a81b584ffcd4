// Figures of seed 001's cluster studies (cluster/roofline.h, cluster/bottleneck_mapping.h), drawn
// by gnuplot as SVG and PNG: the Fig. 7 roofline per operating point and execution model, the
// Fig. 9 gains of each Bottleneck mapping over the first one, and the Fig. 10 cycle breakdown.
#pragma once

#include <string>
#include <vector>

#include "cluster/bottleneck_mapping.h"
#include "cluster/roofline.h"
#include "report/gnuplot.h"

namespace hetcim::report {

// `footer` is printed at the foot of every figure (where the numbers come from: "modelled by the
// seed001 preset ...", version); may be empty.

// Stages <dir>/cluster_roofline.{svg,png} in `outputs`; creates `dir`.
std::vector<Figure> write_roofline_figures(OutputSet& outputs,
                                           const std::vector<cluster::RooflinePoint>& points,
                                           const std::string& dir, const std::string& footer = "");

// Stages <dir>/cluster_gains.{svg,png} and <dir>/cluster_breakdown.{svg,png} in `outputs`;
// creates `dir`.
std::vector<Figure> write_bottleneck_figures(OutputSet& outputs,
                                             const cluster::BottleneckStudy& study,
                                             const std::string& dir,
                                             const std::string& footer = "");

}  // namespace hetcim::report
