#include "exec/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "exec/engine.h"
#include "exec/inputs.h"
#include "onnxio/weight_fill.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

using graph::DType;

bool needs_calibration(const graph::Graph& g) {
  for (const graph::Node& n : g.nodes)
    if (n.attr_string("precision", "") == "int8") return true;
  for (const auto& [name, init] : g.initializers)
    if (!init.has_values() && init.info.shape && graph::element_count(*init.info.shape) > 0)
      return true;
  return false;
}

}  // namespace

std::string_view calibration_method_name(CalibrationMethod m) {
  return m == CalibrationMethod::MinMax ? "min/max" : "percentile";
}

Ranges calibrate(const graph::Graph& fp32, const CalibrationOptions& o) {
  const bool user_data = !o.data.empty();
  if (!user_data && o.samples < 1)
    throw user_error("calibration samples must be >= 1, got ", o.samples);
  const bool percentile = o.method == CalibrationMethod::Percentile;
  if (percentile && !(o.percentile > 50.0 && o.percentile <= 100.0))
    throw user_error("calibration percentile must be in (50, 100], got ", o.percentile);
  const int samples = user_data ? static_cast<int>(o.data.size()) : o.samples;
  EngineOptions keep;
  keep.keep_intermediates = true;  // every tensor's range is read
  Engine e(fp32, keep);
  std::vector<std::string> tensors(fp32.inputs.begin(), fp32.inputs.end());
  for (const graph::Node& n : fp32.nodes)
    for (const std::string& t : n.outputs)
      if (!t.empty()) tensors.push_back(t);
  Ranges r;
  std::map<std::string, std::pair<double, double>> sums;  // percentile: sums of per-sample bounds
  for (int s = 0; s < samples; ++s) {
    if (user_data) {
      e.set_inputs(o.data[static_cast<size_t>(s)]);
    } else {
      e.set_inputs(random_inputs(fp32, o.seed + static_cast<uint64_t>(s)));
    }
    e.execute();
    for (const std::string& t : tensors) {
      const graph::TensorInfo* ti = fp32.info(t);
      if (!ti || ti->dtype != DType::Float32) continue;
      const Tensor v = e.read(t);
      const float* p = v.data<float>();
      const int64_t count = v.numel();  // once: not inlined into the loop's condition
      if (percentile && count > 0) {
        std::vector<float> sorted(p, p + count);
        const auto n = static_cast<double>(sorted.size() - 1);
        auto at = [&](double q) {
          const auto k = static_cast<size_t>(std::llround(q / 100.0 * n));
          std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k),
                           sorted.end());
          return static_cast<double>(sorted[k]);
        };
        auto& sum = sums[t];
        sum.first += at(100.0 - o.percentile);
        sum.second += at(o.percentile);
        continue;
      }
      float lo = std::numeric_limits<float>::infinity(), hi = -lo;
      for (int64_t i = 0; i < count; ++i) {
        lo = std::min(lo, p[i]);
        hi = std::max(hi, p[i]);
      }
      auto [it, fresh] = r.try_emplace(t, TensorRange{lo, hi});
      if (!fresh) {
        it->second.lo = std::min(it->second.lo, lo);
        it->second.hi = std::max(it->second.hi, hi);
      }
    }
  }
  for (const auto& [t, sum] : sums) {
    r[t] = TensorRange{static_cast<float>(sum.first / samples),
                       static_cast<float>(sum.second / samples)};
  }
  return r;
}

graph::Graph prepare(graph::Graph g, const PrepareOptions& o) {
  (void)onnxio::materialize_weights(g, o.weight_seed);
  passes::PipelineOptions po;
  po.precision = passes::Precision::Fp32;
  if (o.precision == passes::Precision::Fp32) return passes::lower(std::move(g), po);
  graph::Graph fp32 = passes::lower(g, po);
  po.precision = passes::Precision::Int8;
  graph::Graph int8 = passes::lower(std::move(g), po);
  if (!needs_calibration(int8)) return int8;
  return apply_calibration(int8, calibrate(fp32, o.calibration));
}

}  // namespace hetcim::exec
