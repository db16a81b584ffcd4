#include "accuracy/paired.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/error.h"

namespace hetcim::accuracy {
namespace {

// n images; the first `b` digital right / chip wrong, the next `c` digital wrong / chip right,
// the next `both` right on both, the rest wrong on both (label 0, wrong = class 1).
PairedDrop make(int64_t n, int64_t b, int64_t c, int64_t both, double level = 0.95) {
  std::vector<int64_t> labels(static_cast<size_t>(n), 0), dig(labels.size(), 1),
      chip(labels.size(), 1);
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    if (i < b) {
      dig[k] = 0;
    } else if (i < b + c) {
      chip[k] = 0;
    } else if (i < b + c + both) {
      dig[k] = chip[k] = 0;
    }
  }
  return paired_drop(dig, chip, labels, level);
}

TEST(PairedDrop, CountsAndDrop) {
  const PairedDrop d = make(100, 7, 2, 60);
  EXPECT_EQ(d.b, 7);
  EXPECT_EQ(d.c, 2);
  EXPECT_EQ(d.digital_correct, 67);
  EXPECT_EQ(d.chip_correct, 62);
  EXPECT_DOUBLE_EQ(d.drop(), 0.05);
  EXPECT_NEAR(d.digital_accuracy() - d.chip_accuracy(), d.drop(), 1e-15);
  EXPECT_LE(d.lo, d.drop());
  EXPECT_GE(d.hi, d.drop());
}

// All m discordant images go one way (c = 0): the Clopper-Pearson interval of pi is
// [(alpha/2)^(1/m), 1] in closed form, so the drop's is [(m/n)(2 (alpha/2)^(1/m) - 1), m/n].
TEST(PairedDrop, ClosedFormIntervalWhenEveryDiscordantImageIsAChipError) {
  const PairedDrop d = make(200, 4, 0, 150);
  const double pi_lo = std::pow(0.025, 1.0 / 4.0);
  EXPECT_NEAR(d.lo, (4.0 / 200.0) * (2 * pi_lo - 1), 1e-12);
  EXPECT_NEAR(d.hi, 4.0 / 200.0, 1e-12);
  // Symmetric case: c = m, b = 0 mirrors it.
  const PairedDrop e = make(200, 0, 4, 150);
  EXPECT_NEAR(e.hi, -d.lo, 1e-12);
  EXPECT_NEAR(e.lo, -d.hi, 1e-12);
}

TEST(PairedDrop, NoDiscordantImagesIsTheSinglePointZero) {
  const PairedDrop d = make(50, 0, 0, 30);
  EXPECT_EQ(d.drop(), 0.0);
  EXPECT_EQ(d.lo, 0.0);
  EXPECT_EQ(d.hi, 0.0);
}

TEST(PairedDrop, HigherLevelWidensTheInterval) {
  const PairedDrop a = make(500, 20, 8, 300, 0.9), b = make(500, 20, 8, 300, 0.99);
  EXPECT_LT(b.lo, a.lo);
  EXPECT_GT(b.hi, a.hi);
}

TEST(PairedDrop, RejectsMismatchedSizesAndLevels) {
  EXPECT_THROW((void)paired_drop({0}, {0, 1}, {0}, 0.95), UserError);
  EXPECT_THROW((void)paired_drop({0}, {0}, {0}, 1.0), UserError);
}

TEST(Top1AndError, HandComputed) {
  EXPECT_EQ(top1({0.1f, 0.9f, 0.3f, 2.0f, -1.0f, 2.0f}, 3), (std::vector<int64_t>{1, 0}));
  EXPECT_DOUBLE_EQ(relative_error({3.0f, 4.0f}, {3.0f, 4.0f}), 0.0);
  EXPECT_DOUBLE_EQ(relative_error({3.0f, 4.0f}, {0.0f, 4.0f}), 3.0 / 5.0);
  EXPECT_THROW((void)top1({1.0f, 2.0f, 3.0f}, 2), UserError);
}

}  // namespace
}  // namespace hetcim::accuracy
