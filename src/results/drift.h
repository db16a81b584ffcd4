// What `hetcim analog drift` measured (api::AnalogDriftResult::report): accuracy of a model on one
// simulated chip read at increasing times after programming, without and with drift
// compensation, and with a frozen policy its coverage, accepted error rate and state check per
// time. Plain data; report/drift.h renders it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "select/state_check.h"

namespace hetcim::results {

struct DriftPolicyPoint {
  double coverage = 0;       // accepted / queries
  double accepted_risk = 0;  // errors among the accepted (NaN when none accepted)
  // The monitor of select/state_check.h on this state: label-free coverage and score shift (KS
  // against the uncompensated read at t0), the audit's anytime upper bound, and the rule.
  std::optional<select::StateCheck> check;
};

struct DriftPoint {
  std::string label;   // as given ("1h"), or "t0" for the read right after programming
  double seconds = 0;  // read time after programming (0: at t0)
  std::optional<double> accuracy, accuracy_compensated;        // [0, 1]
  std::optional<DriftPolicyPoint> policy, policy_compensated;  // with --policy
};

struct DriftReport {
  std::string chip;  // "data/chips.yaml:A3"
  double t0 = 20;    // s, the profile's drift_t0
  double nu = 0, nu_sd = 0;
  std::string dataset;  // "fashion-mnist test (10000 images)"
  std::vector<DriftPoint> points;
  // With a policy: its unit, threshold, and the certificate's upper bound made at t0 (NaN when the
  // policy file has none).
  std::string policy_file;
  double certificate_bound = 0, risk_target = 0;
  int64_t audit = 0;  // labelled audit size per state (0: none)
};

}  // namespace hetcim::results
