// Seed 002's online path (Sec. III, Fig. 1b): a frozen policy (one accelerator, its eq. (6) bias,
// its confidence score and threshold) applied to one query at a time. Per query: the selected
// accelerator's raw logits -> bias correction -> score -> accept (the accelerator's answer) or
// defer, to the digital fallback or, as an option, to abstention; running counts of coverage and
// modelled energy. The decisions are those of run_race's offline evaluation on the same logits
// (tests/select/controller_test.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "select/confidence.h"
#include "select/race.h"

namespace hetcim::select {

// What the offline protocol froze; a policy file carries it with its provenance (cmd_analog).
struct FrozenPolicy {
  std::string unit;  // the selected accelerator ("" = none: everything is deferred)
  int64_t classes = 0;
  std::vector<double> bias;  // per class
  ConfidenceScore score = ConfidenceScore::LogitMargin;
  double threshold = 0.0;          // accept when score >= threshold (+inf: never)
  double activation_energy = 0.0;  // J per query on the selected accelerator
  double fallback_energy = 4e-6;   // J per deferred query (0 when deferred queries abstain)
};

// The policy run_race froze (unit "" when it selected none).
[[nodiscard]] FrozenPolicy freeze(const RaceResult& r, const RaceOptions& options, int64_t classes);

enum class Route { Accept, Fallback, Abstain };
[[nodiscard]] const char* route_name(Route r);

struct Decision {
  Route route = Route::Fallback;
  int label = -1;      // the accelerator's answer (argmax of the corrected logits)
  double score = 0.0;  // its confidence
};

struct ControllerCounts {
  int64_t queries = 0, accepted = 0, fallback = 0, abstained = 0;
  double energy = 0.0;  // J, activation per query plus the fallback of each deferred one
  [[nodiscard]] double coverage() const;  // accepted / queries (0 before any query)
};

class Controller {
 public:
  // `abstain`: deferred queries abstain (no fallback energy) instead of going to the fallback.
  // UserError when the policy is inconsistent (classes < 2, bias size, negative energies).
  Controller(FrozenPolicy policy, bool abstain);

  // One query: `raw_logits` of the selected accelerator (classes values). UserError on a wrong
  // size or a non-finite logit.
  Decision decide(std::span<const float> raw_logits);

  [[nodiscard]] const ControllerCounts& counts() const { return counts_; }
  [[nodiscard]] const FrozenPolicy& policy() const { return policy_; }

 private:
  FrozenPolicy policy_;
  bool abstain_ = false;
  ControllerCounts counts_;
  std::vector<float> corrected_;
};

}  // namespace hetcim::select
