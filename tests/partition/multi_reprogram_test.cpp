// Crossbar reprogramming as a solver choice (issue 12, scope 3): an operator on a crossbar engine
// is resident (holds its capacity for the whole inference) or reprogrammed (written before it
// runs, into an area all reprogrammed operators of the engine share: capacity = resident total +
// largest reprogrammed footprint). The exact solver against a brute force (which checks the
// capacity rule on every full assignment, multi_capacity_used) on random small platforms, the
// MILP against both on some, a case solved by hand, the wear report and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "partition/multi_brute_force.h"
#include "partition/multi_exact.h"
#include "partition/multi_milp.h"
#include "partition/multi_schedule.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

// 2-4 engines, 2-10 operators: engine 0 runs everything one job at a time; the others support
// an operator with probability 0.6 and run one job at a time (some in an exclusive group); most
// have a small capacity (1-4) and then offer, with probability 0.7, a reprogrammed twin of the
// resident option: the same footprint (1-3), a longer duration (the write, 1-3) and, with the
// energy objective, more energy. One engine may have a capacity and no reprogramming. Integer
// figures keep the objectives exact.
MultiProblem random_reprogram(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto coin = [&](double q) { return std::uniform_real_distribution<double>(0, 1)(rng) < q; };
  MultiProblem p;
  const int k = uni(2, 4);
  const size_t n = static_cast<size_t>(uni(2, 10));
  const bool energy = coin(0.3);
  std::vector<char> reprogrammable(static_cast<size_t>(k), 0);
  for (int e = 0; e < k; ++e) {
    MultiEngine g;
    g.name = "e" + std::to_string(e);
    g.one_at_a_time = true;
    g.capacity = e > 0 && coin(0.8) ? uni(1, 4) : -1;
    g.endurance = 1e6;
    if (energy) {
      g.static_power = uni(0, 2);
      g.idle_power = uni(0, 1);
    }
    reprogrammable[static_cast<size_t>(e)] = g.capacity > 0 && coin(0.85) ? 1 : 0;
    p.engines.push_back(g);
  }
  if (k >= 3 && coin(0.4)) p.exclusive.push_back({1, 2});
  std::vector<int> all;
  for (int e = 0; e < k; ++e) all.push_back(e);
  p.links.push_back({"bus", all, static_cast<double>(uni(0, 1)), static_cast<double>(uni(1, 2)),
                     coin(0.4), energy ? 1.0 : 0.0});
  std::vector<std::pair<int, int>> edges;
  for (size_t v = 1; v < n; ++v)
    for (size_t u = 0; u < v; ++u)
      if ((u + 1 == v && coin(0.8)) || coin(n > 7 ? 0.1 : 0.3))
        edges.emplace_back(static_cast<int>(u), static_cast<int>(v));
  p.dag = graph::Dag::from_edges(n, edges);
  const double support = n > 7 ? 0.45 : 0.6;
  for (size_t v = 0; v < n; ++v) {
    p.names.push_back("op" + std::to_string(v));
    std::vector<MultiOption> opts;
    opts.push_back(
        {0, static_cast<double>(uni(4, 20)), energy ? static_cast<double>(uni(0, 9)) : 0, 0, "e0"});
    for (int e = 1; e < k; ++e) {
      if (!coin(support)) continue;
      const MultiEngine& g = p.engines[static_cast<size_t>(e)];
      const int64_t cap = g.capacity >= 0 ? uni(1, 3) : 0;
      const double d = uni(0, 8), en = energy ? uni(0, 6) : 0;
      opts.push_back({e, d, en, cap, "e" + std::to_string(e)});
      if (reprogrammable[static_cast<size_t>(e)] && coin(0.7)) {
        MultiOption r{e, d + uni(1, 3), en + (energy ? uni(0, 3) : 0), cap, "reprog"};
        r.reprogram = true;
        r.cells_written = cap * 100;
        opts.push_back(r);
      }
    }
    p.options.push_back(opts);
  }
  for (size_t e = 0; e < p.dag.edges.size(); ++e) p.edge_bytes.push_back(uni(0, 6));
  if (energy) p.energy_weight = 1.0;
  p.validate();
  return p;
}

// Whether a reserved area holds two reprogrammed operators whose footprints would not fit
// side by side: the solution needs the max rule, not a sum.
bool needs_sharing(const MultiProblem& p, const std::vector<int>& option) {
  std::vector<int64_t> sum(p.engines.size(), 0), resident(p.engines.size(), 0);
  for (size_t v = 0; v < p.size(); ++v) {
    const MultiOption& o = p.option(static_cast<int>(v), option[v]);
    (o.reprogram ? sum : resident)[static_cast<size_t>(o.engine)] += o.capacity;
  }
  for (size_t e = 0; e < p.engines.size(); ++e)
    if (p.engines[e].capacity >= 0 && sum[e] + resident[e] > p.engines[e].capacity) return true;
  return false;
}

TEST(MultiReprogram, ExactEqualsBruteForceOnRandomPlatforms) {
  int instances = 0, reprogrammed = 0, shared = 0, large = 0;
  for (uint64_t seed = 1; instances < 220; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const MultiProblem p = random_reprogram(seed);
    MultiBruteForceOptions bo;
    bo.max_work = 2e7;
    if (multi_brute_force_work(p) > bo.max_work) continue;  // drawn again
    const MultiBruteForceResult b = solve_multi_brute_force(p, bo);
    const MultiExactResult x = solve_multi_exact(p);
    ++instances;
    large += p.size() >= 8 ? 1 : 0;
    if (!b.feasible) {
      EXPECT_EQ(x.status, SolveStatus::Infeasible);
      continue;
    }
    ASSERT_EQ(x.status, SolveStatus::Optimal);
    EXPECT_NEAR(x.objective, b.objective, 1e-9 * std::max(1.0, b.objective));
    EXPECT_TRUE(multi_check(p, x.schedule).empty());
    bool any = false;
    for (size_t v = 0; v < p.size(); ++v)
      any = any || p.option(static_cast<int>(v), x.schedule.option[v]).reprogram;
    reprogrammed += any ? 1 : 0;
    shared += needs_sharing(p, x.schedule.option) ? 1 : 0;
  }
  EXPECT_GE(instances, 200);
  EXPECT_GT(large, 40);
  EXPECT_GT(reprogrammed, 25);  // the optimum reprograms something (31 of 220)
  EXPECT_GT(shared, 20);        // ... and needs the shared area (max, not sum) to fit (28)
}

TEST(MultiReprogram, MilpEqualsExactAndBruteForce) {
  int instances = 0, reprogrammed = 0;
  for (uint64_t seed = 1000; instances < 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const MultiProblem p = random_reprogram(seed);
    MultiBruteForceOptions bo;
    bo.max_work = 2e6;
    if (multi_brute_force_work(p) > bo.max_work) continue;
    ++instances;
    const MultiBruteForceResult b = solve_multi_brute_force(p, bo);
    const MultiExactResult x = solve_multi_exact(p);
    MultiMilpOptions mo;
    mo.time_limit_seconds = 30;
    const MultiMilpResult m = solve_multi_milp(p, mo);
    ASSERT_EQ(m.call, CallStatus::Ok) << m.message;
    if (!b.feasible) {
      EXPECT_EQ(m.status, SolveStatus::Infeasible);
      continue;
    }
    ASSERT_EQ(m.status, SolveStatus::Optimal);
    const double tol = 1e-6 * std::max(1.0, b.objective);
    EXPECT_NEAR(m.objective, b.objective, tol);
    EXPECT_NEAR(x.objective, b.objective, tol);
    EXPECT_TRUE(multi_check(p, m.schedule).empty());
    for (size_t v = 0; v < p.size(); ++v)
      if (p.option(static_cast<int>(v), m.schedule.option[v]).reprogram) {
        ++reprogrammed;
        break;
      }
  }
  EXPECT_GT(reprogrammed, 5);
}

// a -> b -> c on cores (10 s each) or a crossbar of capacity 3: a and b need 2 crossbars each
// (1 s resident, 4 s reprogrammed: 3 s of writing), c needs 1 (1 s, or 3 s reprogrammed).
// All resident: 5 > 3. Feasible mixes: a or b resident + c resident + the other on the cores:
// 1 + 10 + 1 = 12; a and b reprogrammed (sharing a reserved area of 2) + c resident (1):
// 2 + 1 = 3 crossbars, 4 + 4 + 1 = 9; all reprogrammed: 4 + 4 + 3 = 11; c reprogrammed with a
// resident: 2 + 2 = 4 > 3 unless b goes to the cores: 1 + 10 + 3 = 14. Optimum: 9.
MultiProblem hand_problem() {
  MultiProblem p;
  p.dag = graph::Dag::from_edges(3, {{0, 1}, {1, 2}});
  p.names = {"a", "b", "c"};
  p.engines = {{"cores", true, -1, 0, 0}, {"xbar", true, 3, 0, 0}};
  p.engines[1].endurance = 1e8;
  p.links = {{"tcdm", {0, 1}, 0.0, 1.0, false, 0.0}};
  p.edge_bytes = {0, 0};
  const auto reprog = [](double d, int64_t cap, int64_t cells) {
    MultiOption o{1, d, 0, cap, "xbar reprog"};
    o.reprogram = true;
    o.cells_written = cells;
    return o;
  };
  p.options = {{{0, 10, 0, 0, "cores"}, {1, 1, 0, 2, "xbar"}, reprog(4, 2, 512)},
               {{0, 10, 0, 0, "cores"}, {1, 1, 0, 2, "xbar"}, reprog(4, 2, 300)},
               {{0, 10, 0, 0, "cores"}, {1, 1, 0, 1, "xbar"}, reprog(3, 1, 100)}};
  return p;
}

TEST(MultiReprogram, HandInstance) {
  const MultiProblem p = hand_problem();
  const MultiExactResult r = solve_multi_exact(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_DOUBLE_EQ(r.objective, 9.0);
  EXPECT_EQ(r.schedule.option, (std::vector<int>{2, 2, 1}));
  EXPECT_EQ(multi_capacity_used(p, r.schedule.option), (std::vector<int64_t>{0, 3}));
  const std::vector<MultiWear> w = multi_wear(p, r.schedule.option);
  EXPECT_EQ(w[1].reprogrammed, 2);
  EXPECT_EQ(w[1].reserved, 2);
  EXPECT_EQ(w[1].cells_written, 812);
  EXPECT_DOUBLE_EQ(w[1].lifetime_inferences, 5e7);  // 1e8 writes / 2 writes per inference
  EXPECT_TRUE(std::isinf(w[0].lifetime_inferences));
  MultiMilpOptions mo;
  const MultiMilpResult m = solve_multi_milp(p, mo);
  ASSERT_EQ(m.status, SolveStatus::Optimal);
  EXPECT_NEAR(m.objective, 9.0, 1e-9);
  // Without the reprogram options the best is 12 (a resident, b on the cores, c resident).
  MultiProblem resident = p;
  for (auto& o : resident.options) o.pop_back();
  EXPECT_DOUBLE_EQ(solve_multi_exact(resident).objective, 12.0);
  // Reprogramming a and c with b resident needs 2 + max(2, 1) = 4 crossbars: refused.
  EXPECT_THROW((void)multi_simulate(p, {2, 1, 2}, {0, 1, 2}), UserError);
}

// The search nodes a solve charges to its Deadline (one per assignment and sequencing node).
int64_t charged(const MultiExactResult& r) {
  return r.nodes + r.seq_nodes;
}

// A node limit that stops the search with reprogramming after the solve without it finished:
// the plan returned is that optimum (12, hand_problem's comment), not the fallback (every
// operator on the cores: 30); the full optimum is 9. Deterministic (node counts, no clock).
TEST(MultiReprogram, LimitedRunKeepsTheOptimumWithoutReprogramming) {
  const MultiProblem p = hand_problem();
  MultiProblem resident = p;
  for (auto& o : resident.options) o.pop_back();
  const MultiExactResult q = solve_multi_exact(resident);
  ASSERT_EQ(q.status, SolveStatus::Optimal);
  ASSERT_DOUBLE_EQ(q.objective, 12.0);
  MultiExactOptions plain;
  plain.seed_without_reprogramming = false;
  const MultiExactResult full = solve_multi_exact(p, plain);
  ASSERT_EQ(full.status, SolveStatus::Optimal);
  EXPECT_TRUE(full.incumbent.empty());
  ASSERT_GT(charged(full), 2);
  const MultiExactResult seeded = solve_multi_exact(p);
  EXPECT_EQ(seeded.status, SolveStatus::Optimal);
  EXPECT_DOUBLE_EQ(seeded.objective, 9.0);
  EXPECT_EQ(charged(seeded), charged(q) + charged(full));  // both solves, counted
  EXPECT_TRUE(seeded.incumbent.empty());

  MultiExactOptions o;
  o.node_limit = charged(q) + charged(full) / 2;
  const MultiExactResult r = solve_multi_exact(p, o);
  EXPECT_EQ(r.status, SolveStatus::NodeLimit);
  EXPECT_DOUBLE_EQ(r.objective, 12.0);
  EXPECT_EQ(r.schedule.option, (std::vector<int>{1, 0, 1}));  // a and c resident, b on the cores
  EXPECT_NE(r.incumbent.find("optimum without reprogramming"), std::string::npos) << r.incumbent;
  EXPECT_TRUE(multi_check(p, r.schedule).empty());
  EXPECT_EQ(r.bound, 0.0);

  // Without the seed, the same budget returns the fallback.
  plain.node_limit = charged(full) / 2;
  const MultiExactResult f = solve_multi_exact(p, plain);
  EXPECT_EQ(f.status, SolveStatus::NodeLimit);
  EXPECT_DOUBLE_EQ(f.objective, 30.0);
  EXPECT_NE(f.incumbent.find("fallback"), std::string::npos) << f.incumbent;
  // A budget too small for the solve without reprogramming: the fallback too.
  o.node_limit = charged(q) / 2;
  const MultiExactResult g = solve_multi_exact(p, o);
  EXPECT_EQ(g.status, SolveStatus::NodeLimit);
  EXPECT_DOUBLE_EQ(g.objective, 30.0);
  EXPECT_NE(g.incumbent.find("fallback"), std::string::npos) << g.incumbent;
}

// On random platforms, a run stopped right after the solve without reprogramming is never worse
// than that solve's optimum (the brute force of the problem without the reprogrammed options).
TEST(MultiReprogram, LimitedRunNeverWorseThanNoReprogrammingOnRandomPlatforms) {
  int instances = 0, limited = 0, better_than_fallback = 0;
  for (uint64_t seed = 5000; instances < 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const MultiProblem p = random_reprogram(seed);
    MultiProblem resident = p;
    bool any = false;
    for (auto& os : resident.options) {
      const size_t before = os.size();
      std::erase_if(os, [](const MultiOption& x) { return x.reprogram; });
      any = any || os.size() < before;
    }
    MultiBruteForceOptions bo;
    bo.max_work = 2e6;
    if (!any || multi_brute_force_work(resident) > bo.max_work) continue;
    ++instances;
    const MultiBruteForceResult b = solve_multi_brute_force(resident, bo);
    const MultiExactResult q = solve_multi_exact(resident);
    MultiExactOptions o;
    o.node_limit = charged(q) + 1;
    const MultiExactResult r = solve_multi_exact(p, o);
    if (!b.feasible) continue;
    if (r.status == SolveStatus::Optimal) {
      EXPECT_LE(r.objective, b.objective + 1e-9 * std::max(1.0, b.objective));
      continue;
    }
    ++limited;
    ASSERT_EQ(r.status, SolveStatus::NodeLimit);
    EXPECT_NEAR(r.objective, b.objective, 1e-9 * std::max(1.0, b.objective));
    EXPECT_TRUE(multi_check(p, r.schedule).empty());
    better_than_fallback += r.incumbent.find("optimum without") != std::string::npos ? 1 : 0;
  }
  EXPECT_GT(limited, 40);
  EXPECT_GT(better_than_fallback, 10);
}

TEST(MultiReprogram, ValidateNamesTheField) {
  const auto message = [](const MultiProblem& p) {
    try {
      p.validate();
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  MultiProblem p = hand_problem();
  p.engines[1].one_at_a_time = false;
  EXPECT_NE(message(p).find("operator 'a' on 'xbar': reprogramming needs an engine that runs one"),
            std::string::npos)
      << message(p);
  p = hand_problem();
  p.options[0][2].capacity = 0;
  EXPECT_NE(message(p).find("operator 'a' on 'xbar': a reprogrammed option needs"),
            std::string::npos)
      << message(p);
  p = hand_problem();
  p.options[0][2].engine = 0;
  p.options[0][2].capacity = 0;
  EXPECT_NE(message(p).find("on 'cores': a reprogrammed option needs an engine with a capacity"),
            std::string::npos)
      << message(p);
  p = hand_problem();
  p.options[1][2].cells_written = -1;
  EXPECT_NE(message(p).find("operator 'b' on 'xbar': cells written -1"), std::string::npos)
      << message(p);
  p = hand_problem();
  p.engines[1].endurance = std::nan("");
  EXPECT_NE(message(p).find("engine 'xbar': endurance"), std::string::npos) << message(p);
}

}  // namespace
}  // namespace hetcim::partition
