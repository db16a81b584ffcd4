#include "workload/workload.h"

#include <gtest/gtest.h>

#include "util/error.h"

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

TEST(Workload, TensorOfUnknownShapeIsAnErrorNamingNodeAndTensor) {
  Graph g = two_ops();
  g.nodes.push_back({"act", "Relu", "", {"c"}, {"r"}, {}});
  g.values["r"] = {DType::Float32, Shape{1, -1, 56, 56}};  // a dimension inference left open
  g.outputs.push_back("r");
  graph::validate(g);
  try {
    (void)analyze(g);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'act' (Relu): the shape of tensor 'r' is 1x?x56x56"),
              std::string::npos)
        << e.what();
    // Every model input is fixed: no flag would help, and the message says so.
    EXPECT_NE(std::string(e.what()).find("every model input's shape is fixed, so --input-shape "
                                         "cannot help"),
              std::string::npos)
        << e.what();
  }
  g.values.erase("r");  // nothing known at all
  EXPECT_THROW((void)analyze(g), UserError);
}

// An input dimension the file leaves open (a sequence length 'T'): the message names the input
// and the --input-shape that fixes it, with the open dimension marked.
TEST(Workload, OpenInputDimensionIsNamedWithTheFlagThatFixesIt) {
  Graph g;
  g.inputs = {"tokens"};
  g.values["tokens"] = {DType::Float32, Shape{1, -1, 64}};
  g.initializers["w"] = Initializer::shape_only(DType::Float32, {64, 32});
  g.nodes.push_back({"proj", "MatMul", "", {"tokens", "w"}, {"y"}, {}});
  g.values["y"] = {DType::Float32, Shape{1, -1, 32}};
  g.outputs = {"y"};
  graph::validate(g);
  try {
    (void)analyze(g);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("node 'proj' (MatMul): the shape of tensor 'tokens' is 1x?x64"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("--input-shape tokens=1xD1x64"), std::string::npos) << m;
  }
}

// A MatMul of two activations (attention's Q x K^T) holds no stationary weights: not offloadable.
// A MatMul with a constant 2-D weight is a crossbar GeMM.
TEST(Workload, AttentionMatMulIsNotOffloadableWeightMatMulIs) {
  Graph g;
  g.inputs = {"q", "k"};
  g.values["q"] = {DType::Float32, Shape{1, 4, 16, 8}};
  g.values["k"] = {DType::Float32, Shape{1, 4, 8, 16}};
  g.initializers["w"] = Initializer::shape_only(DType::Float32, {16, 32});
  g.nodes.push_back({"scores", "MatMul", "", {"q", "k"}, {"s"}, {}});
  g.values["s"] = {DType::Float32, Shape{1, 4, 16, 16}};
  g.nodes.push_back({"proj", "MatMul", "", {"s", "w"}, {"y"}, {}});
  g.values["y"] = {DType::Float32, Shape{1, 4, 16, 32}};
  g.outputs = {"y"};
  graph::validate(g);
  const Workload w = analyze(g);
  EXPECT_FALSE(w.ops[0].offloadable);
  EXPECT_EQ(w.ops[0].crossbars, 0);
  EXPECT_TRUE(w.ops[1].offloadable);
  EXPECT_EQ(w.ops[1].rows, 16);
  EXPECT_EQ(w.ops[1].n_mvm, 4 * 16);  // one input vector per row of the 64 rows of s
  EXPECT_EQ(w.totals.offloadable, 1);
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
