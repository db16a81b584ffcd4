#include "formats/race_study_file.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "util/error.h"
#include "util/files.h"

namespace hetcim::formats {

using select::MeanSd;
using select::RunFigures;
using select::Variant;

namespace {

nlohmann::json mean_sd_json(const MeanSd& m) {
  if (m.n == 0) return nullptr;
  return {{"n", m.n}, {"mean", m.mean}, {"sd", m.sd}, {"min", m.min}, {"max", m.max}};
}

nlohmann::json number_json(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// Per run: fractions in [0, 1], energies in uJ (null where the figure does not exist).
nlohmann::json run_json(const RunFigures& f) {
  return {{"selected", f.selected},
          {"certified", f.certified},
          {"certified_coverage", f.certified_coverage},
          {"certified_risk", f.certified_risk},
          {"upper_bound", f.upper_bound},
          {"test_coverage", f.test_coverage},
          {"test_risk", f.test_risk},
          {"hybrid_accuracy", f.hybrid_accuracy},
          {"digital_accuracy", f.digital_accuracy},
          {"forced_accuracy", f.forced_accuracy},
          {"ensemble_accuracy", f.ensemble_accuracy},
          {"selected_activation_uJ", f.selected_activation * 1e6},
          {"ensemble_energy_uJ", f.ensemble_energy * 1e6},
          {"selective_energy_uJ", number_json(f.selective_energy * 1e6)},
          {"reduction", number_json(f.reduction)},
          {"break_even_uJ", number_json(f.break_even * 1e6)},
          {"selective_energy_certificate_uJ", f.selective_energy_certificate * 1e6},
          {"reduction_certificate", number_json(f.reduction_certificate)},
          {"break_even_certificate_uJ", number_json(f.break_even_certificate * 1e6)}};
}

nlohmann::json variant_json(const Variant& v) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& f : v.runs) runs.push_back(run_json(f));
  return {{"label", v.label},
          {"passes", v.passes},
          {"runs", runs},
          {"certified_coverage", mean_sd_json(v.over(&RunFigures::certified_coverage))},
          {"upper_bound", mean_sd_json(v.over(&RunFigures::upper_bound))},
          {"test_coverage", mean_sd_json(v.over(&RunFigures::test_coverage))},
          {"test_risk", mean_sd_json(v.over(&RunFigures::test_risk))},
          {"hybrid_accuracy", mean_sd_json(v.over(&RunFigures::hybrid_accuracy))}};
}

// Reading back: every access names the file and the JSON path of the field.
struct Reader {
  const std::string& origin;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw user_error(origin, ": field '", field, "': ", what);
  }
  const nlohmann::json& at(const nlohmann::json& j, const std::string& field,
                           const std::string& key) const {
    if (!j.is_object() || !j.contains(key))
      fail(field + (field.empty() ? "" : ".") + key, "missing");
    return j.at(key);
  }
  double number(const nlohmann::json& j, const std::string& field, const std::string& key,
                double unit = 1.0) const {
    const nlohmann::json& v = at(j, field, key);
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) fail(field + "." + key, "expected a number or null");
    return v.get<double>() * unit;
  }
  RunFigures run(const nlohmann::json& j, const std::string& field) const {
    RunFigures f;
    const nlohmann::json& sel = at(j, field, "selected");
    if (!sel.is_string()) fail(field + ".selected", "expected a string");
    f.selected = sel.get<std::string>();
    const nlohmann::json& cert = at(j, field, "certified");
    if (!cert.is_boolean()) fail(field + ".certified", "expected true or false");
    f.certified = cert.get<bool>();
    const std::pair<const char*, double RunFigures::*> fractions[] = {
        {"certified_coverage", &RunFigures::certified_coverage},
        {"certified_risk", &RunFigures::certified_risk},
        {"upper_bound", &RunFigures::upper_bound},
        {"test_coverage", &RunFigures::test_coverage},
        {"test_risk", &RunFigures::test_risk},
        {"hybrid_accuracy", &RunFigures::hybrid_accuracy},
        {"digital_accuracy", &RunFigures::digital_accuracy},
        {"forced_accuracy", &RunFigures::forced_accuracy},
        {"ensemble_accuracy", &RunFigures::ensemble_accuracy},
        {"reduction", &RunFigures::reduction},
        {"reduction_certificate", &RunFigures::reduction_certificate}};
    for (const auto& [key, member] : fractions) {
      const double v = number(j, field, key);
      // Defined for every run (the certificate split is never empty): null would be averaged
      // away or printed as nan.
      if (std::isnan(v) &&
          (std::string(key) == "certified_coverage" || std::string(key) == "upper_bound"))
        fail(field + "." + key, "expected a number (every run has a certificate), got null");
      if (std::isfinite(v) && !(v >= 0.0 && v <= 1.0) && std::string(key).rfind("reduction", 0))
        fail(field + "." + key, "expected a fraction in [0, 1], got " + std::to_string(v));
      f.*member = v;
    }
    const std::pair<const char*, double RunFigures::*> energies[] = {
        {"selected_activation_uJ", &RunFigures::selected_activation},
        {"ensemble_energy_uJ", &RunFigures::ensemble_energy},
        {"selective_energy_uJ", &RunFigures::selective_energy},
        {"break_even_uJ", &RunFigures::break_even},
        {"selective_energy_certificate_uJ", &RunFigures::selective_energy_certificate},
        {"break_even_certificate_uJ", &RunFigures::break_even_certificate}};
    for (const auto& [key, member] : energies) f.*member = number(j, field, key, 1e-6);
    return f;
  }
  Variant variant(const nlohmann::json& j, const std::string& field) const {
    Variant v;
    const nlohmann::json& label = at(j, field, "label");
    if (!label.is_string()) fail(field + ".label", "expected a string");
    v.label = label.get<std::string>();
    const nlohmann::json& runs = at(j, field, "runs");
    if (!runs.is_array() || runs.empty()) fail(field + ".runs", "expected a non-empty array");
    for (size_t i = 0; i < runs.size(); ++i) {
      v.add(run(runs[i], field + ".runs[" + std::to_string(i) + "]"));
    }
    const nlohmann::json& passes = at(j, field, "passes");
    if (!passes.is_number_integer() || passes.get<int64_t>() != v.passes)
      fail(field + ".passes",
           "expected the number of certified runs (" + std::to_string(v.passes) + ")");
    return v;
  }
  // `analog study` writes at least one variant of each sweep but availability (none when the
  // pool has one accelerator or --availability-drops is 0); an empty sweep has no figure.
  std::vector<Variant> variants(const nlohmann::json& j, const std::string& key,
                                bool may_be_empty = false) const {
    const nlohmann::json& a = at(j, "", key);
    if (!a.is_array() || (a.empty() && !may_be_empty))
      fail(key, may_be_empty ? "expected an array" : "expected a non-empty array");
    std::vector<Variant> out;
    for (size_t i = 0; i < a.size(); ++i)
      out.push_back(variant(a[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }
};

}  // namespace

nlohmann::json race_study_json(const select::StudyResult& s, const results::RaceStudyInfo& info,
                               const nlohmann::json& options) {
  nlohmann::json j = {{"format", kRaceStudyFormat},
                      {"options", options},
                      {"provenance", nlohmann::json::object()},
                      {"base", variant_json(s.base)},
                      {"break_even_uJ", mean_sd_json(s.break_even)}};
  for (const auto& [k, v] : info.provenance) j["provenance"][k] = v;
  for (const auto& [name, vs] :
       {std::pair{"design_risk", &s.design_risk}, std::pair{"availability", &s.availability},
        std::pair{"scores", &s.scores}, std::pair{"bias", &s.bias}}) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& v : *vs) arr.push_back(variant_json(v));
    j[name] = arr;
  }
  return j;
}

results::RaceStudyFile read_race_study(const std::string& path) {
  results::RaceStudyFile f;
  f.origin = path;
  const nlohmann::json j = nlohmann::json::parse(read_input_file(path, "study"), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw user_error(path,
                     ": not a JSON object (expected the study.json of `hetcim analog study`)");
  const Reader r{f.origin};
  const nlohmann::json& format = r.at(j, "", "format");
  if (!format.is_number_integer() || format.get<int64_t>() != kRaceStudyFormat)
    r.fail("format", "expected " + std::to_string(kRaceStudyFormat) + ", got " + format.dump() +
                         " (written by another hetcim version: run `hetcim analog study` again)");
  f.options = r.at(j, "", "options");
  if (!f.options.is_object()) r.fail("options", "expected an object");
  const nlohmann::json& prov = r.at(j, "", "provenance");
  if (!prov.is_object()) r.fail("provenance", "expected an object");
  for (const auto& [k, v] : prov.items()) {
    if (!v.is_string()) r.fail("provenance." + k, "expected a string");
    f.info.provenance.emplace_back(k, v.get<std::string>());
  }
  f.study.base = r.variant(r.at(j, "", "base"), "base");
  f.study.design_risk = r.variants(j, "design_risk");
  f.study.availability = r.variants(j, "availability", true);
  f.study.scores = r.variants(j, "scores");
  f.study.bias = r.variants(j, "bias");
  const size_t n = f.study.base.runs.size();
  for (const auto* vs :
       {&f.study.design_risk, &f.study.availability, &f.study.scores, &f.study.bias})
    for (const Variant& v : *vs)
      if (v.runs.size() != n)
        r.fail(v.label,
               "has " + std::to_string(v.runs.size()) + " runs, base has " + std::to_string(n));
  f.study.break_even = f.study.base.over(&RunFigures::break_even);
  f.info.risk_target = r.number(f.options, "options", "risk");
  f.info.fallback = r.number(f.options, "options", "fallback_uJ", 1e-6);
  return f;
}

}  // namespace hetcim::formats
