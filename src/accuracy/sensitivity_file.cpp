#include "accuracy/sensitivity_file.h"

#include <cmath>

#include "util/error.h"
#include "util/files.h"

namespace hetcim::accuracy {
namespace {

constexpr const char* kFormat = "hetcim-sensitivity 1";
constexpr const char* kMethod =
    "paired against the digital fp32 run on the same images; exact interval conditional on the "
    "discordant images (Clopper-Pearson on b of b + c, two-sided), accuracy/paired.h";

nlohmann::json drop_json(const PairedDrop& d) {
  return {{"accuracy", d.chip_accuracy()},
          {"drop", d.drop()},
          {"drop_lo", d.lo},
          {"drop_hi", d.hi},
          {"discordant", {{"b", d.b}, {"c", d.c}}}};
}

constexpr const char* kLogitMethod =
    "mean over images of ||chip logits - digital logits||^2 over the mean of ||digital "
    "logits||^2; interval: Student t on the per-image squared errors (approximate), "
    "accuracy/cost.h";

nlohmann::json checks_json(const std::vector<SetCheck>& checks) {
  nlohmann::json a = nlohmann::json::array();
  for (const SetCheck& c : checks)
    a.push_back({{"operators", c.operators},
                 {"predicted", c.predicted},
                 {"measured", c.measured.drop()},
                 {"lo", c.measured.lo},
                 {"hi", c.measured.hi},
                 {"predicted_logit_cost", c.predicted_logit},
                 {"logit_cost", c.measured_logit.value},
                 {"logit_cost_lo", c.measured_logit.lo},
                 {"logit_cost_hi", c.measured_logit.hi}});
  return a;
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw user_error("sensitivity file ", shown_path(path_), ": field '", field, "': ", what);
  }
  const nlohmann::json& at(const nlohmann::json& j, const std::string& key,
                           const std::string& field) const {
    if (!j.is_object() || !j.contains(key)) fail(field, "missing");
    return j.at(key);
  }
  std::string text(const nlohmann::json& j, const std::string& key,
                   const std::string& field) const {
    const auto& v = at(j, key, field);
    if (!v.is_string()) fail(field, "expected a string");
    return v.get<std::string>();
  }
  double number(const nlohmann::json& j, const std::string& key, const std::string& field,
                double lo, double hi) const {
    const auto& v = at(j, key, field);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
        v.get<double>() > hi)
      fail(field, "expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v.get<double>();
  }
  uint64_t whole(const nlohmann::json& j, const std::string& key, const std::string& field) const {
    const auto& v = at(j, key, field);
    if (!v.is_number_unsigned()) fail(field, "expected a whole number >= 0");
    return v.get<uint64_t>();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

nlohmann::json sensitivity_json(const Sensitivity& s, const SensitivityIdentity& id,
                                const nlohmann::json& provenance) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OperatorSensitivity& o : s.operators) {
    nlohmann::json j = drop_json(o.drop);
    j["name"] = o.name;
    j["output_error"] = o.output_error;
    j["logit_cost"] = o.logit.value;
    j["logit_cost_lo"] = o.logit.lo;
    j["logit_cost_hi"] = o.logit.hi;
    ops.push_back(j);
  }
  const double level = s.operators.empty() ? 0.95 : s.operators.front().drop.level;
  nlohmann::json data = {{"name", id.dataset},
                         {"samples", s.samples},
                         {"synthetic", id.dataset == "synthetic"},
                         {"description", s.set_description},
                         {"seed", id.input_seed},
                         {"split", id.source.split}};
  if (id.source.split == "holdout")
    data["holdout"] = {{"images", id.source.holdout},
                       {"seed", id.source.holdout_seed},
                       {"record", id.source.record}};
  return {{"format", kFormat},
          {"model", {{"spec", id.model_spec}, {"hash", id.model_hash}}},
          {"chip",
           {{"spec", id.chip_spec},
            {"profile", id.profile},
            {"hash", id.profile_hash},
            {"chip_seed", id.chip_seed},
            {"read_seed", id.read_seed}}},
          {"dataset", data},
          {"confidence", {{"level", level}, {"method", kMethod}}},
          {"cost",
           {{"kind", cost_kind_name(s.cost)},
            {"unit", s.cost == CostKind::Top1 ? "fraction of top-1 accuracy (0.01 = 1 point)"
                                              : "relative mean squared logit error"},
            {"method", s.cost == CostKind::Top1 ? kMethod : kLogitMethod}}},
          {"digital_accuracy", s.digital_accuracy},
          {"operators", ops},
          {"additivity", {{"greedy", checks_json(s.greedy)}, {"pairs", checks_json(s.pairs)}}},
          {"runs", s.runs},
          {"cached_runs", s.cached_runs},
          {"provenance", provenance}};
}

SensitivityFile read_sensitivity_file(const std::string& path) {
  const std::string text = read_input_file(path, "sensitivity file");
  const Reader r(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw user_error("sensitivity file ", shown_path(path), ": not JSON (", e.what(), ")");
  }
  if (!j.is_object()) r.fail("(top level)", "expected an object");
  if (r.text(j, "format", "format") != kFormat)
    r.fail("format", std::string("expected \"") + kFormat + "\"");
  SensitivityFile f;
  f.path = path;
  const auto& model = r.at(j, "model", "model");
  f.id.model_spec = r.text(model, "spec", "model.spec");
  f.id.model_hash = r.text(model, "hash", "model.hash");
  const auto& chip = r.at(j, "chip", "chip");
  f.id.chip_spec = r.text(chip, "spec", "chip.spec");
  f.id.profile = r.text(chip, "profile", "chip.profile");
  f.id.profile_hash = r.text(chip, "hash", "chip.hash");
  f.id.chip_seed = r.whole(chip, "chip_seed", "chip.chip_seed");
  f.id.read_seed = r.whole(chip, "read_seed", "chip.read_seed");
  const auto& data = r.at(j, "dataset", "dataset");
  f.id.dataset = r.text(data, "name", "dataset.name");
  f.id.samples = static_cast<int64_t>(r.whole(data, "samples", "dataset.samples"));
  f.id.input_seed = r.whole(data, "seed", "dataset.seed");
  f.id.source.dataset = f.id.dataset;
  if (data.contains("split")) {
    f.id.source.split = r.text(data, "split", "dataset.split");
  } else {  // written before the field existed: `hetcim sensitivity` then took the test images
    f.id.source.split = f.id.dataset == "synthetic" ? "synthetic" : "test";
  }
  if ((f.id.source.split == "synthetic") != (f.id.dataset == "synthetic") ||
      (f.id.source.split != "synthetic" && f.id.source.split != "holdout" &&
       f.id.source.split != "test"))
    r.fail("dataset.split",
           "expected \"holdout\" or \"test\" for a data set, \"synthetic\" for "
           "synthetic inputs, got \"" +
               f.id.source.split + "\"");
  if (f.id.source.split == "holdout") {
    const auto& h = r.at(data, "holdout", "dataset.holdout");
    f.id.source.holdout = static_cast<int64_t>(r.whole(h, "images", "dataset.holdout.images"));
    f.id.source.holdout_seed = r.whole(h, "seed", "dataset.holdout.seed");
    f.id.source.record = r.text(h, "record", "dataset.holdout.record");
    if (f.id.source.holdout < f.id.samples)
      r.fail("dataset.holdout.images", "fewer held-out images than dataset.samples");
  }
  f.level =
      r.number(r.at(j, "confidence", "confidence"), "level", "confidence.level", 1e-9, 1 - 1e-9);
  if (j.contains("cost"))
    f.cost = parse_cost_kind(r.text(r.at(j, "cost", "cost"), "kind", "cost.kind"),
                             "sensitivity file " + shown_path(path) + ": field 'cost.kind'");
  f.id.cost = cost_kind_name(f.cost);
  const bool logit = f.cost == CostKind::Logit;
  f.digital_accuracy = r.number(j, "digital_accuracy", "digital_accuracy", 0, 1);
  const auto& ops = r.at(j, "operators", "operators");
  if (!ops.is_array() || ops.empty()) r.fail("operators", "expected a non-empty array");
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string field = "operators[" + std::to_string(i) + "]";
    const std::string name = r.text(ops[i], "name", field + ".name");
    SensitivityFile::Entry e;
    e.drop = r.number(ops[i], "drop", field + ".drop", -1, 1);
    e.lo = r.number(ops[i], "drop_lo", field + ".drop_lo", -1, 1);
    e.hi = r.number(ops[i], "drop_hi", field + ".drop_hi", -1, 1);
    if (!(e.lo <= e.drop && e.drop <= e.hi)) r.fail(field, "expected drop_lo <= drop <= drop_hi");
    if (ops[i].contains("output_error"))
      e.output_error = r.number(ops[i], "output_error", field + ".output_error", 0, 1e30);
    if (logit) {
      e.logit.value = r.number(ops[i], "logit_cost", field + ".logit_cost", 0, 1e30);
      e.logit.lo = r.number(ops[i], "logit_cost_lo", field + ".logit_cost_lo", 0, 1e30);
      e.logit.hi = r.number(ops[i], "logit_cost_hi", field + ".logit_cost_hi", 0, 1e30);
      f.fit_costs.push_back(e.logit.value);
      f.fit_drops.push_back(e.drop);
    }
    if (!f.operators.emplace(name, e).second) r.fail(field + ".name", "'" + name + "' twice");
  }
  if (logit) {
    const auto& greedy = r.at(r.at(j, "additivity", "additivity"), "greedy", "additivity.greedy");
    if (!greedy.is_array()) r.fail("additivity.greedy", "expected an array");
    for (size_t i = 0; i < greedy.size(); ++i) {
      const std::string field = "additivity.greedy[" + std::to_string(i) + "]";
      f.fit_costs.push_back(
          r.number(greedy[i], "predicted_logit_cost", field + ".predicted_logit_cost", 0, 1e30));
      f.fit_drops.push_back(r.number(greedy[i], "measured", field + ".measured", -1, 1));
    }
  }
  return f;
}

void check_identity(const SensitivityFile& f, const SensitivityIdentity& want) {
  const auto differ = [&](const std::string& field, const std::string& has,
                          const std::string& wanted, const std::string& what) {
    throw user_error("sensitivity file ", shown_path(f.path), ": field '", field, "' is ", has,
                     ", but ", what, " here is ", wanted,
                     "; measure it again for this one (hetcim sensitivity)");
  };
  const auto q = [](const std::string& s) { return "'" + s + "'"; };
  if (!want.model_hash.empty() && f.id.model_hash != want.model_hash)
    differ("model.hash", q(f.id.model_hash) + " (" + f.id.model_spec + ")",
           q(want.model_hash) + " (" + want.model_spec + ")", "the model");
  if (!want.profile_hash.empty() && f.id.profile_hash != want.profile_hash)
    differ("chip.hash", q(f.id.profile_hash) + " (profile " + f.id.profile + ")",
           q(want.profile_hash) + " (profile " + want.profile + ")", "the chip");
  if (!want.cost.empty() && f.id.cost != want.cost)
    differ("cost.kind", q(f.id.cost), q(want.cost), "the cost asked for");
  if (!want.dataset.empty() && f.id.dataset != want.dataset)
    differ("dataset.name", q(f.id.dataset), q(want.dataset), "the data set");
  if (!want.source.split.empty() && f.id.source.split != want.source.split)
    differ("dataset.split", q(f.id.source.split), q(want.source.split), "the calibration");
  if (want.source.split == "holdout" && want.source.holdout > 0 &&
      (f.id.source.holdout != want.source.holdout ||
       f.id.source.holdout_seed != want.source.holdout_seed))
    differ("dataset.holdout",
           std::to_string(f.id.source.holdout) + " images, seed " +
               std::to_string(f.id.source.holdout_seed),
           std::to_string(want.source.holdout) + " images, seed " +
               std::to_string(want.source.holdout_seed),
           "the held-out subset");
  if (want.samples > 0 && f.id.samples != want.samples)
    differ("dataset.samples", std::to_string(f.id.samples), std::to_string(want.samples),
           "the number of samples");
  if (f.id.chip_seed != want.chip_seed)
    differ("chip.chip_seed", std::to_string(f.id.chip_seed), std::to_string(want.chip_seed),
           "the chip seed");
  if (f.id.read_seed != want.read_seed)
    differ("chip.read_seed", std::to_string(f.id.read_seed), std::to_string(want.read_seed),
           "the read seed");
}

}  // namespace hetcim::accuracy
