#include "cli/measure_host.h"

#include <map>

#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/inputs.h"
#include "exec/profile.h"
#include "util/progress.h"
#include "util/provenance.h"
#include "workload/workload.h"

namespace hetcim::cli {

std::string describe(const MeasureOptions& a) {
  return a.precision + ", " + std::to_string(a.threads) + " thread" + (a.threads == 1 ? "" : "s") +
         ", " + std::to_string(a.warmup) + " warm-up + " + std::to_string(a.runs) +
         " timed runs on oneDNN, weight seed " + std::to_string(a.weight_seed) + ", input seed " +
         std::to_string(a.input_seed) + ", calibration seed " + std::to_string(a.calibration_seed) +
         " (" + std::to_string(a.calibration_samples) + " samples)";
}

cost::HostProfile measure_host_profile(const ModelSource& model, const MeasureOptions& a) {
  exec::PrepareOptions po;
  po.precision = a.precision == "int8" ? passes::Precision::Int8 : passes::Precision::Fp32;
  po.weight_seed = a.weight_seed;
  po.calibration.seed = a.calibration_seed;
  po.calibration.samples = a.calibration_samples;
  const graph::Graph g =
      with_model_named(model, [&] { return exec::prepare(load_model(model), po); });
  exec::Engine engine = with_model_named(model, [&] { return exec::Engine(g, {a.threads}); });
  Progress progress("measuring " + model.spec + " on this CPU", "runs",
                    static_cast<size_t>(a.warmup + a.runs), a.progress);
  const exec::ProfileResult r =
      exec::profile(engine, exec::random_inputs(g, a.input_seed), {a.warmup, a.runs},
                    [&](size_t done, size_t) { progress.update(done); });
  progress.finish();
  const workload::Workload w = workload::analyze(g);
  std::map<std::string, int64_t> macs;
  for (const auto& op : w.ops) macs[op.name] = op.macs;
  cost::HostProfile p;
  p.model = model.spec;
  p.precision = a.precision;
  p.batch = model.batch;
  p.threads = r.threads;
  p.warmup = r.warmup;
  p.runs = r.runs;
  p.machine = exec::machine_description();
  p.library = exec::onednn_description();
  p.tool = version_string();
  p.model_median_s = r.model.median;
  p.model_min_s = r.model.min;
  p.model_p90_s = r.model.p90;
  p.op_median_sum_s = r.op_median_sum;
  for (const exec::OpProfile& op : r.ops) {
    cost::HostProfileOp o;
    o.name = op.op.name;
    o.op_type = op.op.op_type;
    o.impl = op.op.impl;
    o.median_s = op.time.median;
    o.min_s = op.time.min;
    o.p90_s = op.time.p90;
    o.macs = macs.count(o.name) ? macs[o.name] : 0;
    o.gmacs = o.macs > 0 && o.median_s > 0 ? static_cast<double>(o.macs) / o.median_s / 1e9 : 0.0;
    p.ops.push_back(o);
  }
  return p;
}

}  // namespace hetcim::cli
