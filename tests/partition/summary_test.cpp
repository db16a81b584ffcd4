#include "partition/summary.h"

#include <gtest/gtest.h>

namespace hetcim::partition {
namespace {

// a -> b -> c; b offloaded (2 crossbars, 1 ms instead of 6 ms), transfers of 0.5 ms each way.
TEST(Summary, ByHandOnAChainWithOneOffload) {
  Problem p;
  p.dag = graph::Dag::from_edges(3, {{0, 1}, {1, 2}});
  p.names = {"a", "b", "c"};
  p.t_host = {2e-3, 6e-3, 3e-3};
  p.acc = {{}, {{2, 1e-3}}, {}};
  p.t_transfer = {0.5e-3, 0.5e-3};
  p.t_out = {0.5e-3, 0.5e-3, 0.5e-3};
  p.crossbar_budget = 4;
  const Schedule s = simulate(p, Assignment{{kHost, 0, kHost}}, {0, 2});
  const Summary r = summarize(p, s);
  EXPECT_DOUBLE_EQ(r.latency, 2e-3 + 0.5e-3 + 1e-3 + 0.5e-3 + 3e-3);
  EXPECT_DOUBLE_EQ(r.cpu_only, 11e-3);
  EXPECT_DOUBLE_EQ(r.speedup, 11e-3 / 7e-3);
  EXPECT_EQ(r.host_ops, 2);
  EXPECT_EQ(r.cim_ops, 1);
  EXPECT_DOUBLE_EQ(r.host_busy, 5e-3);
  EXPECT_DOUBLE_EQ(r.cim_busy, 1e-3);
  EXPECT_EQ(r.crossbars_used, 2);
}

}  // namespace
}  // namespace hetcim::partition
