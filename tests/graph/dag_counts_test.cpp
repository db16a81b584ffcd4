// graph/dag_counts.h against the closure-based figures of dag.h (brute force on small random DAGs,
// seeds logged) and against counts known by hand: a chain has every vertex a cut node and no
// parallel pair; k independent vertices have k(k-1)/2 pairs and no cut node.
#include "graph/dag_counts.h"

#include <gtest/gtest.h>

#include <random>

#include "graph/dag.h"

namespace hetcim::graph {
namespace {

TEST(DagCounts, ChainIsAllCutNodesAndNoParallelPair) {
  const size_t n = 100000;  // the closure would take 1.25 GB
  std::vector<std::pair<int, int>> e;
  for (int i = 0; i + 1 < static_cast<int>(n); ++i) e.emplace_back(i, i + 1);
  const Dag d = Dag::from_edges(n, e);
  EXPECT_EQ(cut_nodes(d).size(), n);
  EXPECT_EQ(count_parallel_pairs(d), 0);
}

TEST(DagCounts, IndependentVerticesAreAllParallel) {
  const size_t k = 5000;  // more than one block of 4096 columns
  const Dag d = Dag::from_edges(k, {});
  EXPECT_TRUE(cut_nodes(d).empty());
  EXPECT_EQ(count_parallel_pairs(d), static_cast<int64_t>(k * (k - 1) / 2));
}

TEST(DagCounts, Diamond) {
  // 0 -> {1, 2} -> 3: 0 and 3 are cut nodes; {1, 2} is the one parallel pair.
  const Dag d = Dag::from_edges(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  EXPECT_EQ(cut_nodes(d), (std::vector<int>{0, 3}));
  EXPECT_EQ(count_parallel_pairs(d), 1);
}

TEST(DagCounts, SkipEdgeKeepsTheCutNode) {
  // 0 -> 1 -> 2 and 0 -> 2: 1 is comparable with both although a path skips it.
  const Dag d = Dag::from_edges(3, {{0, 1}, {1, 2}, {0, 2}});
  EXPECT_EQ(cut_nodes(d), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(count_parallel_pairs(d), 0);
}

TEST(DagCounts, RandomDagsMatchTheClosure) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    const int n = 1 + static_cast<int>(rng() % (seed <= 250 ? 40 : 300));
    const double density = std::uniform_real_distribution<double>(0.0, 0.3)(rng);
    // A random permutation as the hidden order, so vertex numbers are not topological.
    std::vector<int> label(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) label[static_cast<size_t>(i)] = i;
    std::shuffle(label.begin(), label.end(), rng);
    std::vector<std::pair<int, int>> e;
    std::bernoulli_distribution edge(density);
    for (int u = 0; u < n; ++u)
      for (int v = u + 1; v < n; ++v)
        if ((v == u + 1 && rng() % 3 != 0) || edge(rng))
          e.emplace_back(label[static_cast<size_t>(u)], label[static_cast<size_t>(v)]);
    const Dag d = Dag::from_edges(static_cast<size_t>(n), e);
    const auto reach = transitive_closure(d);
    EXPECT_EQ(cut_nodes(d), cut_nodes(reach)) << "seed " << seed;
    EXPECT_EQ(count_parallel_pairs(d), static_cast<int64_t>(parallel_pairs(reach).size()))
        << "seed " << seed;
  }
}

}  // namespace
}  // namespace hetcim::graph
