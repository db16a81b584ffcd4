// Float convolutions whose kernel reaches past the input into padding on every output (a dilated
// kernel on a small map, as DeepLabV3's ASPP; a 7x7 depthwise kernel on a 2x2 map, as ConvNeXt's
// last stage at small inputs): the engine runs them on the taps that read the input, so oneDNN
// takes a direct kernel instead of its im2col GEMM. The outputs must equal the reference
// interpreter's (which runs every tap) on random data.
#include <gtest/gtest.h>

#include "exec/engine.h"
#include "test_util.h"

namespace hetcim::exec {
namespace {

using graph::DType;
using testing::Builder;
using testing::random_tensor;
using A = std::map<std::string, graph::Attribute>;
using Ints = std::vector<int64_t>;

const OpInfo& op_named(const Engine& e, const std::string& name) {
  for (const OpInfo& o : e.ops())
    if (o.name == name) return o;
  throw std::runtime_error("no operator " + name);
}

// One Conv (+ a Relu the engine fuses into it) against the reference; returns the conv's impl.
std::string check(const graph::Shape& x, const graph::Shape& w, const A& attrs,
                  const graph::Shape& y) {
  Builder b;
  b.input("x", DType::Float32, x);
  b.constant("w", random_tensor(DType::Float32, w, 11));
  b.constant("bias", random_tensor(DType::Float32, {w[0]}, 12));
  b.node("Conv", {"x", "w", "bias"}, {"c"}, attrs, "", {{DType::Float32, y}});
  b.node("Relu", {"c"}, {"r"}, {}, "", {{DType::Float32, y}});
  const graph::Graph g = b.done({"r"});
  const TensorMap in{{"x", random_tensor(DType::Float32, x, 13)}};
  testing::expect_engine_matches_reference(g, in, 1e-5, 1);
  testing::expect_engine_matches_reference(g, in, 1e-5, 2);
  const Engine e(g);
  return op_named(e, "n0_Conv").impl;  // Builder names nodes n<index>_<op>
}

TEST(EngineConvTaps, DilatedKernelOnASmallMapRunsItsCentreTap) {
  // Dilation 12 on a 4x4 map, pads 12: only the centre tap ever reads the input (ASPP).
  const std::string impl =
      check({1, 16, 4, 4}, {8, 16, 3, 3},
            A{{"dilations", Ints{12, 12}}, {"pads", Ints{12, 12, 12, 12}}}, {1, 8, 4, 4});
  EXPECT_NE(impl.find("taps 1x1 of 3x3"), std::string::npos) << impl;
  EXPECT_EQ(impl.find("gemm"), std::string::npos) << impl;
}

TEST(EngineConvTaps, LargeDepthwiseKernelOnATinyMap) {
  // 7x7 depthwise on 2x2, pads 3: taps 2..4 of each axis read the input.
  const std::string impl =
      check({1, 16, 2, 2}, {16, 1, 7, 7}, A{{"group", int64_t{16}}, {"pads", Ints{3, 3, 3, 3}}},
            {1, 16, 2, 2});
  EXPECT_NE(impl.find("taps 3x3 of 7x7"), std::string::npos) << impl;
  EXPECT_EQ(impl.find("gemm"), std::string::npos) << impl;
}

TEST(EngineConvTaps, AsymmetricPadsAndStride) {
  // Height: pads 4 (top) and 1 (bottom) on 2 rows, 5 taps: outputs 0..2 read input rows through
  // taps 2..4 only (top 2, bottom 1 after cropping). Width: stride 2, every tap live.
  const std::string impl =
      check({1, 8, 2, 6}, {8, 8, 5, 3}, A{{"pads", Ints{4, 1, 1, 1}}, {"strides", Ints{1, 2}}},
            {1, 8, 3, 3});
  EXPECT_NE(impl.find("taps 3x3 of 5x3"), std::string::npos) << impl;
}

TEST(EngineConvTaps, EveryTapLiveKeepsTheKernel) {
  const std::string impl =
      check({1, 8, 9, 9}, {8, 8, 3, 3}, A{{"pads", Ints{1, 1, 1, 1}}}, {1, 8, 9, 9});
  EXPECT_EQ(impl.find("taps"), std::string::npos) << impl;
}

}  // namespace
}  // namespace hetcim::exec
