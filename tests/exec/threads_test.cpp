// Per-operator thread counts (engine.h, "Threads"): an operator whose work is under 2^19
// multiply-accumulates runs on one thread, a larger one on EngineOptions::threads. The MAC counts
// below are worked out by hand from the shapes; the outputs on 2 threads must still equal the
// reference interpreter's.
#include <gtest/gtest.h>

#include "exec/engine.h"
#include "exec/reference.h"
#include "test_util.h"

namespace hetcim::exec {
namespace {

using graph::DType;
using testing::Builder;
using testing::random_tensor;
using A = std::map<std::string, graph::Attribute>;
using Ints = std::vector<int64_t>;

// x [1, 512] -> Gemm with B [512, n] -> Relu -> Gemm with B [n, 8].
graph::Graph gemms(int64_t n) {
  Builder b;
  b.input("x", DType::Float32, {1, 512});
  b.constant("b1", random_tensor(DType::Float32, {512, n}, 1, -0.1, 0.1))
      .constant("b2", random_tensor(DType::Float32, {n, 8}, 2, -0.1, 0.1));
  b.node("Gemm", {"x", "b1"}, {"h"});
  b.node("Relu", {"h"}, {"r"});
  b.node("Gemm", {"r", "b2"}, {"y"});
  return b.done({"y"});
}

TEST(Threads, SmallOperatorsRunOnOneThread) {
  for (const int64_t n : {1024, 1023}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const graph::Graph g = gemms(n);
    const TensorMap in{{"x", random_tensor(DType::Float32, {1, 512}, 3)}};
    const TensorMap ref = run_reference(g, in);
    Engine two(g, EngineOptions(2)), one(g, EngineOptions(1));
    // Gemm 1: n outputs x 512 MACs each = 2^19 at n = 1024 (parallel), 2^19 - 512 at 1023.
    EXPECT_EQ(two.ops()[0].threads, n == 1024 ? 2 : 1);
    // Relu: 16 x n < 2^19; Gemm 2: 8 outputs x n MACs < 2^19.
    EXPECT_EQ(two.ops()[1].threads, 1);
    EXPECT_EQ(two.ops()[2].threads, 1);
    for (const OpInfo& o : one.ops()) EXPECT_EQ(o.threads, 1);
    EXPECT_LE(testing::rel_error(two.run(in).at("y"), ref.at("y")), 1e-4);
    EXPECT_LE(testing::rel_error(one.run(in).at("y"), ref.at("y")), 1e-4);
  }
}

TEST(Threads, ConvolutionWorkCountsChannelsAndTaps) {
  // Conv 64 -> 64, 3x3, pad 1 on 16x16: 64 x 16 x 16 outputs x 64 x 9 MACs = 9,437,184 (parallel);
  // grouped (8 groups) 1x1 64 -> 64: 16,384 outputs x 8 MACs = 131,072 (one thread).
  Builder b;
  b.input("x", DType::Float32, {1, 64, 16, 16});
  b.constant("w1", random_tensor(DType::Float32, {64, 64, 3, 3}, 4, -0.05, 0.05))
      .constant("w2", random_tensor(DType::Float32, {64, 8, 1, 1}, 5, -0.3, 0.3));
  b.node("Conv", {"x", "w1"}, {"c"}, A{{"pads", Ints{1, 1, 1, 1}}});
  b.node("Conv", {"c", "w2"}, {"y"}, A{{"group", int64_t{8}}});
  const graph::Graph g = b.done({"y"});
  const TensorMap in{{"x", random_tensor(DType::Float32, {1, 64, 16, 16}, 6)}};
  Engine e(g, EngineOptions(2));
  EXPECT_EQ(e.ops()[0].threads, 2);
  EXPECT_EQ(e.ops()[1].threads, 1);
  EXPECT_LE(testing::rel_error(e.run(in).at("y"), run_reference(g, in).at("y")), 1e-4);
}

}  // namespace
}  // namespace hetcim::exec
