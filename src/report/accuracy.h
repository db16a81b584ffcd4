// Renderings of the accuracy analyses (issue 13): the sensitivity table with its additivity
// checks, a plan's predicted vs measured drop, and the latency x energy x accuracy-drop front.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "accuracy/sensitivity.h"
#include "partition/accuracy_front.h"
#include "partition/problem.h"
#include "util/provenance.h"

namespace hetcim::report {

[[nodiscard]] std::string sensitivity_text(const accuracy::Sensitivity& s, const std::string& model,
                                           const std::string& chip, const Provenance& provenance);

// "accuracy: predicted drop ... (additive), measured ... [lo, hi] at 95 % on SET".
[[nodiscard]] std::string plan_accuracy_text(const accuracy::PlanAccuracy& a,
                                             const std::string& set, double budget);
[[nodiscard]] nlohmann::json plan_accuracy_json(const accuracy::PlanAccuracy& a,
                                                const std::string& set, double budget);

// The verification loop of a budgeted plan (hetcim partition): steps, result, what it guarantees.
[[nodiscard]] std::string tightening_text(const accuracy::Tightening& t, const std::string& set);
[[nodiscard]] std::string tightening_guarantee(const accuracy::Tightening& t,
                                               const std::string& set);
[[nodiscard]] nlohmann::json tightening_json(const accuracy::Tightening& t, const std::string& set);

// The returned plan on held-out inputs (hetcim partition --eval-samples): its measured drop and
// interval there, and whether the interval's upper end (and the drop itself) is within `budget`
// (< 0: none).
[[nodiscard]] std::string heldout_accuracy_text(const accuracy::PlanAccuracy& a,
                                                const std::string& set, double budget);
[[nodiscard]] nlohmann::json heldout_accuracy_json(const accuracy::PlanAccuracy& a,
                                                   const std::string& set, double budget);

// `accuracy`: per point, or empty when the points were not re-evaluated.
[[nodiscard]] std::string front3d_text(const std::string& title, const partition::Front3d& f,
                                       const std::vector<accuracy::PlanAccuracy>& accuracy,
                                       const std::string& set, const Provenance& provenance);
[[nodiscard]] nlohmann::json front3d_json(const std::string& title, const partition::Problem& p,
                                          const partition::Front3d& f,
                                          const std::vector<accuracy::PlanAccuracy>& accuracy,
                                          const std::string& set, const Provenance& provenance);

}  // namespace hetcim::report
