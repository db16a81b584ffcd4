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

// Jackson's preemptive schedule simulated in unit time steps (integer data): at every step the
// released unfinished job with the largest tail runs for one unit.
double jackson_by_unit_steps(const std::vector<JacksonJob>& jobs) {
  std::vector<double> left;
  for (const JacksonJob& j : jobs) left.push_back(j.duration);
  double bound = 0.0;
  for (int t = 0;; ++t) {
    int pick = -1;
    bool pending = false;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (left[i] <= 0.0) continue;
      pending = true;
      if (jobs[i].head <= t && (pick < 0 || jobs[i].tail > jobs[static_cast<size_t>(pick)].tail))
        pick = static_cast<int>(i);
    }
    if (!pending) return bound;
    if (pick < 0) continue;
    const auto p = static_cast<size_t>(pick);
    left[p] -= 1.0;
    if (left[p] <= 0.0) bound = std::max(bound, t + 1 + jobs[p].tail);
  }
}

TEST(Jackson, EqualsUnitStepSimulationOnRandomJobs) {
  std::mt19937_64 rng(7);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  JacksonBound reused;  // buffers kept between calls
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<JacksonJob> jobs;
    const int m = uni(1, trial < 250 ? 12 : 140);  // also more than 64 jobs (two words)
    for (int i = 0; i < m; ++i)
      jobs.push_back({static_cast<double>(uni(0, 30)), static_cast<double>(uni(1, 9)),
                      static_cast<double>(uni(0, 20))});
    const double want = jackson_by_unit_steps(jobs);
    reused.clear();
    for (const JacksonJob& j : jobs) reused.add(j.head, j.duration, j.tail);
    EXPECT_DOUBLE_EQ(reused.value(), want) << "trial " << trial;
    // With a cutoff: the exact bound below it, a value at or above it otherwise.
    reused.clear();
    for (const JacksonJob& j : jobs) reused.add(j.head, j.duration, j.tail);
    const double cut = want - 3.0;
    EXPECT_GE(reused.value(cut), cut) << "trial " << trial;
    EXPECT_LE(reused.value(want + 1.0), want) << "trial " << trial;
  }
}

// Makespan of one job order per machine by direct simulation (independent of the search):
// infinity when the orders deadlock.
double replay(const SeqInput& in, const std::vector<std::vector<int>>& orders) {
  const size_t n = in.duration.size();
  std::vector<double> fin(n, 0.0);
  std::vector<int> prev(n, -1);  // the job before v on its machine
  for (const std::vector<int>& order : orders)
    for (size_t i = 1; i < order.size(); ++i) prev[static_cast<size_t>(order[i])] = order[i - 1];
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
          if (!done[static_cast<size_t>(e.from)])
            ok = false;
          else
            ready = std::max(ready, fin[static_cast<size_t>(e.from)] + e.delay);
        }
      if (const int u = prev[v]; u >= 0) {
        if (!done[static_cast<size_t>(u)])
          ok = false;
        else
          ready = std::max(ready, fin[static_cast<size_t>(u)]);
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
    if (!d) return std::numeric_limits<double>::infinity();
  return makespan;
}

// Random jobs; `machines` = 1: host jobs and free jobs; 2: also bus jobs.
SeqInput random_instance(uint64_t seed, int machines) {
  std::mt19937_64 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  SeqInput in;
  const int n = uni(2, 8);
  for (int v = 0; v < n; ++v) {
    in.duration.push_back(uni(0, 9));
    const int r = uni(0, 3);
    in.machine.push_back(r == 0                    ? kNoMachine
                         : machines == 2 && r == 3 ? kBusMachine
                                                   : kHostMachine);
  }
  for (int v = 1; v < n; ++v)
    for (int u = 0; u < v; ++u)
      if (uni(0, 99) < 30) in.edges.push_back({u, v, static_cast<double>(uni(0, 6))});
  return in;
}

std::vector<int> jobs_on(const SeqInput& in, int8_t machine) {
  std::vector<int> out;
  for (size_t v = 0; v < in.machine.size(); ++v)
    if (in.machine[v] == machine) out.push_back(static_cast<int>(v));
  return out;
}

// The search on `in` proves `best` (the brute force's optimum) with orders that replay to it, and
// its cutoff is strict: nothing found at the optimum, the optimum found just above it.
void expect_search_finds(const SeqInput& in, double best, uint64_t seed) {
  const SeqOutput r = sequence(in);
  ASSERT_TRUE(r.found) << "seed " << seed;
  EXPECT_TRUE(r.proven) << "seed " << seed;
  EXPECT_DOUBLE_EQ(r.makespan, best) << "seed " << seed;
  ASSERT_EQ(r.orders.size(), static_cast<size_t>(in.machines)) << "seed " << seed;
  EXPECT_DOUBLE_EQ(replay(in, r.orders), best) << "seed " << seed;
  EXPECT_LE(r.root_bound, best) << "seed " << seed;
  SeqOptions at;
  at.cutoff = best;
  EXPECT_FALSE(sequence(in, at).found) << "seed " << seed;
  SeqOptions above;
  above.cutoff = best + 0.5;
  const SeqOutput r2 = sequence(in, above);
  EXPECT_TRUE(r2.found) << "seed " << seed;
  EXPECT_DOUBLE_EQ(r2.makespan, best) << "seed " << seed;
}

void expect_matches_every_order(uint64_t seed, int machines) {
  const SeqInput in = random_instance(seed, machines);
  std::vector<int> host = jobs_on(in, kHostMachine);
  double best = std::numeric_limits<double>::infinity();
  do {
    std::vector<int> bus = jobs_on(in, kBusMachine);
    do {
      best = std::min(best, replay(in, {host, bus}));
    } while (std::next_permutation(bus.begin(), bus.end()));
  } while (std::next_permutation(host.begin(), host.end()));
  expect_search_finds(in, best, seed);
}

TEST(Sequencing, MatchesEveryHostOrderOnRandomInstances) {
  for (uint64_t seed = 1; seed <= 400; ++seed) expect_matches_every_order(seed, 1);
}

TEST(Sequencing, MatchesEveryHostAndBusOrderOnRandomInstances) {
  for (uint64_t seed = 1; seed <= 400; ++seed) expect_matches_every_order(seed, 2);
}

// More machines (the K-engine solver's one-at-a-time engines, exclusive groups and serial
// links): 3 or 4 machines, up to 9 jobs, some free; the optimum over every combination of one
// order per machine (each replayed semi-actively), against the search, also at the cutoffs.
double best_over_orders(const SeqInput& in, std::vector<std::vector<int>>& orders, size_t m) {
  if (m == orders.size()) return replay(in, orders);
  double best = std::numeric_limits<double>::infinity();
  std::sort(orders[m].begin(), orders[m].end());
  do {
    best = std::min(best, best_over_orders(in, orders, m + 1));
  } while (std::next_permutation(orders[m].begin(), orders[m].end()));
  return best;
}

TEST(Sequencing, MatchesEveryOrderOnRandomInstancesOfThreeAndFourMachines) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    const auto uni = [&](int lo, int hi) {
      return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    SeqInput in;
    in.machines = uni(3, 4);
    const int n = uni(2, 9);
    for (int v = 0; v < n; ++v) {
      in.duration.push_back(uni(0, 9));
      in.machine.push_back(
          static_cast<int8_t>(uni(0, 4) == 0 ? kNoMachine : uni(0, in.machines - 1)));
    }
    for (int v = 1; v < n; ++v)
      for (int u = 0; u < v; ++u)
        if (uni(0, 99) < 30) in.edges.push_back({u, v, static_cast<double>(uni(0, 6))});
    std::vector<std::vector<int>> orders;
    for (int m = 0; m < in.machines; ++m) orders.push_back(jobs_on(in, static_cast<int8_t>(m)));
    expect_search_finds(in, best_over_orders(in, orders, 0), seed);
  }
}

// A cache answers a repeated input without search, and its answers equal a fresh search's at
// every cutoff: below, at and above the optimum, in any order of calls.
TEST(Sequencing, CacheAnswersEqualAFreshSearch) {
  int64_t hits = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const SeqInput in = random_instance(seed, seed % 2 == 0 ? 2 : 1);
    const double best = sequence(in).makespan;
    SeqCache cache;
    for (double cutoff : {best - 1.0, best, std::numeric_limits<double>::infinity(), best - 0.5,
                          best + 0.5, best}) {
      SeqOptions fresh;
      fresh.cutoff = cutoff;
      const SeqOutput want = sequence(in, fresh);
      SeqOptions cached = fresh;
      cached.cache = &cache;
      const SeqOutput got = sequence(in, cached);
      ASSERT_EQ(got.found, want.found) << "seed " << seed << " cutoff " << cutoff;
      EXPECT_TRUE(got.proven);
      if (!want.found) continue;
      EXPECT_DOUBLE_EQ(got.makespan, best) << "seed " << seed;
      EXPECT_DOUBLE_EQ(replay(in, got.orders), best) << "seed " << seed;
    }
    hits += cache.hits();
  }
  // Random instances this small are searched in fewer nodes than the cache keeps.
  EXPECT_EQ(hits, 0);
}

// 16 host jobs and 8 free ones (every third job) on a random DAG with delayed edges (delays idle
// the host, which Jackson's bound does not see): searches large enough for the cache to keep.
constexpr int kDelayedJobs = 24;
SeqInput delayed_instance(std::mt19937_64& rng) {
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  SeqInput in;
  for (int v = 0; v < kDelayedJobs; ++v) {
    in.duration.push_back(uni(1, 20));
    in.machine.push_back(v % 3 == 0 ? kNoMachine : kHostMachine);
  }
  for (int v = 1; v < kDelayedJobs; ++v)
    for (int u = std::max(0, v - 6); u < v; ++u)
      if (uni(0, 99) < 25) in.edges.push_back({u, v, static_cast<double>(uni(0, 15))});
  return in;
}

// The same with instances large enough to be kept (delayed_instance), solved once and then
// answered from the cache.
TEST(Sequencing, CacheKeepsLargeSearches) {
  int kept_searches = 0;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    std::mt19937_64 rng(seed);
    const SeqInput in = delayed_instance(rng);
    const SeqOutput fresh = sequence(in);
    ASSERT_TRUE(fresh.found);
    SeqCache cache;
    SeqOptions opt;
    opt.cache = &cache;
    opt.cutoff = fresh.makespan;  // nothing below the optimum: remembered as a bound
    const SeqOutput none = sequence(in, opt);
    EXPECT_FALSE(none.found);
    const bool kept = none.nodes >= SeqCache::kMinNodes;
    kept_searches += kept ? 1 : 0;
    EXPECT_EQ(sequence(in, opt).nodes, kept ? 0 : none.nodes) << "seed " << seed;
    opt.cutoff = fresh.makespan + 1.0;
    const SeqOutput found = sequence(in, opt);
    ASSERT_TRUE(found.found);
    EXPECT_DOUBLE_EQ(found.makespan, fresh.makespan);
    const SeqOutput again = sequence(in, opt);
    ASSERT_TRUE(again.found);
    EXPECT_DOUBLE_EQ(again.makespan, fresh.makespan);
    EXPECT_DOUBLE_EQ(replay(in, again.orders), fresh.makespan);
    if (found.nodes >= SeqCache::kMinNodes) {
      EXPECT_EQ(again.nodes, 0) << "seed " << seed;
    }
    // A different input (one duration changed) is not answered from the cache.
    SeqInput other = in;
    other.duration[1] += 1.0;
    EXPECT_GT(sequence(other, opt).nodes, 0);
    // Nor the same jobs declared on more machines (the orders have another shape).
    SeqInput wider = in;
    wider.machines = 3;
    const SeqOutput w = sequence(wider, opt);
    EXPECT_GT(w.nodes, 0);
    EXPECT_EQ(w.orders.size(), 3U);
  }
  EXPECT_GT(kept_searches, 0);  // the cache was exercised
}

// Leaves that differ only in their free jobs' durations (an accelerator operator's replica
// count): a cache that holds a search of the same jobs with free jobs no longer answers by
// monotonicity (a lower bound, or the earlier optimum's orders replayed when they keep its
// makespan). Every answer, cached or not, must equal a fresh search's at cutoffs below, at and
// above the optimum; some must come from the cache, and some of those from a replay.
TEST(Sequencing, CacheAnswersLongerFreeJobsAsAFreshSearch) {
  int64_t hits = 0, replayed = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    std::mt19937_64 rng(seed);
    const auto uni = [&](int lo, int hi) {
      return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    const SeqInput base = delayed_instance(rng);
    const int n = kDelayedJobs;
    SeqCache cache;
    SeqOptions first;
    first.cache = &cache;
    const SeqOutput b = sequence(base, first);  // recorded if it took kMinNodes nodes
    ASSERT_TRUE(b.found);
    for (int variant = 0; variant < 12; ++variant) {
      SeqInput in = base;
      // One or two free jobs longer (by 1 to 6, or by 30: then it may become critical); every
      // fourth variant one shorter instead (not answered by the base's entry).
      for (int k = 0; k < 1 + variant % 2; ++k) {
        const auto v = static_cast<size_t>(3 * uni(0, n / 3 - 1));
        in.duration[v] += variant % 4 == 3 ? -std::min(in.duration[v] - 1.0, 2.0)
                                           : (variant % 3 == 0 ? 30.0 : uni(1, 6));
      }
      const double best = sequence(in).makespan;
      bool searched = false;  // a cached call of this variant searched (and was recorded)
      for (double cutoff :
           {std::numeric_limits<double>::infinity(), best + 1.0, best, best - 1.0, b.makespan}) {
        SeqOptions fresh;
        fresh.cutoff = cutoff;
        const SeqOutput want = sequence(in, fresh);
        SeqOptions cached = fresh;
        cached.cache = &cache;
        const int64_t before = cache.hits();
        const SeqOutput got = sequence(in, cached);
        ASSERT_EQ(got.found, want.found) << "seed " << seed << " variant " << variant;
        EXPECT_TRUE(got.proven);
        if (cache.hits() > before) {
          EXPECT_EQ(got.nodes, 0);
          if (got.found && !searched) ++replayed;  // another input's orders, replayed
        }
        searched = searched || got.nodes > 0;
        if (!want.found) continue;
        EXPECT_DOUBLE_EQ(got.makespan, best) << "seed " << seed << " variant " << variant;
        EXPECT_DOUBLE_EQ(replay(in, got.orders), best) << "seed " << seed;
        ASSERT_EQ(got.start.size(), in.duration.size());
        for (const SeqEdge& e : in.edges)  // the returned starts are a schedule of `in`
          EXPECT_GE(got.start[static_cast<size_t>(e.to)],
                    got.start[static_cast<size_t>(e.from)] +
                        in.duration[static_cast<size_t>(e.from)] + e.delay - 1e-9);
      }
    }
    hits += cache.hits();
  }
  EXPECT_GT(hits, 0);
  EXPECT_GT(replayed, 0);
}

// replay_orders: the semi-active schedule of given orders, worked by hand. Host jobs 0 (2 s), 2
// (3 s) and 3 (2 s); free job 1 (4 s) between 0 and 2: 0 -> 1 (delay 1) -> 2; 3 free of all.
// Orders {3, 0, 2}: 3 [0, 2], 0 [2, 4], 1 [5, 9], 2 [9, 12]: 12. Orders {0, 3, 2}: 0 [0, 2],
// 3 [2, 4], 1 [3, 7], 2 [7, 10]: 10. Orders {2, 0, 3} contradict 0 -> 1 -> 2: infinity.
TEST(Sequencing, ReplayOrdersByHand) {
  SeqInput in;
  in.duration = {2, 4, 3, 2};
  in.machine = {kHostMachine, kNoMachine, kHostMachine, kHostMachine};
  in.edges = {{0, 1, 1.0}, {1, 2, 0.0}};
  in.machines = 1;
  std::vector<double> start;
  EXPECT_DOUBLE_EQ(replay_orders(in, {{3, 0, 2}}, start), 12.0);
  EXPECT_EQ(start, (std::vector<double>{2, 5, 9, 0}));
  EXPECT_DOUBLE_EQ(replay_orders(in, {{0, 3, 2}}, start), 10.0);
  EXPECT_EQ(start, (std::vector<double>{0, 3, 7, 2}));
  EXPECT_DOUBLE_EQ(replay_orders(in, {{2, 0, 3}}, start), std::numeric_limits<double>::infinity());
}

TEST(Sequencing, BusJobsShareOneMachine) {
  // Two free jobs (0, 1) finishing at 1 and 2 each feed a bus job of length 3 (2, 3) that feeds
  // host job 4. Serial bus: 1 -> [1,4] -> [4,7] (or [2,5] -> [5,8] the other way) -> host [7,8].
  SeqInput in;
  in.duration = {1, 2, 3, 3, 1};
  in.machine = {kNoMachine, kNoMachine, kBusMachine, kBusMachine, kHostMachine};
  in.edges = {{0, 2, 0.0}, {1, 3, 0.0}, {2, 4, 0.0}, {3, 4, 0.0}};
  const SeqOutput r = sequence(in);
  EXPECT_DOUBLE_EQ(r.makespan, 8.0);
  EXPECT_EQ(r.orders[kBusMachine], (std::vector<int>{2, 3}));
  EXPECT_DOUBLE_EQ(r.start[3], 4.0);
}

TEST(Sequencing, NodeLimitStopsWithoutProof) {
  // Eight independent host jobs released by accelerator predecessors of different lengths.
  SeqInput in;
  for (int i = 0; i < 8; ++i) {
    in.duration.push_back(1 + i % 3);
    in.machine.push_back(kNoMachine);
  }
  for (int i = 0; i < 8; ++i) {
    in.duration.push_back(2 + (i * 5) % 7);
    in.machine.push_back(kHostMachine);
    in.edges.push_back({i, 8 + i, 0.0});
  }
  SeqOptions opt;
  opt.max_nodes = 2;
  const SeqOutput r = sequence(in, opt);
  EXPECT_FALSE(r.proven);
  EXPECT_EQ(r.nodes, 3);
  // The root bound it reports: host work 2+7+5+3+8+6+4+2 = 37 from the first release at 1, with
  // three jobs (9 of work) released at 1 and the rest by 3, so no gap: 38.
  EXPECT_DOUBLE_EQ(r.root_bound, 38.0);
}

}  // namespace
}  // namespace hetcim::partition
