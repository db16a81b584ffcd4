// The depth-wise engine as an int8 datapath (cluster/dw_datapath.h): bit-exact against the host
// engine's QLinearConv with group == channels (oneDNN, and the reference interpreter) on random
// int8 data, with scales chosen so that the requantisation is a pure shift (sx = 2^-s, sw = sy = 1,
// zero points 0: ONNX computes round_half_even(acc * 2^-s), the datapath a convergent rounding
// shift); its walked cycle count against the closed form of dw_engine.h; the shift's rounding
// modes by hand.
#include "cluster/dw_datapath.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cluster/dw_engine.h"
#include "exec/engine.h"
#include "exec/reference.h"
#include "exec/test_util.h"
#include "util/error.h"

namespace hetcim::cluster {
namespace {

using exec::Tensor;
using graph::DType;

struct Case {
  int64_t h, w, c, stride, shift;
  bool relu;
  int32_t clip_hi;  // 127: ReLU (or none); below: a ReLU6-like clip [0, clip_hi]
};

// A one-node QLinear depth-wise graph: x int8 [1, C, H, W], w int8 [C, 1, 3, 3], y int8.
graph::Graph depthwise_graph(const Case& k, const Tensor& w) {
  exec::testing::Builder b;
  b.input("x", DType::Int8, {1, k.c, k.h, k.w});
  b.constant("sx", exec::testing::scalar_f(std::ldexp(1.0f, -static_cast<int>(k.shift))));
  b.constant("zx", exec::testing::scalar_i8(0));
  b.constant("w", w);
  b.constant("sw", exec::testing::scalar_f(1.0f)).constant("zw", exec::testing::scalar_i8(0));
  b.constant("sy", exec::testing::scalar_f(1.0f)).constant("zy", exec::testing::scalar_i8(0));
  std::map<std::string, graph::Attribute> attrs{
      {"group", k.c},
      {"kernel_shape", std::vector<int64_t>{3, 3}},
      {"pads", std::vector<int64_t>{1, 1, 1, 1}},
      {"strides", std::vector<int64_t>{k.stride, k.stride}}};
  if (k.relu && k.clip_hi == 127) attrs["activation"] = std::string("Relu");
  if (k.relu && k.clip_hi < 127) {
    attrs["activation"] = std::string("Clip");
    attrs["activation_min"] = 0.0;
    attrs["activation_max"] = static_cast<double>(k.clip_hi);
  }
  const int64_t ho = (k.h + 2 - 3) / k.stride + 1, wo = (k.w + 2 - 3) / k.stride + 1;
  b.node("QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy"}, {"y"}, attrs, "",
         {{DType::Int8, graph::Shape{1, k.c, ho, wo}}});
  return b.done({"y"});
}

TEST(DwDatapath, BitExactAgainstTheHostEnginesDepthwiseQLinearConv) {
  const std::vector<Case> cases = {
      {8, 8, 16, 1, 0, false, 127}, {8, 8, 16, 1, 7, true, 127},  {7, 5, 24, 1, 5, true, 127},
      {9, 9, 40, 2, 6, true, 127},  {6, 5, 33, 2, 4, false, 127}, {16, 16, 48, 1, 8, true, 48},
      {3, 4, 1, 1, 2, true, 127},   {1, 1, 17, 1, 3, false, 127}, {10, 7, 32, 2, 9, true, 20}};
  const DwConfig dw;  // the preset's engine: 16 channels, 3x3, 4-cycle loop, 16 B/cycle
  uint64_t seed = 100;
  for (const Case& k : cases) {
    SCOPED_TRACE(std::to_string(k.h) + "x" + std::to_string(k.w) + "x" + std::to_string(k.c) +
                 " stride " + std::to_string(k.stride) + " shift " + std::to_string(k.shift));
    const Tensor x =
        exec::testing::random_tensor(DType::Int8, {1, k.c, k.h, k.w}, ++seed, -128, 127);
    const Tensor w = exec::testing::random_tensor(DType::Int8, {k.c, 1, 3, 3}, ++seed, -128, 127);
    const graph::Graph g = depthwise_graph(k, w);
    exec::Engine engine(g);
    const Tensor host = engine.run({{"x", x}}).at("y");
    const Tensor ref = exec::run_reference(g, {{"x", x}}).at("y");

    // The same data in the engine's layouts: HWC input, K x K x C weights.
    std::vector<int8_t> in_hwc(static_cast<size_t>(k.h * k.w * k.c)), w_kkc(9 * k.c);
    for (int64_t c = 0; c < k.c; ++c) {
      for (int64_t y = 0; y < k.h; ++y)
        for (int64_t xx = 0; xx < k.w; ++xx)
          in_hwc[static_cast<size_t>((y * k.w + xx) * k.c + c)] =
              x.data<int8_t>()[(c * k.h + y) * k.w + xx];
      for (int64_t t = 0; t < 9; ++t)
        w_kkc[static_cast<size_t>(t * k.c + c)] = w.data<int8_t>()[c * 9 + t];
    }
    const DwLayer layer{k.h, k.w, k.c, 3, k.stride, 1};
    DwRequant rq;
    rq.shift = static_cast<int>(k.shift);
    rq.relu = k.relu;
    rq.clip_hi = k.clip_hi;
    const DwDatapathRun run = dw_datapath_run(dw, layer, in_hwc, w_kkc, rq);
    ASSERT_EQ(host.shape, (graph::Shape{1, k.c, run.out_height, run.out_width}));
    int64_t diffs = 0, diffs_ref = 0, nonzero = 0;
    for (int64_t c = 0; c < k.c; ++c)
      for (int64_t y = 0; y < run.out_height; ++y)
        for (int64_t xx = 0; xx < run.out_width; ++xx) {
          const int64_t nchw = (c * run.out_height + y) * run.out_width + xx;
          const int8_t ours = run.output[static_cast<size_t>((y * run.out_width + xx) * k.c + c)];
          diffs += ours != host.data<int8_t>()[nchw];
          diffs_ref += ours != ref.data<int8_t>()[nchw];
          nonzero += ours != 0;
        }
    EXPECT_EQ(diffs, 0) << "of " << host.numel() << " outputs (oneDNN)";
    EXPECT_EQ(diffs_ref, 0) << "of " << ref.numel() << " outputs (reference interpreter)";
    EXPECT_GT(nonzero, host.numel() / 4);  // the comparison is not between two zero tensors
    // The walk's cycles and MACs are the closed form's.
    const DwCost cost = dw_engine_cost(dw, layer);
    EXPECT_EQ(run.cycles, cost.cycles);
    EXPECT_EQ(run.macs, cost.macs);
  }
}

TEST(DwDatapath, WalkedCyclesMatchTheClosedFormForOtherEngines) {
  std::vector<int8_t> in, wt;
  for (const int64_t bw : {4, 8, 16, 32})
    for (const int64_t loop : {2, 4, 6}) {
      DwConfig dw;
      dw.bytes_per_cycle = bw;
      dw.inner_loop_cycles = loop;
      dw.config_cycles = 7;
      for (const DwLayer l :
           {DwLayer{5, 4, 20, 3, 1, 1}, DwLayer{6, 7, 16, 3, 2, 1}, DwLayer{4, 4, 3, 3, 1, 0}}) {
        in.assign(static_cast<size_t>(l.height * l.width * l.channels), 1);
        wt.assign(static_cast<size_t>(9 * l.channels), 1);
        const DwDatapathRun r = dw_datapath_run(dw, l, in, wt, {});
        EXPECT_EQ(r.cycles, dw_engine_cost(dw, l).cycles) << bw << " B/cycle, loop " << loop;
      }
    }
}

TEST(DwDatapath, ShiftRoundingByHand) {
  DwRequant r;
  r.relu = false;
  r.shift = 1;
  // 5 / 2 = 2.5, -5 / 2 = -2.5, 7 / 2 = 3.5, 6 / 2 = 3.
  const std::vector<std::pair<ShiftRounding, std::vector<int>>> expected = {
      {ShiftRounding::HalfEven, {2, -2, 4, 3}},
      {ShiftRounding::HalfUp, {3, -2, 4, 3}},
      {ShiftRounding::Truncate, {2, -3, 3, 3}}};
  for (const auto& [mode, want] : expected) {
    r.rounding = mode;
    EXPECT_EQ(dw_requantize(5, r), want[0]);
    EXPECT_EQ(dw_requantize(-5, r), want[1]);
    EXPECT_EQ(dw_requantize(7, r), want[2]);
    EXPECT_EQ(dw_requantize(6, r), want[3]);
  }
  r.rounding = ShiftRounding::HalfEven;
  r.shift = 4;
  EXPECT_EQ(dw_requantize(100000, r), 127);  // clip
  EXPECT_EQ(dw_requantize(-100000, r), -128);
  r.relu = true;
  EXPECT_EQ(dw_requantize(-100000, r), 0);
  r.clip_hi = 6;
  EXPECT_EQ(dw_requantize(8 * 16, r), 6);
}

TEST(DwDatapath, BadArgumentsAreUserErrors) {
  const DwConfig dw;
  const DwLayer l{4, 4, 16, 3, 1, 1};
  const std::vector<int8_t> in(4 * 4 * 16), wt(9 * 16);
  EXPECT_THROW((void)dw_datapath_run(dw, l, std::span(in).first(10), wt, {}), UserError);
  EXPECT_THROW((void)dw_datapath_run(dw, l, in, std::span(wt).first(9), {}), UserError);
  DwRequant r;
  r.shift = 32;
  EXPECT_THROW((void)dw_datapath_run(dw, l, in, wt, r), UserError);
  r.shift = 0;
  r.clip_lo = 5;
  r.clip_hi = 4;
  EXPECT_THROW((void)dw_datapath_run(dw, l, in, wt, r), UserError);
  EXPECT_THROW((void)dw_datapath_run(dw, {4, 4, 16, 5, 1, 2}, in, wt, {}), UserError);
}

}  // namespace
}  // namespace hetcim::cluster
