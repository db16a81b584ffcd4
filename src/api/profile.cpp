#include "api/profile.h"

#include <map>

#include "api/common.h"
#include "api/options.h"
#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/inputs.h"
#include "exec/profile.h"
#include "util/error.h"
#include "workload/workload.h"

namespace hetcim::api {

const FieldTable<ProfileRequest>& profile_fields() {
  using R = ProfileRequest;
  static const FieldTable<R> table = {
      field("precision", &R::precision, "fp32, or int8 (calibrated static quantization)")
          .one_of({"int8", "fp32"}),
      field("threads", &R::threads, "CPU threads").range(1, 1024),
      field("warmup", &R::warmup, "Warm-up runs").range(0, 100000),
      field("runs", &R::runs, "Timed runs").range(1, 100000),
      field("weight_seed", &R::weight_seed, "Seed for weights the model does not carry")
          .deprecated_alias("--seed"),
      field("input_seed", &R::input_seed, "Seed for the random input"),
      field("calibration_seed", &R::calibration_seed, "Seed for int8 calibration inputs"),
      field("calibration_samples", &R::calibration_samples, "Random inputs for int8 calibration")
          .range(1, 1000),
  };
  return table;
}

void ProfileRequest::validate() const {
  check_fields(*this, profile_fields());
}

std::string describe(const ProfileRequest& a) {
  return a.precision + ", " + std::to_string(a.threads) + " thread" + (a.threads == 1 ? "" : "s") +
         ", " + std::to_string(a.warmup) + " warm-up + " + std::to_string(a.runs) +
         " timed runs on oneDNN, weight seed " + std::to_string(a.weight_seed) + ", input seed " +
         std::to_string(a.input_seed) + ", calibration seed " + std::to_string(a.calibration_seed) +
         " (" + std::to_string(a.calibration_samples) + " samples)";
}

namespace {

ProfileResult profile_unnamed(const Model& model, const ProfileRequest& a) {
  a.validate();
  exec::PrepareOptions po;
  po.precision = parse_precision(a.precision);
  po.weight_seed = a.weight_seed;
  po.calibration.seed = a.calibration_seed;
  po.calibration.samples = a.calibration_samples;
  const graph::Graph g = exec::prepare(model.graph, po);
  exec::EngineOptions engine_options;
  engine_options.threads = a.threads;
  // Each operator timed on its own kernel (unfused); the fused plan as a whole alongside.
  engine_options.fuse = false;
  exec::Engine engine(g, engine_options);
  engine_options.fuse = true;
  exec::Engine fused(g, engine_options);
  const exec::ProfileResult r = exec::profile(
      engine, exec::random_inputs(g, a.input_seed), {a.warmup, a.runs},
      [&](size_t done, size_t total) {
        if (a.progress) a.progress(done, total);
      },
      &fused);
  const workload::Workload w = workload::analyze(g);
  std::map<std::string, int64_t> macs;
  for (const auto& op : w.ops) macs[op.name] = op.macs;
  ProfileResult out;
  out.status.origin = Origin::Measured;
  out.provenance = library_provenance();
  cost::HostProfile& p = out.profile;
  p.model = model.spec;
  p.precision = a.precision;
  p.batch = model.batch;
  p.threads = r.threads;
  p.warmup = r.warmup;
  p.runs = r.runs;
  p.machine = exec::machine_description();
  p.library = exec::onednn_description();
  p.tool = version_string();  // "hetcim 0.1.0 (commit ...)"
  p.date = out.provenance.date_utc;
  p.command = out.provenance.command_line;
  p.seeds = "weight " + std::to_string(a.weight_seed) + ", input " + std::to_string(a.input_seed) +
            ", calibration " + std::to_string(a.calibration_seed) + " (" +
            std::to_string(a.calibration_samples) + " samples)";
  p.model_median_s = r.model.median;
  p.model_min_s = r.model.min;
  p.model_p90_s = r.model.p90;
  p.op_median_sum_s = r.op_median_sum;
  out.fused_model_median_s = r.fused_model.median;
  out.fused_model_min_s = r.fused_model.min;
  out.fused_operators = r.fused_away;
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
  out.quality = cost::profile_quality(p);
  return out;
}

}  // namespace

ProfileResult profile(const Model& model, const ProfileRequest& a) {
  return with_model_named(model.spec, [&] { return profile_unnamed(model, a); });
}

}  // namespace hetcim::api
