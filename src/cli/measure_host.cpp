#include "cli/measure_host.h"

#include <map>

#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/inputs.h"
#include "exec/profile.h"
#include "workload/workload.h"

namespace hetcim::cli {

cost::HostProfile measure_host_profile(const ModelSource& model, const MeasureOptions& a) {
  exec::PrepareOptions po;
  po.precision = a.precision == "int8" ? passes::Precision::Int8 : passes::Precision::Fp32;
  po.weight_seed = a.weight_seed;
  po.calibration.seed = a.calibration_seed;
  po.calibration.samples = a.calibration_samples;
  const graph::Graph g =
      with_model_named(model, [&] { return exec::prepare(load_model(model), po); });
  exec::Engine engine = with_model_named(model, [&] { return exec::Engine(g, {a.threads}); });
  const exec::ProfileResult r =
      exec::profile(engine, exec::random_inputs(g, a.input_seed), {a.warmup, a.runs});
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
  p.tool = "hetcim 0.1.0";
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
