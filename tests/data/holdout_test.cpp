// The seeded held-out subset: disjoint and complete, the requested size, the same bytes for the
// same seed, roughly uniform (each index held out with probability n / count), and gather copies
// the right images.
#include "data/holdout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::data {
namespace {

TEST(Holdout, DisjointCompleteAndSeeded) {
  const Holdout h = make_holdout(1000, 300, 7);
  ASSERT_EQ(h.held_out.size(), 300u);
  ASSERT_EQ(h.train.size(), 700u);
  std::vector<int64_t> all = h.held_out;
  all.insert(all.end(), h.train.begin(), h.train.end());
  std::sort(all.begin(), all.end());
  for (int64_t i = 0; i < 1000; ++i) EXPECT_EQ(all[static_cast<size_t>(i)], i);
  EXPECT_TRUE(std::is_sorted(h.held_out.begin(), h.held_out.end()));
  EXPECT_EQ(make_holdout(1000, 300, 7).held_out, h.held_out);
  EXPECT_NE(make_holdout(1000, 300, 8).held_out, h.held_out);
  EXPECT_TRUE(make_holdout(10, 0, 1).held_out.empty());
  EXPECT_EQ(make_holdout(10, 10, 1).train.size(), 0u);
  EXPECT_THROW((void)make_holdout(10, 11, 1), UserError);
  EXPECT_THROW((void)make_holdout(10, -1, 1), UserError);
}

TEST(Holdout, EachIndexIsHeldOutWithProbabilityNOverCount) {
  // 2000 seeds, 10 of 40 held out: each index is held out Binomial(2000, 1/4) times, mean 500,
  // sd sqrt(2000 x 1/4 x 3/4) = 19.4; every count lies within 5 sd (a 1-in-10^5 event each).
  std::vector<int> hits(40, 0);
  for (uint64_t seed = 0; seed < 2000; ++seed)
    for (int64_t i : make_holdout(40, 10, seed).held_out) ++hits[static_cast<size_t>(i)];
  for (int c : hits) EXPECT_LT(std::abs(c - 500), 5 * 19.4) << c;
}

TEST(Holdout, GatherCopiesImagesAndLabels) {
  ImageDataset d;
  d.name = "toy";
  d.count = 4;
  d.channels = 1;
  d.height = d.width = 2;
  d.classes = 4;
  for (int i = 0; i < 16; ++i) d.images.push_back(static_cast<uint8_t>(i));
  d.labels = {0, 1, 2, 3};
  const ImageDataset g = gather(d, {3, 1}, "toy/held-out");
  EXPECT_EQ(g.name, "toy/held-out");
  EXPECT_EQ(g.count, 2);
  EXPECT_EQ(g.labels, (std::vector<uint8_t>{3, 1}));
  EXPECT_EQ(g.images, (std::vector<uint8_t>{12, 13, 14, 15, 4, 5, 6, 7}));
  EXPECT_THROW((void)gather(d, {4}, "x"), UserError);
}

}  // namespace
}  // namespace hetcim::data
