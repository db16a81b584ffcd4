// The depth-wise accelerator model: hand-evaluated cases, a walk through the Fig. 5a loop nest,
// and the paper's average throughput (a prediction: nothing in the model is fitted to it).
#include "cluster/dw_engine.h"

#include <gtest/gtest.h>

#include "cluster/cluster_config.h"
#include "util/error.h"

namespace hetcim::cluster {
namespace {

// Fig. 5a as a loop nest, one iteration per cycle: weights, then per output column a window
// fill and per output pixel 4 cycles whose MAC stage covers 4 channels x 9 taps each.
struct Walk {
  int64_t cycles = 0, macs = 0;
};
Walk walk(int64_t ho, int64_t wo, int64_t channels) {
  Walk w;
  for (int64_t c0 = 0; c0 < channels; c0 += 16) {
    const int64_t valid = std::min<int64_t>(16, channels - c0);
    w.cycles += 3 * 3 * 16 / 16;  // weight preload, 16 B per cycle
    for (int64_t x = 0; x < wo; ++x) {
      w.cycles += 3 * 3;  // window fill: 9 pixels of 16 channels
      for (int64_t y = 0; y < ho; ++y)
        for (int64_t cycle = 0; cycle < 4; ++cycle) {
          ++w.cycles;
          for (int64_t ch = 4 * cycle; ch < 4 * cycle + 4; ++ch)
            if (ch < valid) w.macs += 9;
        }
    }
  }
  return w;
}

TEST(DwEngine, SmallCaseByHand) {
  DwConfig dw;  // 16 channels, 3x3, 4-cycle loop, 16 B/cycle, 100 config cycles
  // 4x4x16, pad 1: 100 + 9 + 4 columns x (9 + 4 x 4) = 209 cycles, 9 * 16 * 16 = 2304 MACs.
  const DwCost c = dw_engine_cost(dw, {4, 4, 16, 3, 1, 1});
  EXPECT_EQ(c.out_height, 4);
  EXPECT_EQ(c.cycles, 209);
  EXPECT_EQ(c.macs, 2304);
  // 24 channels: two blocks, the second half empty; 7x5 input -> 7x5 output.
  const DwCost d = dw_engine_cost(dw, {7, 5, 24, 3, 1, 1});
  EXPECT_EQ(d.blocks, 2);
  EXPECT_EQ(d.cycles, 100 + 2 * (9 + 5 * (9 + 7 * 4)));
}

TEST(DwEngine, MatchesTheLoopNestWalk) {
  DwConfig dw;
  dw.config_cycles = 0;
  for (const int64_t ch : {1, 8, 16, 17, 40, 600})
    for (const int64_t side : {1, 3, 8, 16}) {
      const DwCost c = dw_engine_cost(dw, {side, side + 1, ch, 3, 1, 1});
      const Walk w = walk(c.out_height, c.out_width, ch);
      EXPECT_EQ(c.cycles, w.cycles) << ch << " ch, " << side;
      EXPECT_EQ(c.macs, w.macs) << ch << " ch, " << side;
    }
}

TEST(DwEngine, AverageThroughputNearThePapers29_7MacPerCycle) {
  // The Bottleneck's depth-wise layer (16x16, 600 channels): 1,382,400 MACs in
  // 100 + 38 x (9 + 16 x (9 + 16 x 4)) = 44,826 cycles = 30.84 MAC/cycle; the paper reports an
  // average of 29.7. The ideal of the datapath is 36 (36 multipliers).
  const ClusterConfig cfg = cluster_preset("seed001");
  const DwCost c = dw_engine_cost(cfg.dw, {16, 16, 600, 3, 1, 1});
  EXPECT_EQ(c.cycles, 44826);
  EXPECT_NEAR(c.macs_per_cycle(), 29.7, 0.05 * 29.7);
  EXPECT_LT(c.macs_per_cycle(), 36.0);
}

TEST(DwEngine, RejectsOtherKernels) {
  EXPECT_THROW((void)dw_engine_cost(DwConfig{}, {8, 8, 16, 5, 1, 2}), UserError);
  EXPECT_THROW((void)dw_engine_cost(DwConfig{}, {0, 8, 16, 3, 1, 1}), UserError);
}

}  // namespace
}  // namespace hetcim::cluster
