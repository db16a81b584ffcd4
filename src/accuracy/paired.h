// The accuracy drop of a noisy run against the digital run on the same images, with an exact
// interval. Per image the pair (digital right?, chip right?) is one of four outcomes; only the
// discordant pairs move the accuracy: b = digital right and chip wrong, c = digital wrong and chip
// right, drop = (b - c) / n. Conditional on m = b + c, b ~ Binomial(m, pi) with
// drop = (m / n)(2 pi - 1) (the exact McNemar setting), so the two-sided Clopper-Pearson interval
// of pi at level 1 - alpha (Boost.Math, select/clopper_pearson.h) maps to an interval of the drop.
// It is exact conditional on m (the number of discordant images is taken as given); with m = 0
// it is the single point 0. The drop counts the images whose outcome the chip changes on this set
// (fixed chip and read seeds): it is not an interval over other chips or other read noise.
#pragma once

#include <cstdint>
#include <vector>

namespace hetcim::accuracy {

struct PairedDrop {
  int64_t n = 0;
  int64_t digital_correct = 0, chip_correct = 0;
  int64_t b = 0;  // digital right, chip wrong
  int64_t c = 0;  // digital wrong, chip right
  double level = 0.95;
  double lo = 0.0, hi = 0.0;  // interval of the drop at `level`
  [[nodiscard]] double drop() const { return n ? static_cast<double>(b - c) / n : 0.0; }
  [[nodiscard]] double digital_accuracy() const { return n ? double(digital_correct) / n : 0.0; }
  [[nodiscard]] double chip_accuracy() const { return n ? double(chip_correct) / n : 0.0; }
};

// Top-1 of each row of `logits` (rows x classes; ties: the first).
[[nodiscard]] std::vector<int64_t> top1(const std::vector<float>& logits, int64_t classes);

// UserError when the sizes disagree or level is outside (0, 1).
[[nodiscard]] PairedDrop paired_drop(const std::vector<int64_t>& digital,
                                     const std::vector<int64_t>& chip,
                                     const std::vector<int64_t>& labels, double level);

// ||chip - digital||_2 / ||digital||_2 over all logits (0 when both are 0).
[[nodiscard]] double relative_error(const std::vector<float>& digital,
                                    const std::vector<float>& chip);

}  // namespace hetcim::accuracy
