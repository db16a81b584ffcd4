#include "api/cluster.h"

#include "api/common.h"
#include "util/error.h"
#include "util/numbers.h"

namespace hetcim::api {
namespace {

cluster::ImaExecution parse_execution(const std::string& s, const char* field) {
  if (s == "sequential") return cluster::ImaExecution::Sequential;
  if (s == "pipelined") return cluster::ImaExecution::Pipelined;
  throw user_error(field, ": expected sequential or pipelined, got '", s, "'");
}

// Where every number of a cluster study comes from: seed 001's cluster as an analytical model.
Provenance cluster_provenance(const ClusterRequest& s) {
  Provenance p = library_provenance();
  p.set("source",
        "modelled by " +
            (s.config.empty() ? "the " + s.preset + " preset" : "the cluster file " + s.config) +
            " (analytical model of seed 001's cluster, cluster/README.md; nothing measured)");
  p.set("solver", "none (closed-form cycle counts)");
  p.set("cache", "none");
  p.set("seeds", "none (deterministic)");
  return p;
}

void check_shape(const zoo::BottleneckShape& shape) {
  const int64_t big = int64_t{1} << 20;
  check_range("height", shape.height, int64_t{1}, big);
  check_range("width", shape.width, int64_t{1}, big);
  check_range("c_in", shape.c_in, int64_t{1}, big);
  check_range("expansion", shape.expansion, int64_t{1}, big);
  check_range("c_out", shape.c_out, int64_t{1}, big);
  if (shape.stride != 1 && shape.stride != 2)
    throw user_error("stride: expected 1 or 2, got ", shape.stride);
}

}  // namespace

void ClusterRequest::validate() const {
  if (bus_width_bits && (*bus_width_bits < 8 || *bus_width_bits % 8 != 0 ||
                         *bus_width_bits > cluster::kMaxBusWidthBits))
    throw user_error("bus_width: expected a multiple of 8 from 8 to ", cluster::kMaxBusWidthBits,
                     " bits such as 128, got ", *bus_width_bits);
  if (!execution.empty()) (void)parse_execution(execution, "execution");
  if (tcdm_contention) check_range("tcdm_contention", *tcdm_contention, 0.0, 1.0);
}

int64_t parse_bus_width(const std::string& text, const std::string& field) {
  std::string w = text;
  if (w.ends_with("bit")) w.resize(w.size() - 3);
  const std::optional<int64_t> bits = parse_integer(w);
  if (!bits || *bits < 8 || *bits % 8 != 0 || *bits > cluster::kMaxBusWidthBits)
    throw user_error(field, ": expected a multiple of 8 from 8bit to ", cluster::kMaxBusWidthBits,
                     "bit such as 128bit, got '", text, "'");
  return *bits;
}

ConstantsResult cluster_constants(const ClusterRequest& request) {
  ConstantsResult r;
  r.config = load_cluster(request);
  r.provenance = library_provenance();
  r.provenance.set("source", "the constants of " +
                                 (request.config.empty() ? "the " + request.preset + " preset"
                                                         : request.config) +
                                 " and where the preset's values come from (cluster/constants.h)");
  return r;
}

cluster::ClusterConfig load_cluster(const ClusterRequest& r) {
  r.validate();
  cluster::ClusterConfig c =
      r.config.empty() ? cluster::cluster_preset(r.preset) : cluster::load_cluster(r.config);
  if (r.bus_width_bits) c.ima.bus_width_bits = *r.bus_width_bits;
  if (!r.execution.empty()) c.ima.execution = parse_execution(r.execution, "execution");
  if (r.tcdm_contention) c.tcdm_contention = *r.tcdm_contention;
  return c;
}

void RooflineRequest::validate() const {
  cluster.validate();
  for (const int64_t w : bus_widths)
    if (w < 8 || w % 8 != 0 || w > cluster::kMaxBusWidthBits)
      throw user_error("bus_widths: expected multiples of 8 from 8 to ", cluster::kMaxBusWidthBits,
                       " bits, got ", w);
  for (const double u : utilizations) check_range("utilizations", u, 1e-12, 1.0);
  for (const std::string& e : executions) (void)parse_execution(e, "executions");
  check_range("vectors", vectors, int64_t{1}, int64_t{1} << 24);
}

void BottleneckRequest::validate() const {
  cluster.validate();
  check_shape(shape);
  if (mappings.empty()) throw user_error("mappings: expected at least one mapping");
  for (const std::string& m : mappings) (void)cluster::parse_mapping(m);
}

void CalibrateRequest::validate() const {
  cluster.validate();
  check_shape(shape);
  if (fit != "fig9")
    throw user_error("fit: expected fig9 (the only figure fitted), got '", fit, "'");
  const cluster::Fig9FitOptions& o = options;
  check_range("overhead_min", o.overhead_min, int64_t{0}, int64_t{1'000'000});
  check_range("overhead_max", o.overhead_max, o.overhead_min, int64_t{1'000'000});
  check_range("pointwise_min", o.pointwise_min, 1e-6, 1e6);
  check_range("pointwise_max", o.pointwise_max, o.pointwise_min, 1e6);
  check_range("depthwise_min", o.depthwise_min, 1e-6, 1e6);
  check_range("depthwise_max", o.depthwise_max, o.depthwise_min, 1e6);
  check_range("rate_points", o.rate_points, int64_t{2}, int64_t{100'000});
  const double points = static_cast<double>(o.overhead_max - o.overhead_min + 1) *
                        static_cast<double>(o.rate_points) * static_cast<double>(o.rate_points);
  if (points > 2e9)
    throw user_error("rate_points: the grid has ", points,
                     " points (overheads x rate_points^2); at most 2e9");
}

RooflineResult cluster_roofline(const RooflineRequest& request) {
  request.validate();
  RooflineResult r;
  r.config = load_cluster(request.cluster);
  cluster::RooflineOptions o;
  o.bus_widths_bits = request.bus_widths;
  o.utilizations = request.utilizations;
  o.executions.clear();
  for (const std::string& e : request.executions)
    o.executions.push_back(parse_execution(e, "executions"));
  o.vectors = request.vectors;
  r.points = cluster::roofline(r.config, o);
  r.provenance = cluster_provenance(request.cluster);
  return r;
}

BottleneckResult cluster_bottleneck(const BottleneckRequest& request) {
  request.validate();
  BottleneckResult r;
  r.config = load_cluster(request.cluster);
  std::vector<cluster::Mapping> mappings;
  for (const std::string& m : request.mappings) mappings.push_back(cluster::parse_mapping(m));
  r.study = cluster::bottleneck_study(r.config, request.shape, mappings);
  r.provenance = cluster_provenance(request.cluster);
  return r;
}

CalibrateResult cluster_calibrate(const CalibrateRequest& request) {
  request.validate();
  CalibrateResult r;
  r.config = load_cluster(request.cluster);
  r.calibration = cluster::calibrate_fig9(r.config, request.shape, request.options);
  r.provenance = cluster_provenance(request.cluster);
  r.provenance.set("calibration",
                   "CALIBRATION, not a reproduction: ima.job_overhead_cycles and the cores' "
                   "point-wise / depth-wise rates fitted to seed 001's Fig. 9 speedups (typed from "
                   "the paper) by an exhaustive grid search");
  r.provenance.set("solver", "exhaustive grid search (deterministic)");
  return r;
}

}  // namespace hetcim::api
