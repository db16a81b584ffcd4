#include "cost/host_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "util/error.h"

namespace hetcim::cost {
namespace {

using Point = std::array<double, 3>;  // ln(efficiency), ln(bandwidth), ln(overhead)

std::string describe_fit(const HostModel& start, double eff, double bw, double ovh) {
  char b[320];
  std::snprintf(b, sizeof b,
                "CALIBRATION of %s to published figures (not a measurement): efficiency %.4g of "
                "the peak (%.4g GMAC/s int8, %.4g GMAC/s fp32), %.4g GB/s sustained single-core "
                "bandwidth, %.4g us per operator; power as %s",
                start.name.c_str(), eff, start.peak_int8_macs * eff / 1e9,
                start.peak_fp32_macs * eff / 1e9, bw / 1e9, ovh * 1e6, start.name.c_str());
  return b;
}

}  // namespace

double log_ratio_objective(const std::vector<double>& predicted,
                           const std::vector<double>& published) {
  if (predicted.size() != published.size())
    throw user_error("host fit: ", predicted.size(), " predictions for ", published.size(),
                     " published values");
  double s = 0;
  for (size_t i = 0; i < predicted.size(); ++i) {
    if (!(std::isfinite(predicted[i]) && predicted[i] > 0 && std::isfinite(published[i]) &&
          published[i] > 0))
      throw user_error("host fit: target ", i + 1, ": predicted ", predicted[i], ", published ",
                       published[i], " (both must be positive and finite)");
    const double r = std::log(predicted[i] / published[i]);
    s += r * r;
  }
  return s;
}

HostModel with_fit_parameters(const HostModel& start, double efficiency, double bandwidth,
                              double overhead) {
  HostModel m = start;
  m.efficiency = std::min(efficiency, 1.0);
  m.memory_bandwidth = bandwidth;
  m.op_overhead = overhead;
  return m;
}

HostFitResult fit_host_model(const HostModel& start, std::vector<HostFitTarget> targets,
                             const HostFitPredict& predict, const HostFitOptions& o) {
  if (targets.empty()) throw user_error("host fit: no published values to fit to");
  const HostFitBounds& b = o.bounds;
  const Point lo = {std::log(b.efficiency_min), std::log(b.bandwidth_min),
                    std::log(b.overhead_min)};
  const Point hi = {std::log(b.efficiency_max), std::log(b.bandwidth_max),
                    std::log(b.overhead_max)};
  for (size_t k = 0; k < 3; ++k)
    if (!(lo[k] <= hi[k]))
      throw user_error("host fit: bound ", k + 1, " has its lower end above its upper end");
  const Point x0 = {std::log(start.efficiency), std::log(start.memory_bandwidth),
                    std::log(start.op_overhead)};
  for (size_t k = 0; k < 3; ++k)
    if (!(x0[k] >= lo[k] - 1e-12 && x0[k] <= hi[k] + 1e-12))
      throw user_error("host fit: the starting model ", start.name,
                       " lies outside the fit's bounds (parameter ", k + 1, ")");
  std::vector<double> published;
  for (const HostFitTarget& t : targets) published.push_back(t.published);

  auto clamp = [&](Point p) {
    for (size_t k = 0; k < 3; ++k) p[k] = std::clamp(p[k], lo[k], hi[k]);
    return p;
  };
  auto model_at = [&](const Point& p) {
    return with_fit_parameters(start, std::exp(p[0]), std::exp(p[1]), std::exp(p[2]));
  };
  int evaluations = 0;
  auto predict_at = [&](const Point& p) {
    ++evaluations;
    std::vector<double> v = predict(model_at(p));
    if (v.size() != targets.size())
      throw user_error("host fit: the predictor returned ", v.size(), " values for ",
                       targets.size(), " targets");
    return v;
  };
  auto f = [&](const Point& p) { return log_ratio_objective(predict_at(p), published); };

  const std::vector<double> before = predict_at(x0);
  HostFitResult r;
  r.start = start;
  r.objective_start = log_ratio_objective(before, published);

  // Nelder-Mead (reflection 1, expansion 2, contraction 1/2, shrink 1/2) over the box, each trial
  // point projected onto it; the first simplex steps by a factor 2 in each parameter, inward
  // where the start sits on an upper bound.
  std::array<Point, 4> s;
  std::array<double, 4> fs;
  s[0] = x0;
  fs[0] = r.objective_start;
  for (size_t k = 0; k < 3; ++k) {
    Point p = x0;
    p[k] += (p[k] + std::log(2.0) <= hi[k]) ? std::log(2.0) : -std::log(2.0);
    s[k + 1] = clamp(p);
    fs[k + 1] = f(s[k + 1]);
  }
  while (evaluations < o.max_evaluations) {
    std::array<size_t, 4> idx{0, 1, 2, 3};
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t c) { return fs[a] < fs[c]; });
    std::array<Point, 4> s2;
    std::array<double, 4> f2;
    for (size_t i = 0; i < 4; ++i) s2[i] = s[idx[i]], f2[i] = fs[idx[i]];
    s = s2, fs = f2;
    if (fs[3] - fs[0] <= 1e-12 * (1 + fs[0])) break;
    Point c{0, 0, 0};
    for (size_t i = 0; i < 3; ++i)
      for (size_t k = 0; k < 3; ++k) c[k] += s[i][k] / 3;
    auto along = [&](double t) {
      Point p;
      for (size_t k = 0; k < 3; ++k) p[k] = c[k] + t * (s[3][k] - c[k]);
      return clamp(p);
    };
    const Point xr = along(-1);
    const double fr = f(xr);
    if (fr < fs[0]) {
      const Point xe = along(-2);
      const double fe = f(xe);
      if (fe < fr)
        s[3] = xe, fs[3] = fe;
      else
        s[3] = xr, fs[3] = fr;
    } else if (fr < fs[2]) {
      s[3] = xr, fs[3] = fr;
    } else {
      const Point xc = fr < fs[3] ? along(-0.5) : along(0.5);
      const double fc = f(xc);
      if (fc < std::min(fr, fs[3])) {
        s[3] = xc, fs[3] = fc;
      } else {
        for (size_t i = 1; i < 4; ++i) {
          for (size_t k = 0; k < 3; ++k) s[i][k] = s[0][k] + 0.5 * (s[i][k] - s[0][k]);
          fs[i] = f(s[i]);
        }
      }
    }
  }
  const size_t best = static_cast<size_t>(std::min_element(fs.begin(), fs.end()) - fs.begin());
  const Point& xb = s[best];
  const std::vector<double> after = predict_at(xb);
  r.fitted = model_at(xb);
  r.fitted.name = start.name + "-calibrated";
  r.fitted.description =
      describe_fit(start, r.fitted.efficiency, r.fitted.memory_bandwidth, r.fitted.op_overhead);
  r.objective = log_ratio_objective(after, published);
  for (size_t i = 0; i < targets.size(); ++i) {
    targets[i].before = before[i];
    targets[i].after = after[i];
  }
  r.targets = std::move(targets);
  r.evaluations = evaluations;
  return r;
}

}  // namespace hetcim::cost
