#include "cluster/calibration.h"

#include <cmath>
#include <limits>

#include "util/error.h"

namespace hetcim::cluster {
namespace {

// A mapping's cycles split into what the fitted rates change and what they do not.
struct Split {
  int64_t fixed = 0;               // IMA, DW engine, element-wise and marshaling layers
  std::vector<int64_t> pointwise;  // MACs of point-wise layers on the cores
  int64_t depthwise = 0;           // MACs of the depth-wise layer on the cores (0: none)
};

Split split(const MappingResult& r) {
  Split s;
  for (const LayerCost& l : r.layers) {
    if (l.engine == "cores" && (l.layer == "pw_expand" || l.layer == "pw_project"))
      s.pointwise.push_back(l.macs);
    else if (l.engine == "cores" && l.layer == "dw")
      s.depthwise = l.macs;
    else
      s.fixed += l.cycles;
  }
  return s;
}

std::vector<double> geometric(double lo, double hi, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] =
        i == n - 1 ? hi
                   : lo * std::pow(hi / lo, static_cast<double>(i) / static_cast<double>(n - 1));
  return v;
}

void check_range(const char* field, double lo, double hi) {
  if (!(lo > 0 && hi >= lo && std::isfinite(hi)))
    throw user_error("fig9 fit: ", field, " range must satisfy 0 < min <= max, got [", lo, ", ", hi,
                     "]");
}

}  // namespace

std::vector<FitTarget> fig9_speedup_targets() {
  return {{"ima-cjob8", 1.23}, {"ima-cjob16", 2.27}, {"hybrid", 4.6}, {"ima+dw", 11.5}};
}

double fit_residual(const std::vector<double>& speedups, const std::vector<FitTarget>& targets) {
  HETCIM_ASSERT(speedups.size() == targets.size() && !targets.empty());
  double sum = 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    const double e = std::log(speedups[i] / targets[i].speedup);
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(targets.size()));
}

Fig9Fit fit_fig9(const ClusterConfig& config, const zoo::BottleneckShape& shape,
                 const Fig9FitOptions& o) {
  if (o.targets.empty()) throw user_error("fig9 fit: no target speedups");
  std::vector<Mapping> mappings = {parse_mapping("cores")};
  for (const FitTarget& t : o.targets) {
    const Mapping m = parse_mapping(t.mapping);
    if (m.kind == Mapping::Kind::Cores)
      throw user_error("fig9 fit: the cores are the reference of the speedups, not a target");
    if (!(t.speedup > 0 && std::isfinite(t.speedup)))
      throw user_error("fig9 fit: target speedup of ", t.mapping, " must be positive, got ",
                       t.speedup);
    mappings.push_back(m);
  }
  if (o.overhead_min < 0 || o.overhead_max < o.overhead_min || o.overhead_max > 1'000'000)
    throw user_error("fig9 fit: overhead range must satisfy 0 <= min <= max <= 1000000, got [",
                     o.overhead_min, ", ", o.overhead_max, "]");
  check_range("point-wise rate", o.pointwise_min, o.pointwise_max);
  check_range("depth-wise rate", o.depthwise_min, o.depthwise_max);
  if (o.rate_points < 2 || o.rate_points > 100'000)
    throw user_error("fig9 fit: rate_points must be 2..100000, got ", o.rate_points);
  const double points = static_cast<double>(o.overhead_max - o.overhead_min + 1) *
                        static_cast<double>(o.rate_points) * static_cast<double>(o.rate_points);
  if (points > 2e9)
    throw user_error("fig9 fit: ", points, " grid points; at most 2e9 (narrow the ranges)");

  Fig9Fit fit;
  {
    const BottleneckStudy st = bottleneck_study(config, shape, mappings);
    for (size_t t = 0; t < o.targets.size(); ++t)
      fit.start_speedups.push_back(st.results[t + 1].speedup);
    fit.start_residual = fit_residual(fit.start_speedups, o.targets);
  }
  const std::vector<double> pw = geometric(o.pointwise_min, o.pointwise_max, o.rate_points);
  const std::vector<double> dw = geometric(o.depthwise_min, o.depthwise_max, o.rate_points);
  const size_t n = o.targets.size();
  std::vector<double> log_target(n);
  for (size_t t = 0; t < n; ++t) log_target[t] = std::log(o.targets[t].speedup);

  double best = std::numeric_limits<double>::infinity();
  size_t best_i = 0, best_j = 0;
  int64_t best_o = o.overhead_min;
  std::vector<int64_t> pw_cycles(n + 1), cycles(n + 1);
  for (int64_t ov = o.overhead_min; ov <= o.overhead_max; ++ov) {
    ClusterConfig c = config;
    c.ima.job_overhead_cycles = ov;
    const BottleneckStudy st = bottleneck_study(c, shape, mappings);
    std::vector<Split> parts;
    for (const MappingResult& r : st.results) parts.push_back(split(r));
    for (size_t i = 0; i < pw.size(); ++i) {
      for (size_t m = 0; m <= n; ++m) {
        pw_cycles[m] = parts[m].fixed;
        for (const int64_t work : parts[m].pointwise) pw_cycles[m] += cores_cycles(work, pw[i]);
      }
      for (size_t j = 0; j < dw.size(); ++j) {
        for (size_t m = 0; m <= n; ++m)
          cycles[m] =
              pw_cycles[m] + (parts[m].depthwise > 0 ? cores_cycles(parts[m].depthwise, dw[j]) : 0);
        double sum = 0;
        const double log_base = std::log(static_cast<double>(cycles[0]));
        for (size_t t = 0; t < n; ++t) {
          const double e = log_base - std::log(static_cast<double>(cycles[t + 1])) - log_target[t];
          sum += e * e;
        }
        if (sum < best) {
          best = sum;
          best_o = ov;
          best_i = i;
          best_j = j;
        }
        ++fit.evaluated;
      }
    }
  }
  fit.job_overhead_cycles = best_o;
  fit.pointwise_mac_per_cycle = pw[best_i];
  fit.depthwise_mac_per_cycle = dw[best_j];
  fit.fitted = config;
  fit.fitted.ima.job_overhead_cycles = best_o;
  fit.fitted.cores.pointwise_mac_per_cycle = pw[best_i];
  fit.fitted.cores.depthwise_mac_per_cycle = dw[best_j];
  const BottleneckStudy st = bottleneck_study(fit.fitted, shape, mappings);
  for (size_t t = 0; t < n; ++t) fit.speedups.push_back(st.results[t + 1].speedup);
  fit.residual = fit_residual(fit.speedups, o.targets);
  if (o.overhead_max > o.overhead_min && (best_o == o.overhead_min || best_o == o.overhead_max))
    fit.at_bound.push_back("ima.job_overhead_cycles");
  if (best_i == 0 || best_i + 1 == pw.size())
    fit.at_bound.push_back("cores.pointwise_mac_per_cycle");
  if (best_j == 0 || best_j + 1 == dw.size())
    fit.at_bound.push_back("cores.depthwise_mac_per_cycle");
  return fit;
}

Fig9Calibration calibrate_fig9(const ClusterConfig& config, const zoo::BottleneckShape& shape,
                               const Fig9FitOptions& options) {
  Fig9Calibration c;
  c.options = options;
  c.fit = fit_fig9(config, shape, options);
  c.before = bottleneck_study(config, shape, paper_mappings());
  c.after = bottleneck_study(c.fit.fitted, shape, paper_mappings());
  c.roofline_before = roofline(config, {});
  c.roofline_after = roofline(c.fit.fitted, {});
  const int64_t hidden = shape.c_in * shape.expansion;
  c.dw = dw_engine_cost(config.dw, {shape.height, shape.width, hidden, 3, shape.stride, 1});
  c.dw_over_software_before = c.dw.macs_per_cycle() / config.cores.depthwise_mac_per_cycle;
  c.dw_over_software_after = c.dw.macs_per_cycle() / c.fit.fitted.cores.depthwise_mac_per_cycle;
  return c;
}

}  // namespace hetcim::cluster
