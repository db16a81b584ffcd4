// cluster: seed 001's heterogeneous PULP cluster as an analytical model: the Fig. 7 roofline of
// the IMA and the Fig. 8-10 study of a MobileNetV2 Bottleneck under several mappings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "cluster/bottleneck_mapping.h"
#include "cluster/calibration.h"
#include "cluster/cluster_config.h"
#include "cluster/roofline.h"
#include "util/provenance.h"
#include "zoo/bottleneck.h"

namespace hetcim::api {

struct ClusterRequest {
  std::string preset = "pulp-pcm-cluster";  // cluster::cluster_preset_names(), when config is empty
  std::string config;                       // a YAML cluster description (cluster/cluster_config.h)
  std::optional<int64_t> bus_width_bits;    // override of the IMA data interface: a multiple of 8
  std::string execution;  // override of the IMA execution: "" | "sequential" | "pipelined"
  std::optional<double> tcdm_contention;  // override of tcdm.contention: in [0, 1]

  // UserError naming the field: the table's ranges and choices (api/options.h: cluster_fields),
  // and a bus width that is not a whole number of bytes.
  void validate() const;
};

// The description with the overrides applied.
[[nodiscard]] cluster::ClusterConfig load_cluster(const ClusterRequest& request);

struct ConstantsResult {
  Status status;  // origin: computed (the description as loaded)
  Provenance provenance;
  cluster::ClusterConfig config;
};

// Every constant of the cluster model with where it comes from (report/cluster_tables.h:
// constant_table_text).
[[nodiscard]] ConstantsResult cluster_constants(const ClusterRequest& request = {});

struct RooflineRequest {
  ClusterRequest cluster;
  std::vector<int64_t> bus_widths = {32, 64, 128, 256, 512};                // bits, multiples of 8
  std::vector<double> utilizations = {0.05, 0.10, 0.25, 0.50, 0.75, 1.00};  // in (0, 1]
  std::vector<std::string> executions = {"sequential", "pipelined"};
  int64_t vectors = 256;  // jobs per synthetic layer, >= 1

  void validate() const;
};

struct RooflineResult {
  Status status;  // origin: computed (an analytical model)
  Provenance provenance;
  cluster::ClusterConfig config;
  std::vector<cluster::RooflinePoint> points;
};

struct BottleneckRequest {
  ClusterRequest cluster;
  zoo::BottleneckShape shape;
  // cores, ima-cjobN, hybrid, ima+dw; the first is the reference of the ratios.
  std::vector<std::string> mappings = {"cores", "ima-cjob8", "ima-cjob16", "hybrid", "ima+dw"};

  void validate() const;
};

struct BottleneckResult {
  Status status;  // origin: computed (an analytical model)
  Provenance provenance;
  cluster::ClusterConfig config;
  cluster::BottleneckStudy study;
};

// A CALIBRATION of the model to a figure of seed 001 (cluster/calibration.h): `fit` names the
// figure ("fig9": the per-job overhead and the cores' point-wise / depth-wise rates fitted to the
// four Bottleneck speedups); the result shows what the fitted constants do to Fig. 7.
struct CalibrateRequest {
  ClusterRequest cluster;
  zoo::BottleneckShape shape;
  std::string fit = "fig9";
  cluster::Fig9FitOptions options;  // ranges and grid of the search; targets: the paper's

  void validate() const;
};

struct CalibrateResult {
  Status status;  // origin: computed (an exhaustive search over an analytical model)
  Provenance provenance;
  cluster::ClusterConfig config;  // as given
  cluster::Fig9Calibration calibration;
};

[[nodiscard]] RooflineResult cluster_roofline(const RooflineRequest& request = {});
[[nodiscard]] BottleneckResult cluster_bottleneck(const BottleneckRequest& request = {});
[[nodiscard]] CalibrateResult cluster_calibrate(const CalibrateRequest& request = {});

}  // namespace hetcim::api
