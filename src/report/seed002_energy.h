// Seed 002's energy rows (Sec. V-D of Yousuf and Lueker-Boden) beside the published values, each
// with a reason computed from the numbers: which term of the model moves the value, by how much.
//
//   activation a  = E_A0 + C + c_ctrl + K c_class         (select/energy.h)
//   ensemble      = sum_i (E_i + C + c_ctrl + K c_class)
//   selective     = a + (1 - phi) F                       linear in the coverage phi
//   reduction     = 1 - selective / ensemble              linear in phi
//   break-even F  = (ensemble - a) / (1 - phi)            not linear in phi
//
// The paper's figures are means over its runs at each run's TEST coverage (Table II), so hetcim
// computes them the same way: per run, then the mean. The reason of each row says (1) whether the
// mean over runs can differ from the value at the mean coverage (only for the non-linear
// break-even), (2) what the certified coverage would give instead, and (3) whether ours equals
// the paper's value at its printed precision, and if not, which of those two terms accounts for
// the difference, or that neither does.
#pragma once

#include <string>
#include <vector>

#include "formats/paper_data.h"
#include "report/reproduce.h"

namespace hetcim::report {

struct Seed002EnergyInput {
  double activation = 0;  // J, the selected accelerator (A0) switched on
  double ensemble = 0;    // J, every accelerator of the pool
  double fallback = 0;    // F, J per deferred query
  // Per run, in [0, 1]: the test-split coverage (the paper's definition) and the certified
  // (certificate-split) coverage of the same runs.
  std::vector<double> test_coverage, certified_coverage;
  std::string coverage_source;  // where the coverages come from
  // Terms of `activation` for its reason (J): E of the selected profile, C, c_ctrl, c_class, K.
  double accelerator = 0, communication = 0, controller = 0, per_class = 0;
  int classes = 0;
};

// One compared figure, in its printed unit (uJ or %).
struct EnergyFigure {
  std::string cell;
  double ours = 0;       // the mean over runs at the test coverage (the paper's way)
  double at_mean = 0;    // at the mean test coverage (= ours when linear in phi)
  double certified = 0;  // the mean over runs at the certified coverage
  bool uses_coverage = false;
  bool linear = true;  // in phi
  std::string formula;
  std::string unit;  // "uJ" or "%"
  double paper = 0;
  std::string paper_text;  // as printed
  int paper_decimals = 0;  // printed digits after the point
};

// The six figures of Sec. V-D from `in` and the paper's printed values (UserError from `paper`
// when one is missing; UserError when the coverage lists are empty, of different lengths, or
// outside [0, 1]).
[[nodiscard]] std::vector<EnergyFigure> seed002_energy_figures(const Seed002EnergyInput& in,
                                                               const formats::PaperData& paper);

// The reason text of a figure, generated from its numbers only.
[[nodiscard]] std::string energy_reason(const EnergyFigure& f, const Seed002EnergyInput& in);

// The figures as difference rows ("energy", cell, ours, paper, reason).
[[nodiscard]] std::vector<Difference> seed002_energy_rows(const Seed002EnergyInput& in,
                                                          const formats::PaperData& paper);

// Seed002EnergyInput's coverages from the paper's Table II ("run 1".."run N": test_coverage and
// cert_coverage, in %); UserError naming the file when the table has no such rows.
void coverages_from_table2(const formats::PaperData& paper, Seed002EnergyInput& in);

}  // namespace hetcim::report
