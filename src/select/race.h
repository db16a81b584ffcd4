// RACE-AIMC end to end (seed 002, Sec. III): from the logits of a pool of accelerators and of the
// clean digital model over one set of labelled rows to a frozen, certified policy.
//
//   1. split the rows (splits.h, split_seed) into hardware H, policy P, certificate C, test T;
//   2. per accelerator: the logit bias on H (eq. 6, optional), confidence scores (eq. 7 or an
//      alternative), the threshold fit on P (design risk r_d, delta_d);
//   3. select i* = argmax coverage_P / (E + C) (eq. 9); freeze i*, its bias and threshold;
//   4. certify the frozen policy once on C (risk r, delta_C);
//   5. describe it on T: every accelerator's forced accuracy, coverage and selective risk; the
//      hybrid system (accepted -> i*'s answer, deferred -> the digital fallback's answer), the
//      always-on ensemble (mean of all accelerators' corrected logits), the clean digital model;
//   6. energies per query (energy.h), the selective system at the test split's coverage (the
//      paper's definition) and, beside it, at the certificate split's.
//
// Inputs are plain logits, so the same function serves simulated chips (train::evaluate_race_cnn)
// and logits measured elsewhere. Deterministic: the same inputs and split_seed give the same
// result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "select/certificate.h"
#include "select/confidence.h"
#include "select/energy.h"
#include "select/splits.h"
#include "select/threshold.h"

namespace hetcim::select {

struct AcceleratorLogits {
  std::string name;
  double energy = 0.0;             // E_i, J per activation, >= 0
  std::vector<float> logits;       // rows x classes, row-major
  std::vector<float> test_logits;  // test_rows x classes (only with a separate test set)
};

// The calibration rows (H, P, C and, without a separate test set, T are drawn from them) and,
// optionally, a separate descriptive test set: the paper's protocol draws H/P/C from images held
// out of training and keeps the official test set for the test columns. With test_labels
// non-empty, T is exactly those rows and RaceOptions::splits.test must be 0.
struct PoolLogits {
  int64_t classes = 0;                  // >= 2
  std::vector<uint8_t> labels;          // rows, each < classes
  std::vector<float> reference_logits;  // clean digital model (z_0, and the fallback's answers)
  std::vector<AcceleratorLogits> accelerators;  // >= 1
  std::vector<uint8_t> test_labels;             // test_rows (empty: T drawn from the rows above)
  std::vector<float> test_reference_logits;     // test_rows x classes
};

struct RaceOptions {
  double risk = 0.10;               // deployment risk target r, (0, 1)
  double certificate_delta = 0.05;  // delta_C, (0, 1)
  double design_risk = 0.08;        // r_d, (0, 1); the paper fits with r_d < r
  double design_delta = 0.10;       // delta_d, (0, 1)
  ConfidenceScore score = ConfidenceScore::LogitMargin;
  bool bias_correction = true;  // eq. (6) on H (needs splits.hardware >= 1)
  SplitSizes splits;
  uint64_t split_seed = 1;
  EnergyModel energy;
};

struct AcceleratorResult {
  std::string name;
  double energy = 0.0;       // E_i
  std::vector<double> bias;  // per class (zeros without bias correction)
  ThresholdFit fit;          // on P
  double utility = 0.0;      // eq. (9), 1/J
  SelectiveStats test;       // on T at the fitted threshold (descriptive)
};

struct EnergyFigures {
  double selected_activation = 0.0;   // J; 0 when no accelerator is selected
  double ensemble = 0.0;              // J, all accelerators always on
  double activation_reduction = 0.0;  // 1 - selected_activation / ensemble
  // The paper's definition (Sec. V-D): the selected accelerator's coverage on the test split T
  // (nullopt when T is empty). Without a selection the coverage is 0 (F on every query).
  std::optional<SelectiveEnergy> at_test;
  // Beside it: the coverage on the certificate split C (the certified coverage).
  SelectiveEnergy at_certificate;
};

struct RaceResult {
  int64_t rows = 0;  // calibration rows + separate test rows
  // Row indices; a separate test set's rows follow the calibration rows (index rows_calibration
  // + i is test row i).
  Splits splits;
  std::vector<AcceleratorResult> accelerators;  // in pool order
  std::optional<size_t> selected;               // nullopt: no accelerator has a feasible threshold
  // Evaluated on C when an accelerator is selected; otherwise coverage 0, not certified.
  Certificate certificate;
  // On T (0 when T is empty):
  double digital_accuracy = 0.0;   // clean digital model
  double hybrid_accuracy = 0.0;    // accepted -> selected accelerator, deferred -> digital fallback
  double ensemble_accuracy = 0.0;  // mean corrected logits of the whole pool
  EnergyFigures energy;
};

// Checks the options on their own and the split sizes against `rows` calibration rows (UserError
// naming the field), so a caller can reject them before computing any logits. run_race calls it
// too. `separate_test`: T comes from a separate test set, so splits.test must be 0.
void validate(const RaceOptions& options, int64_t rows, bool separate_test = false);

// UserError naming the accelerator or the field when shapes disagree, a label is out of range,
// a logit is not finite, an option is out of range or the split sizes do not fit the rows.
[[nodiscard]] RaceResult run_race(const PoolLogits& pool, const RaceOptions& options);

}  // namespace hetcim::select
