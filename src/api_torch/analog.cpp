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

const FieldTable<AnalogEvalRequest>& analog_eval_fields() {
  using R = AnalogEvalRequest;
  using E = train::EvalOptions;
  static const FieldTable<E> eval = {
      field("limit", &E::limit, "First N images only (0: all)").at_least(0),
      field("batch_size", &E::batch_size,
            "Images per analog read (reference mode shares noise per batch)")
          .range(1, 1 << 20),
      field("threads", &E::threads, "libtorch threads (0: libtorch's default)").range(0, 1024),
  };
  static const FieldTable<R> table = concat<R>(
      {
          field("dataset", &R::dataset, data::kDatasetHelp),
          field("data_dir", &R::data_dir, "Directory of the data set files").alias("--dataset-dir"),
          field("split", &R::split, "The split").one_of({"train", "test"}),
          field("chip", &R::chip,
                "FILE:PROFILE (one chip) or FILE (every profile of the file); '' = none"),
          field("digital", &R::digital, "Also report the clean digital accuracy"),
          field("mode", &R::mode, "Override the profiles' simulation mode ('': their own)")
              .one_of({"", "physical", "reference"}),
          field("layers", &R::layers, "'classifier' or a comma-separated list of Gemm nodes")
              .flag("--analog-layers"),
          field("chip_seed", &R::chip_seed, "Chip seed: the persistent programmed state")
              .alias("--seed"),
          field("read_seed", &R::read_seed, "Seed of the read noise"),
      },
      nested(&R::eval, eval));
  return table;
}

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

const FieldTable<AnalogSelectRequest>& analog_select_fields() {
  using R = AnalogSelectRequest;
  using E = train::EvalOptions;
  using M = select::EnergyModel;
  constexpr double kRows = 0x1p40;
  static const FieldTable<M> energy = {
      field("fallback_energy", &M::fallback, "Energy of the digital fallback per deferred query")
          .with_unit(Quantity::Energy)
          .at_least(0),
      field("communication_energy", &M::communication, "Communication cost C per activated chip")
          .with_unit(Quantity::Energy)
          .at_least(0),
      field("controller_energy", &M::controller, "Controller energy per activated chip")
          .with_unit(Quantity::Energy)
          .at_least(0),
      field("class_energy", &M::per_class, "Energy per fused class output")
          .with_unit(Quantity::Energy)
          .at_least(0),
  };
  static const FieldTable<E> eval = {
      field("batch_size", &E::batch_size,
            "Images per analog read (reference mode shares noise per batch)")
          .range(1, 1 << 20),
      field("threads", &E::threads, "libtorch threads (0: libtorch's default)").range(0, 1024),
  };
  static const FieldTable<R> table = concat<R>({
      {
          field("chips", &R::chips, "Chip profiles file (e.g. data/chips.yaml)"),
          field("pool", &R::pool,
                "Comma-separated units: a profile name (A0) or distinct units of one profile "
                "(A0#1,A0#2); '': every profile of the file with an energy"),
          field("mode", &R::mode, "Override the profiles' simulation mode ('': their own)")
              .one_of({"", "physical", "reference"}),
          field("chip_seed", &R::chip_seed,
                "Base chip seed; a unit's chip seed is derived from it and the unit's name")
              .alias("--seed"),
          field("read_seed", &R::read_seed,
                "Base read-noise seed; derived per unit name like --chip-seed"),
          field("dataset", &R::dataset, data::kDatasetHelp),
          field("data_dir", &R::data_dir, "Directory of the data set files").alias("--dataset-dir"),
          field("calibration", &R::calibration,
                "holdout: H/P/C from training images held out of training, T = the official "
                "test set (the paper's protocol; default when the model's .train.json "
                "records a holdout); test: all four roles from --split")
              .one_of({"holdout", "test"}),
          field("holdout", &R::holdout,
                "Held-out training images (default: the model's .train.json; must match it)")
              .range(1, kRows),
          field("holdout_seed", &R::holdout_seed,
                "Seed of the held-out subset (default: the model's .train.json)"),
          field("split", &R::split,
                "--calibration test: the data set split the four roles are drawn from")
              .one_of({"train", "test"}),
          field("limit", &R::limit, "First N calibration images only (0: all)").at_least(0),
          field("risk", &R::risk, "Deployment risk target r for the certificate")
              .flag("--alpha")
              .between(0, 1),
          field("certificate_delta", &R::certificate_delta,
                "Certificate: the bound holds with confidence 1 - delta")
              .flag("--delta")
              .between(0, 1),
          field("design_risk", &R::design_risk,
                "Design risk r_d of the threshold fit (r_d < r leaves slack)")
              .flag("--design-alpha")
              .between(0, 1),
          field("design_delta", &R::design_delta, "delta_d of the threshold fit").between(0, 1),
          field("score", &R::score,
                "Confidence score: logit_margin, max_softmax, probability_margin, log_odds, "
                "negative_entropy"),
          field("bias_correction", &R::bias_correction,
                "Bias correction, eq. (6), on the hardware split H (without it H is unused)"),
          field("hardware_rows", &R::hardware_rows,
                "Rows of the hardware split H (default 3000 with --calibration holdout, 2000 "
                "otherwise)")
              .flag("--hardware")
              .range(0, kRows),
          field("policy_rows", &R::policy_rows,
                "Rows of the policy split P (thresholds, selection)")
              .flag("--policy")
              .range(1, kRows),
          field("certificate_rows", &R::certificate_rows,
                "Rows of the certificate split C (default 5000 with --calibration holdout, "
                "4000 otherwise)")
              .flag("--certificate")
              .range(1, kRows),
          field("test_rows", &R::test_rows,
                "Rows of the test split T: drawn with H/P/C under --calibration test "
                "(default 2000); the first N official test images under --calibration "
                "holdout (default all)")
              .flag("--test")
              .range(0, kRows),
          field("split_seed", &R::split_seed, "Seed of the random split into H, P, C (, T)"),
      },
      nested(&R::energy, energy),
      nested(&R::eval, eval),
      {
          field("cache", &R::cache_dir,
                "Logit cache directory: reuse the logits of earlier simulations, store new ones"),
          field("logits", &R::replay_dir,
                "Replay from this logit cache only (no simulation; an error names what is "
                "missing)"),
      },
  });
  return table;
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
  return {{"kind", "hetcim frozen policy (seed 002)"},
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

const FieldTable<TrainRequest>& train_fields() {
  using R = TrainRequest;
  using O = train::TrainOptions;
  static const FieldTable<O> options = {
      field("batch_size", &O::batch_size, "Batch size").range(1, 1 << 20),
      field("weight_decay", &O::weight_decay, "AdamW weight decay").range(0, 10),
      field("flip", &O::flip, "The random horizontal flip, on by default"),
      field("seed", &O::seed, "Seed of initialization, shuffling and augmentation"),
      field("train_limit", &O::train_limit,
            "Train on the first N images not held out only (0: all)")
          .at_least(0),
      field("eval_limit", &O::eval_limit,
            "Per-epoch accuracy on the first N held-out images only (0: all)")
          .at_least(0),
      field("threads", &O::threads, "libtorch threads (0: libtorch's default)").range(0, 1024),
  };
  static const FieldTable<R> table = concat<R>(
      {
          field("dataset", &R::dataset, data::kDatasetHelp),
          field("data_dir", &R::data_dir,
                "Directory of the data set files ('': fashion-mnist's "
                "/usr/share/datasets/fashion-mnist; cifar10: the cifar-10-batches-bin "
                "directory)"),
          field("out", &R::out, "Output ONNX file (its training record: + .train.json)"),
          field("preset", &R::preset,
                "paper: 30 epochs, lr 2e-3 (seed 002, Sec. IV-A); fast: 2 epochs, lr 2e-3 (for "
                "tests and development; epochs and lr override either)")
              .one_of({"paper", "fast"}),
          field("epochs", &R::epochs, "Epochs (unset: the preset's)").range(1, 100000),
          field("lr", &R::lr, "Peak learning rate, cosine annealed to 0 (unset: the preset's)")
              .range(1e-12, 10),
          field("holdout", &R::holdout,
                "Training images held out of training (seeded random subset): the evaluation "
                "set of training choices and the calibration pool of `analog select "
                "--holdout`; 0 trains on all")
              .range(0, 0x1p40),
          field("holdout_seed", &R::holdout_seed, "Seed of the held-out subset"),
          field("crop_padding", &R::crop_padding,
                "Random-crop zero padding per side (-1: 2 for 28x28 images, 4 for 32x32)")
              .range(-1, 64),
          field("hardware_aware", &R::hardware_aware,
                "Hardware-aware training: the chip profile FILE:PROFILE (e.g. data/chips.yaml:A3) "
                "whose programming noise, stuck devices, read noise and DAC/ADC quantization the "
                "classifier's forward pass injects, a fresh chip per batch, straight-through "
                "gradients (src/train/README.md); '': plain training"),
          field("hardware_aware_time", &R::hardware_aware_time,
                "With --hardware-aware: the time after programming at which the injected chips "
                "are read (drift when later than the profile's drift_t0); 0: at t0")
              .with_unit(Quantity::Time)
              .range(0, 1e6),
      },
      nested(&R::options, options));
  return table;
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
