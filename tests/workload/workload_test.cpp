#include "workload/workload.h"

#include <gtest/gtest.h>

namespace hetcim::workload {
namespace {

using graph::DType;
using graph::Graph;
using graph::Initializer;
using graph::Shape;

// ResNet-18 layer1 conv (64->64, 3x3, 56x56) followed by the 512->1000 classifier on its own
// input, values evaluated by hand from eq. (1)-(3) of seed 000.
Graph two_ops() {
  Graph g;
  g.inputs = {"x", "f"};
  g.values["x"] = {DType::Float32, Shape{1, 64, 56, 56}};
  g.values["f"] = {DType::Float32, Shape{1, 512}};
  g.outputs = {"c", "y"};
  g.initializers["w"] = Initializer::shape_only(DType::Float32, {64, 64, 3, 3});
  g.initializers["fc.w"] = Initializer::shape_only(DType::Float32, {1000, 512});
  g.initializers["fc.b"] = Initializer::shape_only(DType::Float32, {1000});
  g.nodes.push_back({"conv", "Conv", "", {"x", "w"}, {"c"}, {}});
  g.values["c"] = {DType::Float32, Shape{1, 64, 56, 56}};
  g.nodes.push_back({"fc", "Gemm", "", {"f", "fc.w", "fc.b"}, {"y"}, {{"transB", int64_t{1}}}});
  g.values["y"] = {DType::Float32, Shape{1, 1000}};
  graph::validate(g);
  return g;
}

TEST(Workload, ConvAsIm2colGemm) {
  const Workload w = analyze(two_ops());
  const OpWorkload& c = w.ops[0];
  EXPECT_TRUE(c.offloadable);
  EXPECT_EQ(c.rows, 64 * 3 * 3);  // M_v = C_in * K_h * K_w = 576
  EXPECT_EQ(c.cols, 64);
  EXPECT_EQ(c.n_mvm, 56 * 56);
  EXPECT_EQ(c.macs, 64LL * 56 * 56 * 576);
  EXPECT_EQ(c.crossbars, 3);  // ceil(576/256) * ceil(64/256)
  EXPECT_EQ(c.in_bytes, 64 * 56 * 56);
  EXPECT_EQ(c.params, 64 * 64 * 9);
}

TEST(Workload, GemmAndDifferentialMapping) {
  WorkloadOptions o;
  o.columns_per_weight = 2;
  o.elem_bytes = 4;
  const Workload w = analyze(two_ops(), o);
  const OpWorkload& fc = w.ops[1];
  EXPECT_EQ(fc.rows, 512);
  EXPECT_EQ(fc.cols, 2000);
  EXPECT_EQ(fc.n_mvm, 1);
  EXPECT_EQ(fc.crossbars, 2 * 8);  // ceil(512/256) * ceil(2000/256)
  EXPECT_EQ(fc.out_bytes, 4000);
  EXPECT_EQ(fc.params, 512 * 1000 + 1000);
  EXPECT_EQ(w.totals.params, count_params(two_ops()));
}

TEST(Workload, MilpSizeFormulaOfTableI) {
  const Workload w = analyze(two_ops());
  // N = 2, |E| = 0, |P| = 1 (independent), |V_acc| = 2.
  EXPECT_EQ(w.totals.parallel_pairs, 1);
  EXPECT_EQ(w.totals.milp_variables, 3);
  EXPECT_EQ(w.totals.milp_constraints, 0 + 2 + 2 + 0 + 2);
}

}  // namespace
}  // namespace hetcim::workload
