#include "select/study.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "util/error.h"

namespace hetcim::select {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double finite_or_nan(double v) {
  return std::isfinite(v) ? v : kNaN;
}

}  // namespace

RunFigures figures_of(const RaceResult& r) {
  RunFigures f;
  const Certificate& c = r.certificate;
  f.certified = c.certified;
  f.certified_coverage = c.stats.coverage();
  f.certified_risk = c.stats.selective_risk();
  f.upper_bound = c.upper_bound;
  f.digital_accuracy = r.digital_accuracy;
  f.hybrid_accuracy = r.hybrid_accuracy;
  f.ensemble_accuracy = r.ensemble_accuracy;
  if (r.selected) {
    const AcceleratorResult& a = r.accelerators[*r.selected];
    f.selected = a.name;
    f.test_coverage = a.test.coverage();
    f.test_risk = a.test.selective_risk();
    f.forced_accuracy = a.test.accuracy();
  }
  f.selected_activation = r.energy.selected_activation;
  f.ensemble_energy = r.energy.ensemble;
  if (r.energy.at_test) {
    f.selective_energy = r.energy.at_test->selective;
    f.reduction = r.energy.at_test->reduction_vs_ensemble;
    f.break_even = finite_or_nan(r.energy.at_test->break_even_fallback);
  } else {
    f.selective_energy = f.reduction = f.break_even = kNaN;
  }
  f.selective_energy_certificate = r.energy.at_certificate.selective;
  f.reduction_certificate = r.energy.at_certificate.reduction_vs_ensemble;
  f.break_even_certificate = finite_or_nan(r.energy.at_certificate.break_even_fallback);
  return f;
}

MeanSd Variant::over(double RunFigures::*field) const {
  std::vector<double> v;
  for (const RunFigures& f : runs)
    if (std::isfinite(f.*field)) v.push_back(f.*field);
  return mean_sd(v);
}

void Variant::add(RunFigures f) {
  passes += f.certified;
  if (!f.selected.empty()) {
    auto it = std::find_if(selected_counts.begin(), selected_counts.end(),
                           [&](const auto& p) { return p.first == f.selected; });
    if (it == selected_counts.end())
      selected_counts.emplace_back(f.selected, 1);
    else
      ++it->second;
  }
  runs.push_back(std::move(f));
}

Variant replay(const std::vector<PoolLogits>& runs, const RaceOptions& o,
               const std::string& label) {
  Variant v;
  v.label = label;
  for (size_t i = 0; i < runs.size(); ++i) {
    RaceOptions oi = o;
    oi.split_seed = o.split_seed + i;
    const RunFigures f = figures_of(run_race(runs[i], oi));
    v.add(f);
  }
  return v;
}

StudyResult run_study(const std::vector<PoolLogits>& runs, const StudyOptions& o) {
  if (runs.empty()) throw user_error("study: no run");
  for (size_t i = 1; i < runs.size(); ++i) {
    bool same = runs[i].accelerators.size() == runs[0].accelerators.size();
    for (size_t k = 0; same && k < runs[i].accelerators.size(); ++k)
      same = runs[i].accelerators[k].name == runs[0].accelerators[k].name;
    if (!same) throw user_error("study: run ", i + 1, " has other units than run 1");
  }
  if (o.availability_drops < 0)
    throw user_error("study: availability drops must be >= 0, got ", o.availability_drops);
  for (double r : o.design_risks)
    if (!(r > 0.0 && r < 1.0)) throw user_error("study: design risk ", r, " is outside (0, 1)");

  StudyResult s;
  s.base = replay(runs, o.race, "base");
  for (double rd : o.design_risks) {
    RaceOptions x = o.race;
    x.design_risk = rd;
    char label[32];
    std::snprintf(label, sizeof label, "r_d = %.2f", rd);
    s.design_risk.push_back(replay(runs, x, label));
  }
  const auto& units = runs[0].accelerators;
  for (int k = 1; k <= o.availability_drops && static_cast<size_t>(k) < units.size(); ++k) {
    std::vector<PoolLogits> fewer = runs;
    for (PoolLogits& p : fewer)
      p.accelerators.erase(p.accelerators.begin(), p.accelerators.begin() + k);
    const std::string label =
        "without " +
        (k == 1 ? units[0].name : units[0].name + "-" + units[static_cast<size_t>(k - 1)].name);
    s.availability.push_back(replay(fewer, o.race, label));
  }
  for (ConfidenceScore sc :
       {ConfidenceScore::MaxSoftmax, ConfidenceScore::ProbabilityMargin,
        ConfidenceScore::LogitMargin, ConfidenceScore::LogOdds, ConfidenceScore::NegativeEntropy}) {
    RaceOptions x = o.race;
    x.score = sc;
    s.scores.push_back(replay(runs, x, std::string(confidence_score_name(sc))));
  }
  for (bool on : {true, false}) {
    RaceOptions x = o.race;
    x.bias_correction = on;
    s.bias.push_back(replay(runs, x, on ? "bias correction on" : "bias correction off"));
  }
  std::vector<double> fs = o.fallback_energies;
  if (fs.empty())
    for (int k = 0; k <= 30; ++k) fs.push_back(k * 1e-6);
  const MeanSd ens = s.base.over(&RunFigures::ensemble_energy);
  for (double F : fs) {
    if (!std::isfinite(F) || F < 0.0)
      throw user_error("study: fallback energy ", F, " J is not >= 0");
    std::vector<double> sel;
    for (const RunFigures& f : s.base.runs)
      if (std::isfinite(f.selective_energy))  // T exists
        sel.push_back(f.selected_activation + (1.0 - f.test_coverage) * F);
    s.fallback.push_back({F, mean_sd(sel), ens.mean});
  }
  s.break_even = s.base.over(&RunFigures::break_even);
  return s;
}

}  // namespace hetcim::select
