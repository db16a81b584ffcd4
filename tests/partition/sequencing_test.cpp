#include "partition/sequencing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "partition/jackson.h"

namespace hetcim::partition {
namespace {

TEST(Jackson, HandComputedPreemptiveBound) {
  // Job A (r 0, p 4, q 1), job B (r 1, p 2, q 5): at t = 1 B preempts A (larger tail), runs
  // [1,3] -> 3 + 5 = 8; A resumes [3,6] -> 6 + 1 = 7. Bound 8.
  std::vector<JacksonJob> jobs = {{0, 4, 1}, {1, 2, 5}};
  EXPECT_DOUBLE_EQ(jackson_preemptive_bound(jobs), 8.0);
  std::vector<JacksonJob> none;
  EXPECT_DOUBLE_EQ(jackson_preemptive_bound(none), 0.0);
}

// Makespan of a host order by direct simulation (independent of the search).
double replay(const SeqInput& in, const std::vector<int>& order) {
  const size_t n = in.duration.size();
  std::vector<double> fin(n, 0.0);
  std::vector<int> pos(n, -1);
  for (size_t i = 0; i < order.size(); ++i) pos[static_cast<size_t>(order[i])] = static_cast<int>(i);
  // Jobs are topologically numbered, but a host job must also follow the previous host job.
  std::vector<double> host_finish(order.size(), 0.0);
  std::vector<char> done(n, 0);
  double makespan = 0.0;
  for (size_t guard = 0; guard < n * n + 1; ++guard) {
    bool progress = false;
    for (size_t v = 0; v < n; ++v) {
      if (done[v]) continue;
      double ready = 0.0;
      bool ok = true;
      for (const SeqEdge& e : in.edges)
        if (static_cast<size_t>(e.to) == v) {
          if (!done[static_cast<size_t>(e.from)]) ok = false;
          else ready = std::max(ready, fin[static_cast<size_t>(e.from)] + e.delay);
        }
      if (in.on_host[v]) {
        const int i = pos[v];
        if (i > 0) {
          if (!done[static_cast<size_t>(order[static_cast<size_t>(i - 1)])]) ok = false;
          else ready = std::max(ready, fin[static_cast<size_t>(order[static_cast<size_t>(i - 1)])]);
        }
      }
      if (!ok) continue;
      fin[v] = ready + in.duration[v];
      makespan = std::max(makespan, fin[v]);
      done[v] = 1;
      progress = true;
    }
    if (!progress) break;
  }
  for (char d : done)
    if (!d) return std::numeric_limits<double>::infinity();  // order violates precedence
  return makespan;
}

SeqInput random_instance(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  SeqInput in;
  const int n = uni(2, 8);
  for (int v = 0; v < n; ++v) {
    in.duration.push_back(uni(0, 9));
    in.on_host.push_back(uni(0, 3) != 0 ? 1 : 0);
  }
  for (int v = 1; v < n; ++v)
    for (int u = 0; u < v; ++u)
      if (uni(0, 99) < 30) in.edges.push_back({u, v, static_cast<double>(uni(0, 6))});
  return in;
}

TEST(Sequencing, MatchesEveryHostOrderOnRandomInstances) {
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const SeqInput in = random_instance(seed);
    std::vector<int> host;
    for (size_t v = 0; v < in.on_host.size(); ++v)
      if (in.on_host[v]) host.push_back(static_cast<int>(v));
    double best = std::numeric_limits<double>::infinity();
    do {
      best = std::min(best, replay(in, host));
    } while (std::next_permutation(host.begin(), host.end()));
    const SeqOutput r = sequence_host(in);
    ASSERT_TRUE(r.found) << "seed " << seed;
    EXPECT_TRUE(r.proven) << "seed " << seed;
    EXPECT_DOUBLE_EQ(r.makespan, best) << "seed " << seed;
    EXPECT_DOUBLE_EQ(replay(in, r.host_order), best) << "seed " << seed;
    // The cutoff is strict: nothing below the optimum, the optimum just above it.
    SeqOptions at;
    at.cutoff = best;
    EXPECT_FALSE(sequence_host(in, at).found) << "seed " << seed;
    SeqOptions above;
    above.cutoff = best + 0.5;
    const SeqOutput r2 = sequence_host(in, above);
    EXPECT_TRUE(r2.found) << "seed " << seed;
    EXPECT_DOUBLE_EQ(r2.makespan, best) << "seed " << seed;
  }
}

TEST(Sequencing, NodeLimitStopsWithoutProof) {
  // Eight independent host jobs released by accelerator predecessors of different lengths.
  SeqInput in;
  for (int i = 0; i < 8; ++i) {
    in.duration.push_back(1 + i % 3);
    in.on_host.push_back(0);
  }
  for (int i = 0; i < 8; ++i) {
    in.duration.push_back(2 + (i * 5) % 7);
    in.on_host.push_back(1);
    in.edges.push_back({i, 8 + i, 0.0});
  }
  SeqOptions opt;
  opt.max_nodes = 2;
  const SeqOutput r = sequence_host(in, opt);
  EXPECT_FALSE(r.proven);
  EXPECT_EQ(r.nodes, 3);
}

}  // namespace
}  // namespace hetcim::partition
