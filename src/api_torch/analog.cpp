#include "api_torch/analog.h"

#include "api/common.h"
#include "data/dataset.h"
#include "dist/dist.h"
#include "formats/select_json.h"
#include "onnxio/import.h"
#include "select/controller.h"
#include "util/error.h"
#include "xbar/chips_yaml.h"

namespace hetcim::api {

void AnalogEvalRequest::validate() const {
  if (model.empty()) throw user_error("model: required (an ONNX file of race_cnn with weights)");
  if (chip.empty() && !digital) throw user_error("analog eval: give --chip and/or --digital");
  check_fields(*this, analog_eval_fields());
  data::check_dataset_name("dataset", dataset);
}

AnalogEvalResult analog_eval(const AnalogEvalRequest& request,
                             const std::function<void(size_t, size_t)>& progress) {
  request.validate();
  const graph::Graph model = onnxio::import_onnx(request.model);
  const data::ImageDataset d =
      data::load_dataset(request.dataset, data::parse_split(request.split), request.data_dir);
  std::vector<std::optional<xbar::ChipProfile>> chips;
  if (request.digital) chips.emplace_back(std::nullopt);
  if (!request.chip.empty())
    for (auto& c : chip_profiles(request.chip, request.mode)) chips.emplace_back(std::move(c));
  if (request.one_run && chips.size() != 1)
    throw user_error("--logits: writes one chip's logits; give one FILE:PROFILE and no --digital");
  AnalogEvalResult r;
  r.status.origin = Origin::Measured;
  r.classes = d.classes;
  r.provenance = library_provenance();
  r.provenance.set("source", "accuracy measured on " + request.dataset + " (" + request.split +
                                 " split) with the classifier layers on simulated chips "
                                 "(hetcim's crossbar simulator, profiles from " +
                                 (request.chip.empty() ? std::string("-")
                                                       : xbar::resolve_chip_spec(request.chip)) +
                                 "); the convolutions and --digital run digitally (libtorch)");
  r.provenance.set("seeds", "chip " + std::to_string(request.chip_seed) + ", read noise " +
                                std::to_string(request.read_seed));
  for (const auto& chip : chips) {
    train::EvalOptions o = request.eval;
    o.chip = chip;
    o.chip_seed = request.chip_seed;
    o.read_seed = request.read_seed;
    o.analog_layers = analog_layers(request.layers);
    r.runs.push_back({chip, train::evaluate_race_cnn(model, d, o)});
    if (progress) progress(r.runs.size(), chips.size());
  }
  return r;
}

std::vector<results::AnalogEvalRow> analog_eval_rows(const AnalogEvalResult& result) {
  std::vector<results::AnalogEvalRow> rows;
  for (const AnalogEvalRun& run : result.runs)
    rows.push_back({run.chip ? run.chip->name : "digital",
                    run.chip ? std::string(xbar::sim_mode_name(run.chip->mode)) : "-",
                    run.result.accuracy, run.result.count, run.result.seconds});
  return rows;
}

void AnalogSelectRequest::validate() const {
  if (model.empty()) throw user_error("model: required (an ONNX file of race_cnn with weights)");
  if (chips.empty()) throw user_error("chips: required (a chip profiles file)");
  check_fields(*this, analog_select_fields());
  data::check_dataset_name("dataset", dataset);
  (void)select::parse_confidence_score(score);  // also the names with '-' for '_'
  if (!cache_dir.empty() && !replay_dir.empty())
    throw user_error("--cache and --logits: give one (--logits replays without simulating)");
}

namespace {

// Which images: the model's training record decides the default protocol, and explicit values
// must agree with it (the certificate is void if its rows were trained on). Sets the split sizes
// the request leaves to the protocol.
DataRequest resolve_data(const AnalogSelectRequest& q, select::RaceOptions& o) {
  DataRequest dr;
  dr.dataset = q.dataset;
  dr.data_dir = q.data_dir;
  dr.split = q.split;
  dr.limit = q.limit;
  if (q.holdout) dr.holdout = *q.holdout;
  if (q.holdout_seed) dr.holdout_seed = *q.holdout_seed;
  const std::optional<TrainRecord> rec = read_train_record(q.model);
  const bool explicit_holdout = q.holdout.has_value();
  dr.calibration =
      q.calibration.value_or((explicit_holdout || (rec && rec->holdout > 0)) ? "holdout" : "test");
  if (dr.calibration == "holdout") {
    if (rec) {
      if (rec->holdout == 0)
        throw user_error(rec->file,
                         ": field 'holdout.images' is 0 (the model was trained on "
                         "every training image); --calibration holdout would certify on "
                         "training data. Use --calibration test");
      if (explicit_holdout && dr.holdout != rec->holdout)
        throw user_error("--holdout ", dr.holdout, " disagrees with ", rec->file,
                         " (field 'holdout.images' = ", rec->holdout, ")");
      if (q.holdout_seed && dr.holdout_seed != rec->holdout_seed)
        throw user_error("--holdout-seed ", dr.holdout_seed, " disagrees with ", rec->file,
                         " (field 'holdout.seed' = ", rec->holdout_seed, ")");
      if (rec->dataset != dr.dataset)
        throw user_error("--dataset ", dr.dataset, " disagrees with ", rec->file,
                         " (field 'dataset' = '", rec->dataset, "')");
      dr.holdout = rec->holdout;
      dr.holdout_seed = rec->holdout_seed;
    } else if (!explicit_holdout) {
      throw user_error("--calibration holdout: ", q.model,
                       " has no training record (.train.json); give --holdout N and "
                       "--holdout-seed S as used in training");
    }
    o.splits.hardware = q.hardware_rows.value_or(3000);
    o.splits.certificate = q.certificate_rows.value_or(5000);
    dr.test_images = q.test_rows.value_or(-1);
    o.splits.test = 0;
  } else {
    o.splits.hardware = q.hardware_rows.value_or(2000);
    o.splits.certificate = q.certificate_rows.value_or(4000);
    o.splits.test = q.test_rows.value_or(2000);
  }
  return dr;
}

}  // namespace

AnalogSelectResult analog_select(const AnalogSelectRequest& q) {
  q.validate();
  select::RaceOptions o;
  o.risk = q.risk;
  o.certificate_delta = q.certificate_delta;
  o.design_risk = q.design_risk;
  o.design_delta = q.design_delta;
  o.score = select::parse_confidence_score(q.score);
  o.bias_correction = q.bias_correction;
  o.splits.policy = q.policy_rows;
  o.split_seed = q.split_seed;
  o.energy = q.energy;
  const std::vector<PoolUnit> units = parse_pool(q.chips, q.pool, q.mode, q.chip_seed, q.read_seed);
  const ProtocolData d = load_protocol_data(resolve_data(q, o));
  select::validate(o, d.calibration.count, d.test.has_value());  // before any simulation

  PoolRequest pr;
  pr.model = q.model;
  pr.units = units;
  pr.eval = q.eval;
  pr.cache_dir = q.replay_dir.empty() ? q.cache_dir : q.replay_dir;
  pr.replay_only = !q.replay_dir.empty();
  pr.on_simulation = q.on_simulation;
  pr.on_cache_warning = q.on_cache_warning;
  pr.over_ranks = q.over_ranks;
  PoolResult pool = pool_logits(pr, d);
  AnalogSelectResult r;
  if (q.over_ranks && !dist::is_root()) {
    r.root = false;
    return r;
  }
  r.race = select::run_race(pool.logits, o);
  r.status.origin = pr.replay_only ? Origin::Cached : Origin::Measured;
  r.units = units;
  r.options = o;
  r.classes = d.calibration.classes;
  r.data = d.description;
  r.cache_dir = pr.cache_dir;
  r.simulated = pool.simulated;
  r.cached = pool.cached;
  Provenance& prov = r.provenance;
  prov = library_provenance();
  prov.set(
      "source",
      "logits " +
          std::string(pr.replay_only ? "replayed from the cache " + pr.cache_dir : "measured") +
          " with the classifier on simulated chips (hetcim's crossbar simulator, " + q.chips +
          "); data: " + d.description + "; energies modelled (eq. 9, --*-energy options)");
  prov.set("solver", "exact Clopper-Pearson bounds (Boost.Math)");
  prov.set("status", r.race.certificate.certified ? "certified" : "not certified");
  std::string seeds = "split " + std::to_string(o.split_seed) + "; chip/read seeds per unit:";
  for (const PoolUnit& u : units)
    seeds += " " + u.name + " " + std::to_string(u.chip_seed) + "/" + std::to_string(u.read_seed);
  prov.set("seeds", seeds);
  prov.set("cache", pr.cache_dir.empty()
                        ? "none"
                        : pr.cache_dir + ": " + std::to_string(pool.cached) + " cached, " +
                              std::to_string(pool.simulated) + " simulated now");
  return r;
}

nlohmann::json policy_json(const AnalogSelectRequest& q, const AnalogSelectResult& r) {
  const select::RaceResult& race = r.race;
  const select::FrozenPolicy fp = select::freeze(race, r.options, r.classes);
  nlohmann::json unit = nullptr;
  if (race.selected) {
    const PoolUnit& u = r.units[*race.selected];
    unit = {{"name", u.name},
            {"profile", u.profile.name},
            {"fingerprint", profile_fingerprint(u.profile)},
            {"chip_seed", u.chip_seed},
            {"read_seed", u.read_seed},
            {"test_read_seed", test_read_seed(u.read_seed)}};
  }
  const select::Certificate& c = race.certificate;
  return {{"kind", "hetcim frozen policy (RACE-AIMC)"},
          {"model", {{"file", q.model}, {"hash", file_hash(q.model)}}},
          {"chips", {{"file", q.chips}, {"unit", unit}}},
          {"eval", {{"batch_size", q.eval.batch_size}, {"threads", q.eval.threads}}},
          {"classes", fp.classes},
          {"score", std::string(select::confidence_score_name(fp.score))},
          {"bias", fp.bias},
          {"threshold", formats::finite_or_null(fp.threshold)},
          {"energy_uJ",
           {{"activation", fp.activation_energy * 1e6}, {"fallback", fp.fallback_energy * 1e6}}},
          {"certificate",
           {{"certified", c.certified},
            {"risk_target", c.risk_target},
            {"delta", c.delta},
            {"upper_bound", c.upper_bound},
            {"split", formats::selective_stats_json(c.stats)}}},
          {"data", r.data}};
}

void TrainRequest::validate() const {
  if (out.empty()) throw user_error("out: required (the ONNX file to write)");
  check_fields(*this, train_fields());
  data::check_dataset_name("dataset", dataset);
}

TrainResult train_race_cnn(const TrainRequest& q) {
  q.validate();
  TrainJob job;
  job.dataset = q.dataset;
  job.data_dir = q.data_dir;
  job.out = q.out;
  job.preset = q.preset;
  job.holdout = q.holdout;
  job.holdout_seed = q.holdout_seed;
  train::TrainOptions& o = job.options;
  o = q.options;
  o.epochs = static_cast<int>(q.epochs.value_or(q.preset == "fast" ? 2 : 30));
  o.lr = q.lr.value_or(2e-3);
  o.crop_padding = q.crop_padding;
  if (!q.hardware_aware.empty()) {
    job.hardware_aware = xbar::resolve_chip_spec(q.hardware_aware);
    o.hardware_aware = xbar::load_chip_profile(q.hardware_aware);
    o.hardware_aware_time = q.hardware_aware_time;
  } else if (q.hardware_aware_time != 0.0) {
    throw user_error("hardware_aware_time: applies with --hardware-aware only");
  }
  TrainResult r;
  r.status.origin = Origin::Measured;
  r.outcome = train_to_files(job);
  r.eval_set = q.holdout > 0 ? "held-out accuracy" : "test accuracy";
  r.provenance = library_provenance();
  r.provenance.set("source", "race_cnn trained with libtorch on " + q.dataset +
                                 "; accuracies measured on this machine");
  r.provenance.set("seeds", "training " + std::to_string(o.seed) + ", holdout " +
                                std::to_string(q.holdout_seed));
  if (!job.hardware_aware.empty())
    r.provenance.set("hardware-aware", job.hardware_aware +
                                           " injected in the classifier's forward pass (noise "
                                           "streams from the training seed)");
  return r;
}

}  // namespace hetcim::api
