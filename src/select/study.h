// Seed 002's experiments as replays of cached logits (Sec. V): the same protocol over several
// independent runs (one pool of logits per run: a trained model with its chips), and the paper's
// ablations on those same logits, each summarized as mean +- sample sd over the runs:
//
//   base          the protocol as configured (Table II, Fig. 2a)
//   design risk   r_d swept (Fig. 2b): test coverage / risk and how many certificates pass
//   availability  the first 1, 2, 3 units of the pool made unavailable (Fig. 2c: drop A0; A0-A1;
//                 A0-A2)
//   scores        the five confidence scores (Table III)
//   bias          eq. (6) on and off
//   fallback      the selective energy as the fallback cost F is swept (Fig. 2d), with the
//                 break-even band (mean +- sd of the per-run break-even F)
//
// Pure statistics on logits: no simulation, so a whole study replays in well under a second per
// run. Deterministic: run i uses split seed options.split_seed + i.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "select/race.h"
#include "select/summary.h"

namespace hetcim::select {

// The figures of one run that the tables report.
struct RunFigures {
  std::string selected;  // unit name, "" when none
  bool certified = false;
  double certified_coverage = 0.0, certified_risk = 0.0, upper_bound = 1.0;  // on C
  double test_coverage = 0.0, test_risk = 0.0;                               // on T
  double digital_accuracy = 0.0, forced_accuracy = 0.0, hybrid_accuracy = 0.0,
         ensemble_accuracy = 0.0;                           // on T
  double selected_activation = 0.0, ensemble_energy = 0.0;  // J
  // The paper's definition (test coverage) and the certificate variant; NaN without T.
  double selective_energy = 0.0, reduction = 0.0, break_even = 0.0;
  double selective_energy_certificate = 0.0, reduction_certificate = 0.0,
         break_even_certificate = 0.0;
};

[[nodiscard]] RunFigures figures_of(const RaceResult& r);

// One configuration replayed over every run.
struct Variant {
  std::string label;
  std::vector<RunFigures> runs;
  int passes = 0;                                            // certificates passing
  std::vector<std::pair<std::string, int>> selected_counts;  // unit -> runs selecting it
  // Mean +- sd over the runs of one field (NaN values, e.g. an infinite break-even, left out).
  [[nodiscard]] MeanSd over(double RunFigures::*field) const;
  // Appends one run and counts its certificate and its selected unit.
  void add(RunFigures f);
};

struct FallbackPoint {
  double fallback = 0.0;  // F, J
  MeanSd selective;       // J, at the test coverage of each run
  double ensemble = 0.0;  // J (mean over runs)
};

struct StudyOptions {
  RaceOptions race;  // the base protocol; run i uses split_seed + i
  std::vector<double> design_risks = {0.05, 0.06, 0.07, 0.08, 0.09, 0.10};
  int availability_drops = 3;  // drop the first 1..n units of the pool (fewer if the pool is small)
  std::vector<double> fallback_energies;  // J; empty: 0, 1, ..., 30 uJ
};

struct StudyResult {
  Variant base;
  std::vector<Variant> design_risk, availability, scores, bias;
  std::vector<FallbackPoint> fallback;
  MeanSd break_even;  // J, per-run break-even at the test coverage
};

// `runs`: one pool per run, all with the same units in the same order. UserError when there is
// no run, the pools disagree on their units, or an option is out of range.
[[nodiscard]] StudyResult run_study(const std::vector<PoolLogits>& runs,
                                    const StudyOptions& options);

// One variant: the protocol with `options` on every run (split seed + i).
[[nodiscard]] Variant replay(const std::vector<PoolLogits>& runs, const RaceOptions& options,
                             const std::string& label);

}  // namespace hetcim::select
