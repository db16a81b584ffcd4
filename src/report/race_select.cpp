#include "report/race_select.h"

#include <cmath>
#include <cstdio>

#include "report/printf.h"
#include "report/provenance.h"

namespace hetcim::report {

namespace {

// Coverage and the selective figures at it (energies in uJ).
nlohmann::json selective_json(const select::SelectiveEnergy& e) {
  return {{"coverage", e.coverage},
          {"selective", e.selective * 1e6},
          {"reduction_vs_ensemble", e.reduction_vs_ensemble},
          {"break_even_fallback", formats::finite_or_null(e.break_even_fallback * 1e6)}};
}

}  // namespace

nlohmann::json race_select_json(const select::RaceResult& r, const select::RaceOptions& o,
                                const std::vector<uint64_t>& chip_seeds,
                                const std::vector<uint64_t>& read_seeds, const Provenance& prov,
                                const std::string& data, const LogitsSource& logits) {
  nlohmann::json accs = nlohmann::json::array();
  for (size_t i = 0; i < r.accelerators.size(); ++i) {
    const select::AcceleratorResult& a = r.accelerators[i];
    accs.push_back({{"name", a.name},
                    {"chip_seed", chip_seeds[i]},
                    {"read_seed", read_seeds[i]},
                    {"energy_uJ", a.energy * 1e6},
                    {"utility_per_uJ", a.utility * 1e-6},
                    {"bias", a.bias},
                    {"fit",
                     {{"feasible", a.fit.feasible},
                      {"threshold", formats::finite_or_null(a.fit.threshold)},
                      {"upper_bound", a.fit.upper_bound},
                      {"policy", formats::selective_stats_json(a.fit.stats)}}},
                    {"test", formats::selective_stats_json(a.test)}});
  }
  const select::Certificate& c = r.certificate;
  nlohmann::json j = {
      {"options",
       {{"risk", o.risk},
        {"certificate_delta", o.certificate_delta},
        {"design_risk", o.design_risk},
        {"design_delta", o.design_delta},
        {"score", std::string(select::confidence_score_name(o.score))},
        {"bias_correction", o.bias_correction},
        {"split_seed", o.split_seed},
        {"splits",
         {{"hardware", o.splits.hardware},
          {"policy", o.splits.policy},
          {"certificate", o.splits.certificate},
          {"test", o.splits.test}}},
        {"energy_uJ",
         {{"communication", o.energy.communication * 1e6},
          {"controller", o.energy.controller * 1e6},
          {"per_class", o.energy.per_class * 1e6},
          {"fallback", o.energy.fallback * 1e6}}}}},
      {"rows", r.rows},
      {"accelerators", accs},
      {"selected",
       r.selected ? nlohmann::json(r.accelerators[*r.selected].name) : nlohmann::json(nullptr)},
      {"certificate",
       {{"certified", c.certified},
        {"risk_target", c.risk_target},
        {"delta", c.delta},
        {"threshold", formats::finite_or_null(c.threshold)},
        {"upper_bound", c.upper_bound},
        {"split", formats::selective_stats_json(c.stats)}}},
      {"test",
       {{"digital_accuracy", r.digital_accuracy},
        {"hybrid_accuracy", r.hybrid_accuracy},
        {"ensemble_accuracy", r.ensemble_accuracy}}},
      {"energy_uJ",
       {{"source",
         "modelled: RACE-AIMC's component energy model (Table I E_i, C, controller, per "
         "class, fallback F as in options.energy_uJ)"},
        {"selected_activation", r.energy.selected_activation * 1e6},
        {"ensemble", r.energy.ensemble * 1e6},
        {"activation_reduction", r.energy.activation_reduction},
        {"at_test", r.energy.at_test ? selective_json(*r.energy.at_test) : nlohmann::json(nullptr)},
        {"at_certificate", selective_json(r.energy.at_certificate)}}},
      {"provenance", formats::provenance_json(prov)}};
  j["data"] = data;
  j["logits_source"] = {
      {"simulated", logits.simulated}, {"cached", logits.cached}, {"cache", logits.cache}};
  return j;
}

std::string race_select_text(const select::RaceResult& r, const select::RaceOptions& o) {
  std::string out;
  appendf(out, "%-10s %9s %9s %9s %9s %10s %9s %9s %9s %11s\n", "chip", "accuracy", "coverage",
          "risk", "CP bound", "threshold", "test cov", "test risk", "E+C uJ", "utility/uJ");
  for (size_t i = 0; i < r.accelerators.size(); ++i) {
    const select::AcceleratorResult& a = r.accelerators[i];
    char threshold[32] = "none";
    if (a.fit.feasible) std::snprintf(threshold, sizeof threshold, "%.4f", a.fit.threshold);
    appendf(out, "%-10s %8.2f%% %8.2f%% %8.2f%% %8.2f%% %10s %8.2f%% %8.2f%% %9.3f %11.4f%s\n",
            a.name.c_str(), 100.0 * a.test.accuracy(), 100.0 * a.fit.stats.coverage(),
            100.0 * a.fit.stats.selective_risk(), 100.0 * a.fit.upper_bound, threshold,
            100.0 * a.test.coverage(), 100.0 * a.test.selective_risk(),
            (a.energy + o.energy.communication) * 1e6, a.utility * 1e-6,
            r.selected == i ? "  <- selected" : "");
  }
  appendf(
      out,
      "(accuracy: forced, on the test split; coverage, risk, CP bound: policy split at the design "
      "target; test cov/risk: test split)\n");
  const select::Certificate& c = r.certificate;
  if (!r.selected) {
    appendf(out,
            "selected: none (no accelerator has a feasible threshold; every query goes to the "
            "fallback)\n");
  } else {
    appendf(out, "selected: %s, threshold %.6g\n", r.accelerators[*r.selected].name.c_str(),
            c.threshold);
  }
  appendf(out,
          "certificate: %s: %lld of %lld accepted (coverage %.2f%%), %lld errors (risk %.2f%%), "
          "one-sided %.0f%% Clopper-Pearson bound %.2f%% %s target %.2f%%\n",
          c.certified ? "CERTIFIED" : "NOT certified", static_cast<long long>(c.stats.accepted),
          static_cast<long long>(c.stats.size), 100.0 * c.stats.coverage(),
          static_cast<long long>(c.stats.errors), 100.0 * c.stats.selective_risk(),
          100.0 * (1.0 - c.delta), 100.0 * c.upper_bound, c.certified ? "<=" : ">",
          100.0 * c.risk_target);
  appendf(
      out,
      "test split: digital %.2f%%, hybrid (accepted analog + digital fallback) %.2f%%, always-on "
      "ensemble %.2f%%\n",
      100.0 * r.digital_accuracy, 100.0 * r.hybrid_accuracy, 100.0 * r.ensemble_accuracy);
  const select::EnergyFigures& e = r.energy;
  appendf(out,
          "energy per query (modelled, RACE-AIMC's energy model): selected activation %.4f uJ, "
          "always-on ensemble %.4f uJ (activation alone %.2f%% below)\n",
          e.selected_activation * 1e6, e.ensemble * 1e6, 100.0 * e.activation_reduction);
  auto line = [&out](const char* what, const select::SelectiveEnergy& s) {
    appendf(
        out,
        "  %s: coverage %.2f%%, selective system %.4f uJ (%.2f%% below the ensemble), break-even "
        "fallback %.3f uJ\n",
        what, 100.0 * s.coverage, s.selective * 1e6, 100.0 * s.reduction_vs_ensemble,
        s.break_even_fallback * 1e6);
  };
  if (e.at_test)
    line("at the test-split coverage (the paper's definition)", *e.at_test);
  else
    appendf(out, "  at the test-split coverage (the paper's definition): n/a, no test split\n");
  line("at the certificate-split coverage", e.at_certificate);
  return out;
}

}  // namespace hetcim::report
