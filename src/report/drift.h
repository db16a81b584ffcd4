// Renderings of `hetcim analog drift` (beyond seed 002): accuracy of a model on one simulated chip
// read at increasing times after programming (xbar's drift model, chip_profile.h), without and
// with global drift compensation, and, with a frozen policy, the selective coverage and the
// accepted error rate at each time beside the certificate's bound made at t0. A table, JSON and
// one figure in the shared style (report/figure_style.h), each with its provenance.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/gnuplot.h"
#include "select/state_check.h"
#include "util/provenance.h"

namespace hetcim::report {

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

[[nodiscard]] std::string drift_text(const DriftReport& r, const Provenance& provenance);
[[nodiscard]] nlohmann::json drift_json(const DriftReport& r, const Provenance& provenance);
// Stages <dir>/<name>.{svg,pdf,png}: accuracy vs time (log axis), and with a policy a second panel
// of coverage and accepted error rate vs time with the certificate's bound.
Figure write_drift_figure(OutputSet& out, const std::string& dir, const std::string& name,
                          const DriftReport& r, const Provenance& provenance);

}  // namespace hetcim::report
