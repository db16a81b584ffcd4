#include "api_torch/drift.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <span>

#include "api/common.h"
#include "api_torch/policy.h"
#include "data/dataset.h"
#include "formats/number_text.h"
#include "onnxio/import.h"
#include "select/controller.h"
#include "select/state_check.h"
#include "util/error.h"
#include "util/numbers.h"
#include "xbar/chips_yaml.h"

namespace hetcim::api {
namespace {

// A decimal number and a unit, > 0.
double parse_age(const std::string& text) {
  static const std::pair<const char*, double> units[] = {
      {"min", 60.0},  {"mo", 30.436875 * 86400}, {"s", 1.0},           {"h", 3600.0},
      {"d", 86400.0}, {"w", 7 * 86400.0},        {"y", 365.25 * 86400}};
  for (const auto& [u, scale] : units) {
    const std::string unit = u;
    if (text.size() > unit.size() &&
        text.compare(text.size() - unit.size(), unit.size(), unit) == 0) {
      const std::string number = text.substr(0, text.size() - unit.size());
      if (!number.empty() &&
          (std::isdigit(static_cast<unsigned char>(number.back())) != 0 || number.back() == '.')) {
        const std::optional<double> v = parse_finite(number);
        if (v && *v > 0 && *v * scale <= 1e12) return *v * scale;
        if (v)
          throw user_error("--times: '", text,
                           "' must be a time > 0 and at most about 30000 years");
      }
    }
  }
  throw user_error("--times: '", text,
                   "' is not a time (expected a number and a unit: s, min, h, d, w, mo, y; "
                   "e.g. 1h,1d,1mo,1y)");
}

}  // namespace

std::vector<std::pair<std::string, double>> parse_read_times(const std::string& text) {
  std::vector<std::pair<std::string, double>> times;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const double t = parse_age(item);
    if (!times.empty() && !(t > times.back().second))
      throw user_error("--times: '", item, "' is not after '", times.back().first,
                       "' (give the times in increasing order)");
    times.emplace_back(item, t);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return times;
}

void AnalogDriftRequest::validate() const {
  if (model.empty()) throw user_error("model: required (an ONNX file of race_cnn with weights)");
  check_fields(*this, analog_drift_fields());
  data::check_dataset_name("dataset", dataset);
}

AnalogDriftResult analog_drift(const AnalogDriftRequest& a) {
  a.validate();
  // Every check before the first simulation.
  const std::vector<std::pair<std::string, double>> times = parse_read_times(a.times);
  std::optional<LoadedPolicy> lp;
  if (a.chip.empty() == a.policy.empty())
    throw user_error(
        "analog drift: give --chip FILE:PROFILE or --policy FILE (which names its chip)");
  uint64_t chip_seed = a.chip_seed.value_or(1), read_seed = a.read_seed.value_or(1);
  train::EvalOptions options = a.eval;
  if (a.batch_size) options.batch_size = *a.batch_size;
  std::string chip_spec = a.chip;
  if (!a.policy.empty()) {
    lp = load_policy(a.policy, a.model, "");
    if (!lp->profile)
      throw user_error(a.policy,
                       ": field 'chips.unit' is null: the policy selected no chip, "
                       "so nothing drifts");
    chip_spec = policy_get<std::string>(lp->json, "chips.file", a.policy) + ":" +
                lp->profile->name + " (unit " + lp->frozen.unit + " of " + a.policy + ")";
    if (a.chip_seed)
      throw user_error("--chip-seed: the policy fixes the chip seed; leave out --chip-seed");
    chip_seed = lp->chip_seed;
    if (!a.read_seed) read_seed = lp->test_read_seed;
    // Reads as the policy's evaluation read (the read-noise streams follow the batches).
    if (!a.batch_size) options.batch_size = lp->batch_size;
  }
  const xbar::ChipProfile profile = lp ? *lp->profile : xbar::load_chip_profile(a.chip);
  if (!profile.drifts() && !profile.read_noise_growth)
    throw user_error("--chip ", chip_spec,
                     ": the profile has no drift (fields drift_nu, drift_nu_sd are 0 or absent, "
                     "read_noise_growth false); "
                     "add them to the chips file (src/xbar/README.md, \"Drift\")");
  const graph::Graph model = onnxio::import_onnx(a.model);
  const data::ImageDataset d =
      data::load_dataset(a.dataset, data::parse_split(a.split), a.data_dir);

  AnalogDriftResult result;
  result.status.origin = Origin::Measured;
  results::DriftReport& r = result.report;
  r.chip = chip_spec;
  if (lp) {
    r.policy_file = a.policy;
    r.certificate_bound = lp->upper_bound;
    r.risk_target = lp->risk_target;
    if (d.classes != lp->frozen.classes)
      throw user_error(d.name, ": ", d.classes, " classes, the policy has ", lp->frozen.classes);
  }
  r.t0 = profile.drift_t0;
  r.nu = profile.drift_nu;
  r.nu_sd = profile.drift_nu_sd;
  const int64_t images = options.limit > 0 ? std::min(options.limit, d.count) : d.count;
  r.dataset = a.dataset + " " + a.split + " split (" + std::to_string(images) + " images)";
  std::vector<std::pair<std::string, double>> reads = {{"t0", 0.0}};
  reads.insert(reads.end(), times.begin(), times.end());
  const bool raw = a.compensation != "global", gdc = a.compensation != "none";
  if (a.audit > 0 && !lp) throw user_error("--audit needs --policy (the audit checks a policy)");
  std::vector<double> reference_scores;
  select::StateCheckOptions check_options;
  if (lp) {
    check_options.certified_accepted = lp->certified_accepted;
    check_options.certified_size = lp->certified_rows;
    check_options.risk = r.risk_target;
    check_options.audit = a.audit;
    r.audit = a.audit;
  }
  const size_t total = reads.size() * (static_cast<size_t>(raw) + static_cast<size_t>(gdc));
  size_t done = 0;
  if (a.progress) a.progress(0, total);
  for (const auto& [label, t] : reads) {
    results::DriftPoint p;
    p.label = label;
    p.seconds = t;
    for (bool comp : {false, true}) {
      if (comp ? !gdc : !raw) continue;
      train::EvalOptions o = options;
      o.chip = profile;
      o.chip_seed = chip_seed;
      o.read_seed = read_seed;
      o.read_time = t;
      o.drift_compensation = comp;
      const train::EvalResult e = train::evaluate_race_cnn(model, d, o);
      (comp ? p.accuracy_compensated : p.accuracy) = e.accuracy;
      if (lp) {  // the frozen policy on this chip state, query by query
        select::Controller controller(lp->frozen, false);
        int64_t wrong = 0;
        const auto k = static_cast<size_t>(lp->frozen.classes);
        std::vector<select::Decision> decisions;
        decisions.reserve(static_cast<size_t>(e.count));
        for (int64_t i = 0; i < e.count; ++i) {
          decisions.push_back(controller.decide(
              std::span<const float>(e.logits).subspan(static_cast<size_t>(i) * k, k)));
          if (decisions.back().route == select::Route::Accept)
            wrong += decisions.back().label != e.labels[static_cast<size_t>(i)];
        }
        // The reference of the score test: the first read (t0).
        if (reference_scores.empty())
          for (const select::Decision& dec : decisions) reference_scores.push_back(dec.score);
        const select::ControllerCounts& c = controller.counts();
        (comp ? p.policy_compensated : p.policy) = results::DriftPolicyPoint{
            c.coverage(),
            c.accepted > 0 ? static_cast<double>(wrong) / c.accepted
                           : std::numeric_limits<double>::quiet_NaN(),
            select::check_state(decisions, e.labels, reference_scores, check_options)};
      }
      if (a.progress) a.progress(++done, total);
    }
    r.points.push_back(p);
  }

  Provenance& prov = result.provenance;
  prov = library_provenance();
  prov.set("source", "accuracy measured on " + r.dataset +
                         " with the classifier layers on a simulated "
                         "chip (hetcim's crossbar simulator, profile " +
                         chip_spec + "); the convolutions run digitally (libtorch)" +
                         (lp ? "; policy " + a.policy + " (threshold, bias and score frozen at t0)"
                             : std::string()));
  prov.set("drift model",
           "modelled: G(t) = G(t0) (t/t0)^-nu per device, nu ~ N(" +
               formats::number_g9(profile.drift_nu) + ", " +
               formats::number_g9(profile.drift_nu_sd) +
               "^2) floored at 0, t0 = " + formats::number_g9(profile.drift_t0) +
               " s (chips file; literature values and assumptions in src/xbar/README.md); "
               "stuck devices do not drift; global drift compensation: one output scale per "
               "layer from a noise-free all-ones calibration read at t0 and at t");
  prov.set("read-noise growth",
           profile.read_noise_growth
               ? "modelled: read noise at t = read noise at t0 x sqrt(log((t + t_read) / (2 "
                 "t_read)) / log((t0 + t_read) / (2 t_read))), t_read = " +
                     formats::number_g9(profile.read_noise_t_read) +
                     " s (Nandakumar et al. 2019, the form of aihwkit's PCMLikeNoiseModel; "
                     "t_read is an assumption)"
               : std::string("off (the profile's read noise at every time)"));
  prov.set("seeds", "chip " + std::to_string(chip_seed) +
                        " (programming, stuck devices, drift "
                        "exponents), read noise " +
                        std::to_string(read_seed) + " (the same stream at every time)");
  return result;
}

}  // namespace hetcim::api
