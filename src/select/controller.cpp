#include "select/controller.h"

#include <cmath>
#include <limits>

#include "select/bias_correction.h"
#include "util/error.h"

namespace hetcim::select {

FrozenPolicy freeze(const RaceResult& r, const RaceOptions& o, int64_t classes) {
  FrozenPolicy p;
  p.classes = classes;
  p.score = o.score;
  p.fallback_energy = o.energy.fallback;
  if (r.selected) {
    const AcceleratorResult& a = r.accelerators[*r.selected];
    p.unit = a.name;
    p.bias = a.bias;
    p.threshold = a.fit.threshold;
    p.activation_energy = r.energy.selected_activation;
  } else {
    p.bias.assign(static_cast<size_t>(classes), 0.0);
    p.threshold = std::numeric_limits<double>::infinity();
  }
  return p;
}

const char* route_name(Route r) {
  switch (r) {
    case Route::Accept:
      return "accept";
    case Route::Fallback:
      return "fallback";
    case Route::Abstain:
      return "abstain";
  }
  return "?";
}

double ControllerCounts::coverage() const {
  return queries > 0 ? static_cast<double>(accepted) / static_cast<double>(queries) : 0.0;
}

Controller::Controller(FrozenPolicy p, bool abstain) : policy_(std::move(p)), abstain_(abstain) {
  if (policy_.classes < 2)
    throw user_error("frozen policy: needs at least 2 classes, got ", policy_.classes);
  if (static_cast<int64_t>(policy_.bias.size()) != policy_.classes)
    throw user_error("frozen policy: 'bias' has ", policy_.bias.size(), " values, expected ",
                     policy_.classes, " (one per class)");
  for (double b : policy_.bias)
    if (!std::isfinite(b)) throw user_error("frozen policy: a 'bias' value is not finite");
  if (std::isnan(policy_.threshold)) throw user_error("frozen policy: 'threshold' is NaN");
  if (!(policy_.activation_energy >= 0.0) || !std::isfinite(policy_.activation_energy) ||
      !(policy_.fallback_energy >= 0.0) || !std::isfinite(policy_.fallback_energy))
    throw user_error("frozen policy: energies must be finite and >= 0 J");
}

Decision Controller::decide(std::span<const float> raw) {
  if (static_cast<int64_t>(raw.size()) != policy_.classes)
    throw user_error("controller: a query has ", raw.size(), " logits, the policy expects ",
                     policy_.classes);
  corrected_ = apply_bias(raw, policy_.classes, policy_.bias);
  Decision d;
  d.label = predictions(corrected_, policy_.classes)[0];
  d.score = confidence_scores(corrected_, policy_.classes, policy_.score)[0];
  ++counts_.queries;
  const bool selected = !policy_.unit.empty();
  if (selected) counts_.energy += policy_.activation_energy;
  if (selected && d.score >= policy_.threshold) {
    d.route = Route::Accept;
    ++counts_.accepted;
  } else if (abstain_) {
    d.route = Route::Abstain;
    ++counts_.abstained;
  } else {
    d.route = Route::Fallback;
    ++counts_.fallback;
    counts_.energy += policy_.fallback_energy;
  }
  return d;
}

}  // namespace hetcim::select
