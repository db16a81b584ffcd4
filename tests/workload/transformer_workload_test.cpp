// The workload view of a transformer (issue 32, scope 4): weight-stationary MatMul/Gemm are
// offloadable with their eq. (1) crossbar need, attention's activation x activation MatMuls are
// host-only with that reason. Every expected number is worked out by hand in the comments from
// the graph of transformer_graph.h (batch 2, 10 tokens, d = 96, MLP 384, 10 classes).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "workload/transformer_graph.h"
#include "workload/workload.h"

namespace hetcim::workload {
namespace {

std::map<std::string, const OpWorkload*> by_name(const Workload& w) {
  std::map<std::string, const OpWorkload*> m;
  for (const OpWorkload& op : w.ops) m[op.name] = &op;
  return m;
}

TEST(TransformerWorkload, OffloadableSetIsTheWeightStationaryProducts) {
  const Workload w = analyze(testing::two_block_transformer());
  std::set<std::string> offloadable, attention;
  for (const OpWorkload& op : w.ops) {
    if (op.offloadable) {
      offloadable.insert(op.name);
      EXPECT_TRUE(op.host_only_reason.empty()) << op.name;
    }
    if (op.host_only_reason == "activation x activation MatMul") attention.insert(op.name);
  }
  // 6 products with a constant B per block (q, k, v, o, mlp1, mlp2) and the classifier Gemm.
  const std::set<std::string> want = {"b0.q",    "b0.k",    "b0.v",      "b0.o", "b0.mlp1",
                                      "b0.mlp2", "b1.q",    "b1.k",      "b1.v", "b1.o",
                                      "b1.mlp1", "b1.mlp2", "classifier"};
  EXPECT_EQ(offloadable, want);
  EXPECT_EQ(w.totals.offloadable, 13);
  EXPECT_EQ(attention,
            (std::set<std::string>{"b0.scores", "b0.context", "b1.scores", "b1.context"}));
  const auto ops = by_name(w);
  EXPECT_EQ(ops.at("b0.softmax")->host_only_reason, "no weight matrix");
  EXPECT_EQ(ops.at("b0.scores")->crossbars, 0);
}

// 256x256 crossbars: a 96x96 projection needs ceil(96/256) * ceil(96/256) = 1, mlp1 (96x384)
// 1 * ceil(384/256) = 2, mlp2 (384x96) 2 * 1 = 2, the classifier (K = 96, 10 outputs) 1:
// 2 * (4 + 2 + 2) + 1 = 17. N_mvm of a MatMul on [2, 10, 96] is batch x rows = 20; the
// classifier sees 2 vectors.
TEST(TransformerWorkload, CrossbarNeedAndMvmCountsBy256Crossbars) {
  const Workload w = analyze(testing::two_block_transformer());
  const auto ops = by_name(w);
  const OpWorkload& q = *ops.at("b0.q");
  EXPECT_EQ(q.rows, 96);
  EXPECT_EQ(q.cols, 96);
  EXPECT_EQ(q.n_mvm, 20);
  EXPECT_EQ(q.macs, 20 * 96 * 96);
  EXPECT_EQ(q.crossbars, 1);
  const OpWorkload& m1 = *ops.at("b1.mlp1");
  EXPECT_EQ(m1.rows, 96);
  EXPECT_EQ(m1.cols, 384);
  EXPECT_EQ(m1.n_mvm, 20);
  EXPECT_EQ(m1.crossbars, 2);
  EXPECT_EQ(ops.at("b1.mlp2")->crossbars, 2);
  const OpWorkload& c = *ops.at("classifier");
  EXPECT_EQ(c.rows, 96);
  EXPECT_EQ(c.cols, 10);
  EXPECT_EQ(c.n_mvm, 2);
  EXPECT_EQ(c.crossbars, 1);
  EXPECT_EQ(w.totals.crossbars, 17);
  // MACs of the offloadable products: per block 4 * 20*96*96 + 2 * 20*96*384 = 2,211,840;
  // two blocks and the classifier's 2*96*10 = 1,920.
  EXPECT_EQ(w.totals.offloadable_macs, 2 * 2211840 + 1920);
  // Attention's products are counted too (4 x 19,200, the next test).
  EXPECT_EQ(w.totals.macs, 2 * 2211840 + 1920 + 4 * 19200);
}

// An activation x activation MatMul's MACs by formula: elements(output) x K. Q x K^T is
// [2, 2, 10, 48] x [2, 2, 48, 10] -> [2, 2, 10, 10]: 400 dot products of length 48 = 19,200;
// A x V is [2, 2, 10, 10] x [2, 2, 10, 48] -> [2, 2, 10, 48]: 1,920 of length 10 = 19,200.
// Host-only: no M_v x N_v, no N_mvm, no crossbars.
TEST(TransformerWorkload, AttentionProductsCountTheirMacs) {
  const Workload w = analyze(testing::two_block_transformer());
  const auto ops = by_name(w);
  for (const char* b : {"b0.", "b1."}) {
    const OpWorkload& s = *ops.at(std::string(b) + "scores");
    EXPECT_EQ(s.macs, 2 * 2 * 10 * 10 * 48);
    EXPECT_EQ(s.macs, 19200);
    EXPECT_FALSE(s.offloadable);
    EXPECT_EQ(s.rows, 0);
    EXPECT_EQ(s.n_mvm, 0);
    EXPECT_EQ(s.crossbars, 0);
    EXPECT_EQ(ops.at(std::string(b) + "context")->macs, 2 * 2 * 10 * 48 * 10);
    EXPECT_EQ(ops.at(std::string(b) + "softmax")->macs, 0);  // no product
  }
}

// 64x64 crossbars with a differential mapping (2 columns per weight): a projection
// ceil(96/64) * ceil(192/64) = 2 * 3 = 6, mlp1 2 * ceil(768/64) = 24, mlp2 ceil(384/64) * 3 = 18,
// the classifier 2 * ceil(20/64) = 2: 2 * (4*6 + 24 + 18) + 2 = 134.
TEST(TransformerWorkload, CrossbarNeedBy64CrossbarsDifferential) {
  WorkloadOptions o;
  o.xbar_rows = 64;
  o.xbar_cols = 64;
  o.columns_per_weight = 2;
  const Workload w = analyze(testing::two_block_transformer(), o);
  const auto ops = by_name(w);
  EXPECT_EQ(ops.at("b0.v")->crossbars, 6);
  EXPECT_EQ(ops.at("b0.mlp1")->crossbars, 24);
  EXPECT_EQ(ops.at("b0.mlp2")->crossbars, 18);
  EXPECT_EQ(ops.at("classifier")->crossbars, 2);
  EXPECT_EQ(w.totals.crossbars, 134);
}

// A constant B with batch dimensions is several weight matrices, not one crossbar matrix; a
// constant A times an activation B and a Gemm of two activations say so too.
TEST(TransformerWorkload, OtherHostOnlyProductsNameTheirReason) {
  using graph::DType;
  using graph::Shape;
  graph::Graph g;
  g.inputs = {"a", "b"};
  g.values["a"] = {DType::Float32, Shape{3, 5, 8}};
  g.values["b"] = {DType::Float32, Shape{8, 4}};
  g.initializers["wb"] = graph::Initializer::shape_only(DType::Float32, {3, 8, 6});
  g.initializers["wa"] = graph::Initializer::shape_only(DType::Float32, {5, 8});
  g.nodes.push_back({"batched", "MatMul", "", {"a", "wb"}, {"y1"}, {}});
  g.values["y1"] = {DType::Float32, Shape{3, 5, 6}};
  g.nodes.push_back({"left", "MatMul", "", {"wa", "b"}, {"y2"}, {}});
  g.values["y2"] = {DType::Float32, Shape{5, 4}};
  g.nodes.push_back({"gemm", "Gemm", "", {"y2", "b"}, {"y3"}, {{"transB", int64_t{1}}}});
  g.values["y3"] = {DType::Float32, Shape{5, 8}};
  g.outputs = {"y1", "y3"};
  graph::validate(g);
  const Workload w = analyze(g);
  const auto ops = by_name(w);
  EXPECT_EQ(ops.at("batched")->host_only_reason,
            "constant B has batch dimensions (several weight matrices)");
  EXPECT_EQ(ops.at("left")->host_only_reason, "constant A, activation B (a crossbar holds B)");
  EXPECT_EQ(ops.at("gemm")->host_only_reason, "activation x activation Gemm");
  EXPECT_EQ(w.totals.offloadable, 0);
  // MACs = elements(output) x K: [3,5,8] x [3,8,6] -> 90 x 8; [5,8] x [8,4] -> 20 x 8;
  // Gemm [5,4] x [8,4]^T -> 40 x 4.
  EXPECT_EQ(ops.at("batched")->macs, 720);
  EXPECT_EQ(ops.at("left")->macs, 160);
  EXPECT_EQ(ops.at("gemm")->macs, 160);
  EXPECT_EQ(w.totals.macs, 1040);
  EXPECT_EQ(w.totals.offloadable_macs, 0);
}

// numpy matmul's broadcasting and 1-D promotion, and Gemm's transA: K is A's last dimension (its
// first with transA), MACs = elements(output) x K.
TEST(TransformerWorkload, ProductMacsFollowBroadcastingAndTransA) {
  using graph::DType;
  using graph::Shape;
  graph::Graph g;
  g.inputs = {"a", "b", "v", "m", "t"};
  g.values["a"] = {DType::Float32, Shape{2, 1, 5, 8}};
  g.values["b"] = {DType::Float32, Shape{3, 8, 4}};
  g.values["v"] = {DType::Float32, Shape{8}};
  g.values["m"] = {DType::Float32, Shape{8, 4}};
  g.values["t"] = {DType::Float32, Shape{8, 5}};
  g.nodes.push_back({"bcast", "MatMul", "", {"a", "b"}, {"y1"}, {}});
  g.values["y1"] = {DType::Float32, Shape{2, 3, 5, 4}};
  g.nodes.push_back({"vec", "MatMul", "", {"v", "m"}, {"y2"}, {}});
  g.values["y2"] = {DType::Float32, Shape{4}};
  g.nodes.push_back({"ta", "Gemm", "", {"t", "m"}, {"y3"}, {{"transA", int64_t{1}}}});
  g.values["y3"] = {DType::Float32, Shape{5, 4}};
  g.outputs = {"y1", "y2", "y3"};
  graph::validate(g);
  const Workload w = analyze(g);
  const auto ops = by_name(w);
  EXPECT_EQ(ops.at("bcast")->macs, 2 * 3 * 5 * 4 * 8);  // [2,1,5,8] x [3,8,4] -> [2,3,5,4]
  EXPECT_EQ(ops.at("vec")->macs, 4 * 8);                // [8] x [8,4] -> [4]
  EXPECT_EQ(ops.at("ta")->macs, 5 * 4 * 8);             // K = A's first dimension with transA
  EXPECT_EQ(w.totals.macs, 960 + 32 + 160);
}

}  // namespace
}  // namespace hetcim::workload
