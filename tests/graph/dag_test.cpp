#include "graph/dag.h"

#include <gtest/gtest.h>

#include <random>

#include "util/error.h"

namespace hetcim::graph {
namespace {

// Brute-force reachability by DFS from every vertex.
bool reaches(const Dag& d, int u, int v) {
  std::vector<int> stack = {u};
  std::vector<bool> seen(d.n, false);
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    for (int y : d.succ[static_cast<size_t>(x)]) {
      if (y == v) return true;
      if (!seen[static_cast<size_t>(y)]) {
        seen[static_cast<size_t>(y)] = true;
        stack.push_back(y);
      }
    }
  }
  return false;
}

TEST(Dag, DiamondHasOneParallelPairAndTwoCuts) {
  // 0 -> {1, 2} -> 3
  Dag d = Dag::from_edges(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {0, 1}});
  EXPECT_EQ(d.edges.size(), 4u);  // duplicate removed
  auto reach = transitive_closure(d);
  EXPECT_EQ(parallel_pairs(reach), (std::vector<std::pair<int, int>>{{1, 2}}));
  EXPECT_EQ(cut_nodes(reach), (std::vector<int>{0, 3}));
}

TEST(Dag, RejectsCyclesAndBadVertices) {
  EXPECT_THROW((void)Dag::from_edges(2, {{0, 1}, {1, 0}}), UserError);
  EXPECT_THROW((void)Dag::from_edges(2, {{0, 2}}), UserError);
  EXPECT_THROW((void)Dag::from_edges(2, {{1, 1}}), UserError);
}

TEST(Dag, ClosureMatchesBruteForceOnRandomDags) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    std::mt19937 rng(seed);
    const int n = 2 + static_cast<int>(rng() % 70);  // crosses the 64-bit word boundary
    std::vector<std::pair<int, int>> e;
    for (int u = 0; u < n; ++u)
      for (int v = u + 1; v < n; ++v)
        if (rng() % 10 == 0) e.emplace_back(u, v);
    Dag d = Dag::from_edges(static_cast<size_t>(n), e);
    auto reach = transitive_closure(d);
    size_t comparable_pairs = 0;
    for (int u = 0; u < n; ++u)
      for (int v = 0; v < n; ++v) {
        ASSERT_EQ(reach[static_cast<size_t>(u)].test(static_cast<size_t>(v)), reaches(d, u, v))
            << "seed " << seed << " u " << u << " v " << v;
        if (u < v && (reaches(d, u, v) || reaches(d, v, u))) ++comparable_pairs;
      }
    const size_t all_pairs = static_cast<size_t>(n) * static_cast<size_t>(n - 1) / 2;
    EXPECT_EQ(parallel_pairs(reach).size(), all_pairs - comparable_pairs) << "seed " << seed;
  }
}

}  // namespace
}  // namespace hetcim::graph
