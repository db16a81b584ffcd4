#include "partition/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "partition/brute_force.h"
#include "partition/exact.h"
#include "test_problems.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

using testing::make_problem;

// Diamond 0 -> {1, 2} -> 3; every edge transfers in 1 s; 1 and 2 may go to the accelerator.
Problem diamond(int64_t budget) {
  return make_problem(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, {2, 4, 3, 1},
                      {{}, {{2, 1.0}}, {{1, 1.0}}, {}}, {1, 1, 1, 1}, budget);
}

bool has_kind(const std::vector<Violation>& v, ViolationKind k) {
  return std::any_of(v.begin(), v.end(), [&](const Violation& x) { return x.kind == k; });
}

TEST(Simulate, AllHostIsTheSumOfHostLatencies) {
  const Problem p = diamond(3);
  const Schedule s = simulate(p, all_host(p), {0, 2, 1, 3});
  EXPECT_DOUBLE_EQ(s.makespan, 10.0);
  EXPECT_DOUBLE_EQ(s.start[2], 2.0);
  EXPECT_DOUBLE_EQ(s.start[1], 5.0);
  EXPECT_TRUE(s.transfers.empty());
  EXPECT_TRUE(check(p, s).empty());
}

TEST(Simulate, DiamondWithTransfersHandComputed) {
  const Problem p = diamond(3);
  // 1 on the accelerator: 0 [0,2], transfer, 1 [3,4]; 2 on the host [2,5]; 3 waits for
  // max(4 + 1, 5) -> [5,6].
  const Schedule s = simulate(p, Assignment{{kHost, 0, kHost, kHost}}, {0, 2, 3});
  EXPECT_DOUBLE_EQ(s.start[1], 3.0);
  EXPECT_DOUBLE_EQ(s.finish[2], 5.0);
  EXPECT_DOUBLE_EQ(s.start[3], 5.0);
  EXPECT_DOUBLE_EQ(s.makespan, 6.0);
  ASSERT_EQ(s.transfers.size(), 2u);  // 0 -> 1 and 1 -> 3
  EXPECT_TRUE(check(p, s).empty());
  // 2 on the accelerator instead: 1 on the host [2,6]; 3 at max(6, 4 + 1) -> 7.
  EXPECT_DOUBLE_EQ(simulate(p, Assignment{{kHost, kHost, 0, kHost}}, {0, 1, 3}).makespan, 7.0);
  // Both: 1 and 2 run in parallel [3,4]; 3 at 5 -> 6.
  EXPECT_DOUBLE_EQ(simulate(p, Assignment{{kHost, 0, 0, kHost}}, {0, 3}).makespan, 6.0);
}

TEST(Simulate, BudgetForcesTheWorseChoice) {
  // Crossbars 2 for op 1 and 1 for op 2: with a budget of 1 only op 2 fits (makespan 7); with 2,
  // op 1 gives 6. The brute force must find exactly these.
  EXPECT_DOUBLE_EQ(solve_brute_force(diamond(0)).makespan, 10.0);
  EXPECT_DOUBLE_EQ(solve_brute_force(diamond(1)).makespan, 7.0);
  EXPECT_DOUBLE_EQ(solve_brute_force(diamond(2)).makespan, 6.0);
}

TEST(Simulate, RejectsBadHostOrders) {
  const Problem p = diamond(3);
  EXPECT_THROW((void)simulate(p, all_host(p), {0, 3, 1, 2}), UserError);  // 3 before its inputs
  EXPECT_THROW((void)simulate(p, all_host(p), {0, 1, 2}), UserError);     // 3 missing
  EXPECT_THROW((void)simulate(p, all_host(p), {0, 1, 1, 3}), UserError);  // duplicate
  EXPECT_THROW((void)simulate(p, Assignment{{kHost, 0, kHost, kHost}}, {0, 1, 2, 3}), UserError);
  EXPECT_THROW((void)simulate(p, Assignment{{0, kHost, kHost, kHost}}, {1, 2, 3}), UserError);
  try {
    (void)simulate(p, all_host(p), {0, 3, 1, 2});
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'op3'"), std::string::npos) << e.what();
  }
}

TEST(Simulate, PerTensorDirectionSendsEachTensorOncePerDirection) {
  // 0 feeds 1, 2, 3; 1 and 2 on the accelerator, 3 on the host; 1, 2, 3 feed 4 on the host.
  Problem p;
  p.dag = graph::Dag::from_edges(5, {{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 4}, {3, 4}});
  p.names = {"a", "b", "c", "d", "e"};
  p.t_host = {1, 5, 5, 1, 1};
  p.acc = {{}, {{1, 2.0}}, {{1, 3.0}}, {}, {}};
  p.transfer_model = TransferModel::PerTensorDirection;
  p.t_out = {0.5, 0.25, 0.125, 9, 9};
  p.crossbar_budget = 2;
  const Schedule s = simulate(p, Assignment{{kHost, 0, 0, kHost, kHost}}, {0, 3, 4});
  // a -> accelerator once (to b and c), b -> host, c -> host: 3 transfers, not 4.
  ASSERT_EQ(s.transfers.size(), 3u);
  EXPECT_EQ(s.transfers[0].producer, 0);
  EXPECT_EQ(s.transfers[0].consumers, (std::vector<int>{1, 2}));
  EXPECT_FALSE(s.transfers[0].to_host);
  // e waits for c: 1 + 0.5 + 3 + 0.125 = 4.625.
  EXPECT_DOUBLE_EQ(s.start[4], 4.625);
  EXPECT_DOUBLE_EQ(s.makespan, 5.625);
  EXPECT_TRUE(check(p, s).empty());
}

TEST(Check, CatchesEveryViolationKind) {
  const Problem p = diamond(1);
  const Schedule good = simulate(p, Assignment{{kHost, kHost, 0, kHost}}, {0, 1, 3});
  ASSERT_TRUE(check(p, good).empty());

  Schedule s = good;
  s.assignment.mode[0] = 0;  // op0 has no accelerator mode
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::UnsupportedMode));

  s = simulate(p, Assignment{{kHost, 0, 0, kHost}}, {0, 3});  // 3 crossbars > 1
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::Budget));

  s = good;
  s.finish[1] += 0.5;
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::Duration));

  s = good;
  s.start[0] = -1.0;
  s.finish[0] = 1.0;
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::NegativeStart));

  s = good;  // 2 on the accelerator starts before 0's output arrives (2 + 1)
  s.start[2] = 2.5;
  s.finish[2] = 3.5;
  auto v = check(p, s);
  ASSERT_TRUE(has_kind(v, ViolationKind::Precedence));
  EXPECT_EQ(std::find_if(v.begin(), v.end(),
                         [](const Violation& x) { return x.kind == ViolationKind::Precedence; })
                ->other,
            0);

  s = simulate(p, all_host(p), {0, 1, 2, 3});  // move 2 to overlap 1 on the host
  s.start[2] = 3.0;
  s.finish[2] = 6.0;
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::HostOverlap));

  s = good;
  s.host_order = {1, 0, 3};
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::HostOrder));

  s = good;
  s.makespan -= 1.0;
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::Makespan));

  s = good;
  s.start.pop_back();
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::Shape));
}

Problem serial(Problem p, TransferModel t = TransferModel::PerEdge) {
  p.bus_model = BusModel::Serial;
  if (t == TransferModel::PerTensorDirection) {
    p.transfer_model = t;
    p.t_out.assign(p.size(), 1.0);
  }
  return p;
}

TEST(SerialBus, DiamondHandComputed) {
  // 1 and 2 on the accelerator: edges (0,1) (0,2) (1,3) (2,3) all cross, keys 0..3. Parallel bus:
  // 0 [0,2], both transfers [2,3], 1 and 2 [3,4], both back [4,5], 3 [5,6] = 6.
  const Assignment a{{kHost, 0, 0, kHost}};
  EXPECT_DOUBLE_EQ(simulate(diamond(3), a, {0, 3}).makespan, 6.0);
  // Serial, bus 0,1,2,3: T0 [2,3], T1 [3,4]; 1 [3,4], 2 [4,5]; T2 [4,5], T3 [5,6]; 3 [6,7] = 7.
  const Problem p = serial(diamond(3));
  const Schedule s = simulate(p, a, {0, 3}, {0, 1, 2, 3});
  EXPECT_DOUBLE_EQ(s.makespan, 7.0);
  EXPECT_DOUBLE_EQ(s.start[2], 4.0);
  ASSERT_EQ(s.transfers.size(), 4u);
  EXPECT_DOUBLE_EQ(s.transfers[1].start, 3.0);  // waited 1 s for the bus
  EXPECT_TRUE(check(p, s).empty());
  // Bus 0,1,3,2: T3 must wait for 2 [4,5] -> [5,6], T2 [6,7], 3 [7,8] = 8.
  EXPECT_DOUBLE_EQ(simulate(p, a, {0, 3}, {0, 1, 3, 2}).makespan, 8.0);
  EXPECT_DOUBLE_EQ(simulate_best(p, a).makespan, 7.0);
  // Over all assignments, offloading 1 alone avoids the contention: 0 [0,2], T [2,3], 1 [3,4],
  // T [4,5]; 2 on the host [2,5]; 3 [5,6].
  EXPECT_DOUBLE_EQ(solve_brute_force(p).makespan, 6.0);
  // Per tensor: 0's output crosses once [2,3]; 1 and 2 [3,4]; their outputs [4,5], [5,6]; 3 [6,7].
  const Problem pt = serial(diamond(3), TransferModel::PerTensorDirection);
  const Schedule st = simulate_best(pt, a);
  EXPECT_EQ(st.transfers.size(), 3u);
  EXPECT_DOUBLE_EQ(st.makespan, 7.0);
  EXPECT_TRUE(check(pt, st).empty());
}

TEST(SerialBus, OrdersAreValidated) {
  const Problem p = serial(diamond(3));
  const Assignment a{{kHost, 0, 0, kHost}};
  EXPECT_THROW((void)simulate(p, a, {0, 3}), UserError);                // bus order missing
  EXPECT_THROW((void)simulate(p, a, {0, 3}, {0, 1, 2, 9}), UserError);  // no transfer 9
  EXPECT_THROW((void)simulate(p, a, {0, 3}, {0, 1, 2, 2}), UserError);  // listed twice
  EXPECT_THROW((void)simulate(diamond(3), a, {0, 3}, {0, 1, 2, 3}), UserError);  // parallel bus
  // 0 (host) -> 1 (acc) and 2 (acc) -> 3 (host): host 3 before 0 and bus T(0,1) before T(2,3)
  // wait on each other in a cycle.
  Problem q = serial(
      make_problem(4, {{0, 1}, {2, 3}}, {1, 1, 1, 1}, {{}, {{1, 1.0}}, {{1, 1.0}}, {}}, {1, 1}, 2));
  const Assignment b{{kHost, 0, 0, kHost}};
  EXPECT_FALSE(try_simulate(q, b, {3, 0}, {0, 1}).has_value());
  EXPECT_THROW((void)simulate(q, b, {3, 0}, {0, 1}), UserError);
  EXPECT_TRUE(try_simulate(q, b, {3, 0}, {1, 0}).has_value());
}

TEST(SerialBus, CheckCatchesBusViolations) {
  const Problem p = serial(diamond(3));
  const Assignment a{{kHost, 0, 0, kHost}};
  const Schedule good = simulate(p, a, {0, 3}, {0, 1, 2, 3});
  ASSERT_TRUE(check(p, good).empty());
  // The parallel-bus schedule overlaps transfers and lists no bus order.
  const Schedule par = simulate(diamond(3), a, {0, 3});
  const auto v = check(p, par);
  EXPECT_TRUE(has_kind(v, ViolationKind::BusOverlap));
  EXPECT_TRUE(has_kind(v, ViolationKind::BusOrder));
  Schedule s = good;
  s.bus_order = {1, 0, 2, 3};
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::BusOrder));
  s = good;
  s.transfers.pop_back();
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::Transfer));
  s = good;
  s.transfers[0].finish += 0.5;  // longer than the bus needs
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::Transfer));
  s = good;
  s.transfers[2].start -= 0.5;  // before its producer (1, finishing at 4) is done
  s.transfers[2].finish -= 0.5;
  EXPECT_TRUE(has_kind(check(p, s), ViolationKind::Transfer));
}

TEST(SimulateBest, MatchesTheBestOfAllHostOrders) {
  // Two independent chains with accelerator gaps: the order matters.
  const Problem p = make_problem(6, {{0, 1}, {1, 2}, {3, 4}, {4, 5}}, {3, 9, 2, 4, 9, 1},
                                 {{}, {{1, 1.0}}, {}, {}, {{1, 6.0}}, {}}, {2, 2, 1, 1}, 2);
  const Assignment a{{kHost, 0, kHost, kHost, 0, kHost}};
  // Host: 0 (3), 2 (2), 3 (4), 5 (1). Order 0,3,2,5: 0 [0,3], 3 [3,7]; 1 [5,6] -> 2 [8,10];
  // 4 [8,14] -> 5 [15,16]: 16. Order 3,0,2,5: 3 [0,4], 0 [4,7]; 4 [5,11], 1 [9,10]; 2 [12,14],
  // 5 [14,15]: 15, the best (checked against every order below).
  double best = 1e300;
  std::vector<int> order = {0, 2, 3, 5};
  std::sort(order.begin(), order.end());
  do {
    try {
      best = std::min(best, simulate(p, a, order).makespan);
    } catch (const UserError&) {
    }
  } while (std::next_permutation(order.begin(), order.end()));
  const Schedule s = simulate_best(p, a);
  EXPECT_DOUBLE_EQ(s.makespan, best);
  EXPECT_DOUBLE_EQ(s.makespan, 15.0);
  EXPECT_TRUE(check(p, s).empty());
}

}  // namespace
}  // namespace hetcim::partition
