#include "api/cluster.h"

#include <algorithm>

#include "api/common.h"
#include "api/options.h"
#include "util/error.h"
#include "util/paper_names.h"

namespace hetcim::api {
namespace {

cluster::ImaExecution parse_execution(const std::string& s, const char* field) {
  if (s == "sequential") return cluster::ImaExecution::Sequential;
  if (s == "pipelined") return cluster::ImaExecution::Pipelined;
  throw user_error(field, ": expected sequential or pipelined, got '", s, "'");
}

// Where every number of a cluster study comes from: Garofalo et al.'s cluster as an analytical
// model.
Provenance cluster_provenance(const ClusterRequest& s) {
  Provenance p = library_provenance();
  p.set("source",
        "modelled by " +
            (s.config.empty() ? "the " + preset_shown(s.preset) + " preset"
                              : "the cluster file " + s.config) +
            " (analytical model of Garofalo et al. 2022's cluster, cluster/README.md; nothing "
            "measured)");
  p.set("solver", "none (closed-form cycle counts)");
  p.set("cache", "none");
  p.set("seeds", "none (deterministic)");
  return p;
}

// The fields of `t` named in `names`, in the table's order.
FieldTable<ClusterRequest> only(const FieldTable<ClusterRequest>& t,
                                const std::vector<std::string>& names) {
  FieldTable<ClusterRequest> out;
  for (const Field<ClusterRequest>& f : t)
    if (std::find(names.begin(), names.end(), f.name) != names.end()) out.push_back(f);
  return out;
}

const FieldTable<zoo::BottleneckShape>& shape_fields() {
  using S = zoo::BottleneckShape;
  const double big = 1 << 20;
  static const FieldTable<S> table = {
      field("height", &S::height, "Input feature map height").range(1, big),
      field("width", &S::width, "Input feature map width").range(1, big),
      field("c_in", &S::c_in, "Input channels").range(1, big),
      field("expansion", &S::expansion, "Expansion factor t (hidden = t * c_in)").range(1, big),
      field("c_out", &S::c_out, "Output channels").range(1, big),
      field("stride", &S::stride, "Depth-wise stride").range(1, 2),
  };
  return table;
}

}  // namespace

const FieldTable<ClusterRequest>& cluster_fields() {
  using C = ClusterRequest;
  static const FieldTable<C> table = {
      // Its first name, seed001, still works and is not listed (util/paper_names.h).
      field("preset", &C::preset,
            "Built-in cluster (without a config file): Garofalo et al. 2022's")
          .one_of({"pulp-pcm-cluster"}, {"seed001"}),
      field("config", &C::config,
            "Cluster description (YAML, see src/cluster/cluster_config.h; '': the preset)"),
      field("bus_width", &C::bus_width_bits,
            "Override the IMA data-interface width: bits, a multiple of 8 (the CLI also takes "
            "128bit)")
          .range(8, cluster::kMaxBusWidthBits),
      field("execution", &C::execution, "Override the IMA execution model ('': the description's)")
          .one_of({"", "sequential", "pipelined"}),
      field("tcdm_contention", &C::tcdm_contention,
            "TCDM bank conflicts: probability that each core accesses the TCDM in a cycle while "
            "an accelerator streams (unset: the description's, 0 in the preset; cluster/area.h)")
          .range(0, 1),
  };
  return table;
}

const FieldTable<ClusterRequest>& cluster_constants_fields() {
  static const FieldTable<ClusterRequest> table = only(cluster_fields(), {"preset", "config"});
  return table;
}

const FieldTable<RooflineRequest>& roofline_fields() {
  using R = RooflineRequest;
  static const FieldTable<R> table = concat<R>(
      nested(&R::cluster, only(cluster_fields(), {"preset", "config", "tcdm_contention"})),
      {field("vectors", &R::vectors, "Jobs per synthetic layer").range(1, 1 << 24)});
  return table;
}

const FieldTable<BottleneckRequest>& bottleneck_fields() {
  using R = BottleneckRequest;
  static const FieldTable<R> table =
      concat(nested(&R::cluster, cluster_fields()), nested(&R::shape, shape_fields()));
  return table;
}

const FieldTable<CalibrateRequest>& calibrate_fields() {
  using R = CalibrateRequest;
  using O = cluster::Fig9FitOptions;
  static const FieldTable<O> options = {
      field("max_overhead", &O::overhead_max,
            "Largest per-job overhead searched (cycles; every integer from 0)")
          .range(0, 1'000'000),
      field("rate_points", &O::rate_points, "Grid points per cores' rate axis (geometric)")
          .range(2, 100'000),
  };
  static const FieldTable<R> table =
      concat(concat<R>(nested(&R::cluster, cluster_constants_fields()),
                       {field("fit", &R::fit, "The figure to fit").one_of({"fig9"})}),
             nested(&R::options, options));
  return table;
}

void ClusterRequest::validate() const {
  check_fields(*this, cluster_fields());
  if (bus_width_bits && *bus_width_bits % 8 != 0)
    throw user_error("bus_width: expected a multiple of 8 bits such as 128, got ", *bus_width_bits);
}

ConstantsResult cluster_constants(const ClusterRequest& request) {
  ConstantsResult r;
  r.config = load_cluster(request);
  r.provenance = library_provenance();
  r.provenance.set("source",
                   "the constants of " +
                       (request.config.empty() ? "the " + preset_shown(request.preset) + " preset"
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
  check_fields(*this, roofline_fields());
  for (const int64_t w : bus_widths)
    if (w < 8 || w % 8 != 0 || w > cluster::kMaxBusWidthBits)
      throw user_error("bus_widths: expected multiples of 8 from 8 to ", cluster::kMaxBusWidthBits,
                       " bits, got ", w);
  for (const double u : utilizations) check_range("utilizations", u, 1e-12, 1.0);
  for (const std::string& e : executions) (void)parse_execution(e, "executions");
}

void BottleneckRequest::validate() const {
  cluster.validate();
  check_fields(*this, bottleneck_fields());
  if (mappings.empty()) throw user_error("mappings: expected at least one mapping");
  for (const std::string& m : mappings) (void)cluster::parse_mapping(m);
}

void CalibrateRequest::validate() const {
  cluster.validate();
  check_fields(*this, calibrate_fields());
  check_fields(shape, shape_fields());  // not among the calibration's options: the paper's block
  // The search's other bounds are not options (C++ callers may set them).
  const cluster::Fig9FitOptions& o = options;
  check_range("overhead_min", o.overhead_min, int64_t{0}, int64_t{1'000'000});
  if (o.overhead_max < o.overhead_min)
    throw user_error("max_overhead: ", o.overhead_max, " is below overhead_min ", o.overhead_min);
  check_range("pointwise_min", o.pointwise_min, 1e-6, 1e6);
  check_range("pointwise_max", o.pointwise_max, o.pointwise_min, 1e6);
  check_range("depthwise_min", o.depthwise_min, 1e-6, 1e6);
  check_range("depthwise_max", o.depthwise_max, o.depthwise_min, 1e6);
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
                   "point-wise / depth-wise rates fitted to Garofalo et al. 2022's Fig. 9 speedups "
                   "(typed from the paper) by an exhaustive grid search");
  r.provenance.set("solver", "exhaustive grid search (deterministic)");
  return r;
}

}  // namespace hetcim::api
