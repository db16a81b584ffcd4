// Figures of seed 001's cluster studies (cluster/roofline.h, cluster/bottleneck_mapping.h) in the
// figure style of report/figure_style.h (SVG, PDF, PNG): the Fig. 7 roofline per operating point
// and execution model with its memory and compute roofs, the Fig. 9 gains of each Bottleneck
// mapping over the first one, and the Fig. 10 cycle breakdown. Published values, when given, are
// drawn as markers beside ours.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/bottleneck_mapping.h"
#include "cluster/calibration.h"
#include "cluster/cluster_config.h"
#include "cluster/roofline.h"
#include "report/figure_style.h"
#include "report/gnuplot.h"
#include "util/provenance.h"

namespace hetcim::report {

// A published point of the roofline: in the panel of (frequency, execution) at intensity x.
struct RooflinePaperPoint {
  double frequency = 0;
  cluster::ImaExecution execution = cluster::ImaExecution::Pipelined;
  double intensity = 0;  // op/B
  double gops = 0;
  std::string name;  // legend entry
};

// Stages in `outputs` <dir>/<name>.{svg,pdf,png} (default name cluster_roofline); creates `dir`.
std::vector<Figure> write_roofline_figures(
    OutputSet& outputs, const std::vector<cluster::RooflinePoint>& points, const std::string& dir,
    const std::vector<RooflinePaperPoint>& paper = {}, const std::string& name = "cluster_roofline",
    const std::string& caption = "", const std::string& footnote = "",
    const FigureOptions& fig_options = {});

// Published Fig. 9 gains: mapping name -> {performance, energy efficiency, area efficiency}, NaN
// where the paper prints none.
using BottleneckPaperGains = std::map<std::string, std::vector<double>>;

// Stages in `outputs` <dir>/cluster_gains.{svg,pdf,png} and <dir>/cluster_breakdown.{...}; creates
// `dir`.
std::vector<Figure> write_bottleneck_figures(OutputSet& outputs,
                                             const cluster::BottleneckStudy& study,
                                             const std::string& dir,
                                             const BottleneckPaperGains& paper = {},
                                             const std::string& source_note = "",
                                             const FigureOptions& fig_options = {});

// The outputs of a cluster study with their provenance: text and CSV get "# key: value" header
// lines, JSON a "provenance" member.
[[nodiscard]] std::string cluster_text_with_provenance(const std::string& text,
                                                       const Provenance& p);
[[nodiscard]] std::string cluster_json_with_provenance(const std::string& json,
                                                       const Provenance& p);
// The in-figure footnote of a study: its source, version and commit.
[[nodiscard]] std::string cluster_figure_footer(const Provenance& p);

// `hetcim cluster calibrate --report DIR`: stages in `outputs` DIR/calibration.txt (`text`),
// DIR/calibration.json and the fitted Fig. 7, 9 and 10 (captions saying CALIBRATION, the paper's
// 958 GOPS and the `targets` speedups as markers); creates DIR.
std::vector<Figure> write_calibration_report(OutputSet& outputs, const std::string& dir,
                                             const cluster::ClusterConfig& config,
                                             const cluster::Fig9Calibration& cal,
                                             const std::vector<cluster::FitTarget>& targets,
                                             const std::string& text, const Provenance& p,
                                             const FigureOptions& fig_options = {});

}  // namespace hetcim::report
