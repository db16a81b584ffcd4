#include "api/accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "accuracy/chip_eval.h"
#include "api/common.h"
#include "api/options.h"
#include "data/dataset.h"
#include "data/holdout.h"
#include "formats/provenance_json.h"
#include "partition/energy.h"
#include "util/error.h"
#include "xbar/chips_yaml.h"

namespace hetcim::api {
namespace {

// The calibration set of `s` for the model `model_spec` (a file may have a training record).
accuracy::CalibrationSet calibration_set(const graph::Graph& prepared, const AccuracySetup& s,
                                         const std::string& model_spec) {
  if (s.dataset == "synthetic") return accuracy::synthetic_set(prepared, s.samples, s.input_seed);
  accuracy::CalibrationSet set;
  if (s.calibration == "test") {
    set = accuracy::dataset_set(
        prepared, data::load_dataset(s.dataset, data::Split::Test, s.data_dir), s.samples);
  } else {
    // A model file may have its training record beside it (a zoo name has none).
    std::error_code ec;
    const std::optional<data::TrainRecord> rec = std::filesystem::is_regular_file(model_spec, ec)
                                                     ? data::read_train_record(model_spec)
                                                     : std::nullopt;
    int64_t holdout = 10000;
    uint64_t seed = 1;
    std::string record;
    if (rec) {
      if (rec->dataset != s.dataset)
        throw user_error("dataset: '", s.dataset, "', but the training record ", rec->file,
                         " says the model was trained on '", rec->dataset, "'");
      if (s.holdout && *s.holdout != rec->holdout)
        throw user_error("holdout: ", *s.holdout, " images, but the training record ", rec->file,
                         " held out ", rec->holdout, " (field 'holdout.images')");
      if (s.holdout_seed && *s.holdout_seed != rec->holdout_seed)
        throw user_error("holdout_seed: ", *s.holdout_seed, ", but the training record ", rec->file,
                         " held out images with seed ", rec->holdout_seed,
                         " (field 'holdout.seed')");
      holdout = rec->holdout;
      seed = rec->holdout_seed;
      record = rec->file;
    } else {
      holdout = s.holdout.value_or(holdout);
      seed = s.holdout_seed.value_or(seed);
    }
    const data::ImageDataset train = data::load_dataset(s.dataset, data::Split::Train, s.data_dir);
    set = accuracy::heldout_set(prepared, train, s.samples, holdout, seed, record);
  }
  set.source.dataset = s.dataset;
  return set;
}

// A confidence level as text: 0.95 -> "95 %", 0.999 -> "99.9 %".
std::string percent_text(double level) {
  char b[32];
  std::snprintf(b, sizeof b, "%g %%", 100 * level);
  return b;
}

accuracy::SensitivityOptions options_for(const AccuracySetup& s, const xbar::ChipProfile& profile,
                                         const std::string& model_hash) {
  accuracy::SensitivityOptions o;
  o.chip = {profile, s.chip_seed, s.read_seed};
  o.cache_dir = s.cache_dir;
  o.model_hash = model_hash;
  return o;
}

std::string seeds_text(const AccuracySetup& s) {
  return "chip " + std::to_string(s.chip_seed) + ", read noise " + std::to_string(s.read_seed) +
         (s.dataset == "synthetic" ? ", synthetic inputs " + std::to_string(s.input_seed) : "") +
         ", weights a model lacks " + std::to_string(s.weight_seed);
}

}  // namespace

const FieldTable<AccuracySetup>& accuracy_setup_fields() {
  using S = AccuracySetup;
  static const FieldTable<S> table = {
      field("chip", &S::chip, "Chip profile FILE:PROFILE, e.g. data/chips.yaml:A3"),
      field("dataset", &S::dataset,
            std::string("The images: the first `samples` images of `calibration` of a data "
                        "set (") +
                data::kDatasetForms +
                "; pixels / 255) or synthetic (seeded inputs labelled by the fp32 model's own "
                "top-1)"),
      field("data_dir", &S::data_dir, "Directory of the data set ('': its usual place)")
          .alias("--dataset-dir"),
      field("calibration", &S::calibration,
            "Images of a data set: holdout (the seeded held-out training images, those of the "
            "model's .train.json when it has one, which it never trained on) or test (the test "
            "images; a plan later evaluated on the test set then reuses them); '': holdout")
          .one_of({"", "holdout", "test"}),
      field("holdout", &S::holdout,
            "Held-out training images (unset: the model's .train.json's, else 10000)")
          .range(1, 0x1p40),
      field("holdout_seed", &S::holdout_seed,
            "Seed of the held-out subset (unset: the model's .train.json's, else 1)"),
      field("samples", &S::samples, "Images of the calibration set, or synthetic inputs")
          .range(1, 1 << 24),
      field("chip_seed", &S::chip_seed, "Chip instance (programmed state)").alias("--seed"),
      field("read_seed", &S::read_seed, "Read noise"),
      field("input_seed", &S::input_seed, "Synthetic inputs"),
      field("weight_seed", &S::weight_seed, "Weights a model does not carry (zoo models)"),
      field("cache_dir", &S::cache_dir, "Logit cache directory (content-addressed; '': none)")
          .flag("--cache"),
      field("cost", &S::cost,
            "The cost hetcim partition budgets: top1 (single top-1 drops, points) or logit "
            "(relative mean squared logit error, mapped to points by a fit on the greedy check); "
            "orders the greedy check, recorded in the file; '': top1")
          .one_of({"", "top1", "logit"}),
  };
  return table;
}

const FieldTable<AccuracySetup>& accuracy_check_fields() {
  using S = AccuracySetup;
  // The file records its images (data set, split, held-out subset, samples, input seed): only
  // what the file cannot supply (the chip file, the weights a model lacks, the data's directory,
  // the cache) or what a user may insist on is asked.
  static const FieldTable<S> table = {
      field("chip", &S::chip,
            "The chip of the sensitivity file, FILE:PROFILE (its profile must be the file's)"),
      field("dataset", &S::dataset,
            "Refuse a sensitivity file measured on another data set ('': the file's)"),
      field("data_dir", &S::data_dir, "Directory of the data set ('': its usual place)")
          .alias("--dataset-dir"),
      field("calibration", &S::calibration,
            "Refuse a sensitivity file measured on other images ('': the file's)")
          .one_of({"", "holdout", "test"}),
      field("chip_seed", &S::chip_seed, "Chip instance (must be the file's)").alias("--seed"),
      field("read_seed", &S::read_seed, "Read noise (must be the file's)"),
      field("weight_seed", &S::weight_seed, "Weights a model does not carry (zoo models)"),
      field("cache_dir", &S::cache_dir,
            "Logit cache directory for the re-evaluations (content-addressed; '': none)")
          .flag("--cache"),
      field("cost", &S::cost,
            "Refuse a sensitivity file whose budgeted cost is not this: top1 or logit ('': the "
            "file's)")
          .one_of({"", "top1", "logit"}),
  };
  return table;
}

const FieldTable<SensitivityRequest>& sensitivity_fields() {
  using R = SensitivityRequest;
  static const FieldTable<R> table = concat<R>(
      nested(&R::setup, accuracy_setup_fields()),
      {
          field("level", &R::level, "Confidence level of the intervals").range(0.5, 0.999999),
          field("max_pairs", &R::max_pairs,
                "Pairwise additivity checks, at most this many (0: none)")
              .range(0, 100000),
          field("greedy", &R::greedy,
                "The greedy additivity check (operators added one at a time in ascending "
                "cost, each prefix set measured), on by default"),
      });
  return table;
}

void AccuracySetup::validate() const {
  if (chip.empty()) throw user_error("chip: expected FILE:PROFILE (e.g. data/chips.yaml:A3)");
  check_fields(*this, accuracy_setup_fields());
  if (dataset != "synthetic") data::check_dataset_name("dataset", dataset);
  if (dataset == "synthetic" && (calibration == "test" || holdout || holdout_seed))
    throw user_error("calibration: a synthetic set has no test or held-out images");
  if (calibration == "test" && (holdout || holdout_seed))
    throw user_error("holdout: held-out images are for calibration 'holdout', not 'test'");
}

void SensitivityRequest::validate() const {
  setup.validate();
  check_fields(*this, sensitivity_fields());
}

SensitivityResult sensitivity(const Model& model, const SensitivityRequest& request) {
  request.validate();
  const AccuracySetup& s = request.setup;
  SensitivityResult r;
  const xbar::ChipProfile profile = xbar::load_chip_profile(s.chip);
  const graph::Graph prepared = with_model_named(
      model.spec, [&] { return accuracy::prepare_model(model.graph, s.weight_seed); });
  const accuracy::CalibrationSet set =
      with_model_named(model.spec, [&] { return calibration_set(prepared, s, model.spec); });
  const std::vector<std::string> ops =
      request.operators.empty() ? accuracy::chip_capable_nodes(prepared) : request.operators;
  accuracy::SensitivityOptions o = options_for(s, profile, accuracy::model_hash(prepared));
  o.level = request.level;
  o.max_pairs = static_cast<size_t>(request.max_pairs);
  o.greedy = request.greedy;
  o.cost = s.cost.empty() ? accuracy::CostKind::Top1 : accuracy::parse_cost_kind(s.cost, "cost");
  o.progress = request.progress;
  r.sensitivity = with_model_named(
      model.spec, [&] { return accuracy::measure_sensitivity(prepared, set, ops, o); });
  r.identity = {model.spec,
                o.model_hash,
                xbar::resolve_chip_spec(s.chip),
                profile.name,
                accuracy::profile_hash(profile),
                s.chip_seed,
                s.read_seed,
                s.dataset,
                s.samples,
                s.dataset == "synthetic" ? s.input_seed : 0,
                set.source,
                accuracy::cost_kind_name(o.cost)};
  r.provenance = library_provenance();
  r.provenance.set("data", set.description);
  r.provenance.set("simulator", "the crossbar simulator (xbar, chip " +
                                    xbar::resolve_chip_spec(s.chip) +
                                    ") as the oneDNN engine's delegate for the chip's operators; "
                                    "every other operator on oneDNN (fp32)");
  r.provenance.set("statistic", "paired drop vs the digital fp32 run, exact " +
                                    percent_text(request.level) +
                                    " interval conditional on discordant images");
  r.provenance.set("seeds", seeds_text(s));
  r.provenance.set("cache", s.cache_dir.empty() ? std::string("none (computed in this run)")
                                                : std::to_string(r.sensitivity.cached_runs) +
                                                      " of " + std::to_string(r.sensitivity.runs) +
                                                      " runs from the logit cache " + s.cache_dir);
  r.status.origin =
      r.sensitivity.cached_runs == r.sensitivity.runs ? Origin::Cached : Origin::Computed;
  return r;
}

nlohmann::json sensitivity_file_json(const SensitivityResult& r, const Provenance& provenance) {
  return accuracy::sensitivity_json(r.sensitivity, r.identity,
                                    formats::provenance_json(provenance));
}

AccuracyModel load_accuracy_model(const Model& model, const std::string& path,
                                  const AccuracySetup& want) {
  AccuracyModel m;
  m.file = accuracy::read_sensitivity_file(path);
  m.prepared = with_model_named(
      model.spec, [&] { return accuracy::prepare_model(model.graph, want.weight_seed); });
  const xbar::ChipProfile profile = xbar::load_chip_profile(want.chip);
  accuracy::SensitivityIdentity id;
  id.model_spec = model.spec;
  id.model_hash = accuracy::model_hash(m.prepared);
  id.profile = profile.name;
  id.profile_hash = accuracy::profile_hash(profile);
  id.dataset = want.dataset;
  id.samples = 0;                      // the file's
  id.source.split = want.calibration;  // "" = any
  id.chip_seed = want.chip_seed;
  id.read_seed = want.read_seed;
  id.cost = want.cost;  // "" = the file's
  accuracy::check_identity(m.file, id);
  if (m.file.cost == accuracy::CostKind::Logit)
    m.fit = accuracy::CostToDrop(m.file.fit_costs, m.file.fit_drops);
  m.setup = want;
  m.setup.dataset = m.file.id.dataset;
  m.setup.samples = m.file.id.samples;
  m.setup.input_seed = m.file.id.input_seed;
  // The file's images exactly: the same split, held-out subset and seed.
  const accuracy::CalibrationSource& src = m.file.id.source;
  m.setup.calibration = src.split == "synthetic" ? "" : src.split;
  m.setup.holdout.reset();
  m.setup.holdout_seed.reset();
  if (src.split == "holdout") {
    m.setup.holdout = src.holdout;
    m.setup.holdout_seed = src.holdout_seed;
  }
  m.model_spec = model.spec;
  return m;
}

void apply_accuracy(partition::Problem& p, const AccuracyModel& m, double max_drop) {
  p.drop_ppm.assign(p.size(), 0);
  const bool logit = m.file.cost == accuracy::CostKind::Logit;
  int64_t total = 0;
  for (size_t v = 0; v < p.size(); ++v) {
    if (p.acc[v].empty()) continue;
    const auto it = m.file.operators.find(p.names[v]);
    if (it == m.file.operators.end())
      throw user_error("sensitivity file ", m.file.path, ": field 'operators' has no operator '",
                       p.names[v], "', which the partition may offload");
    p.drop_ppm[v] =
        std::llround(std::max(0.0, logit ? it->second.logit.value : it->second.drop) * 1e6);
    total += p.drop_ppm[v];
  }
  if (max_drop < 0) {
    p.drop_budget_ppm = total;
  } else if (logit) {
    p.drop_budget_ppm =
        std::min(total, static_cast<int64_t>(std::floor(m.fit.budget(max_drop) * 1e6 + 1e-6)));
  } else {
    p.drop_budget_ppm = static_cast<int64_t>(std::floor(max_drop * 1e6 + 1e-6));
  }
}

PlanEvaluator::PlanEvaluator(const AccuracyModel& m) : PlanEvaluator(m, m.setup) {}

PlanEvaluator::PlanEvaluator(const AccuracyModel& m, const AccuracySetup& setup) : m_(m) {
  const xbar::ChipProfile profile = xbar::load_chip_profile(m.setup.chip);
  set_ = calibration_set(m.prepared, setup, m.model_spec);
  options_ = options_for(m.setup, profile, m.file.id.model_hash);
  digital_ =
      accuracy::top1(accuracy::chip_logits(m.prepared, set_, options_, {}, nullptr), set_.classes);
  ++runs_;
}

accuracy::PlanAccuracy PlanEvaluator::evaluate(const partition::Problem& p,
                                               const partition::Assignment& a) {
  accuracy::PlanAccuracy out;
  for (size_t v = 0; v < p.size(); ++v)
    if (a.mode[v] != partition::kHost) out.analog.push_back(p.names[v]);
  out.cost = m_.file.cost;
  out.predicted_cost = static_cast<double>(partition::drop_used(p, a)) * 1e-6;
  out.predicted =
      out.cost == accuracy::CostKind::Top1 ? out.predicted_cost : m_.fit.drop(out.predicted_cost);
  out.source = set_.source;
  const std::vector<float> logits =
      accuracy::chip_logits(m_.prepared, set_, options_, out.analog, nullptr);
  ++runs_;
  out.measured = accuracy::paired_drop(digital_, accuracy::top1(logits, set_.classes), set_.labels,
                                       m_.file.level);
  return out;
}

}  // namespace hetcim::api
