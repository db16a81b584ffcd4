// Profiling statistics (hand-computed) and the structure of a profile on a small graph.
#include "exec/profile.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

TEST(Profile, SummarizeByHand) {
  // 10 samples 1..10: median (5+6)/2, min 1, p90 = 9th smallest (ceil(0.9*10) = 9).
  const Stats s = summarize({10, 3, 1, 2, 9, 4, 8, 5, 7, 6});
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.p90, 9);
  const Stats t = summarize({4, 2, 3});  // odd: median 3; p90 = ceil(2.7) = 3rd = 4
  EXPECT_DOUBLE_EQ(t.median, 3);
  EXPECT_DOUBLE_EQ(t.p90, 4);
  EXPECT_THROW((void)summarize({}), UserError);
}

TEST(Profile, OneRowPerOperatorWithOrderedStatistics) {
  testing::Builder b;
  b.input("x", graph::DType::Float32, {1, 8, 16, 16});
  b.constant("w", testing::random_tensor(graph::DType::Float32, {8, 8, 3, 3}, 1));
  b.node("Conv", {"x", "w"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  b.node("Relu", {"c"}, {"r"});
  b.node("GlobalAveragePool", {"r"}, {"y"});
  const graph::Graph g = b.done({"y"});
  Engine e(g, {1});
  const ProfileResult r =
      profile(e, {{"x", testing::random_tensor(graph::DType::Float32, {1, 8, 16, 16}, 2)}}, {2, 7});
  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.runs, 7);
  EXPECT_EQ(r.warmup, 2);
  double sum = 0;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.ops[i].op.name, g.nodes[i].name);
    EXPECT_GT(r.ops[i].time.min, 0);
    EXPECT_LE(r.ops[i].time.min, r.ops[i].time.median);
    EXPECT_LE(r.ops[i].time.median, r.ops[i].time.p90);
    sum += r.ops[i].time.median;
  }
  EXPECT_DOUBLE_EQ(r.op_median_sum, sum);
  EXPECT_GT(r.model.median, 0);
  EXPECT_THROW((void)profile(e, {}, {0, 0}), UserError);
}

}  // namespace
}  // namespace hetcim::exec
