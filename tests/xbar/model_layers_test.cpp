#include "xbar/model_layers.h"

#include <gtest/gtest.h>

#include "util/error.h"
#include "zoo/race_cnn.h"

namespace hetcim::xbar {
namespace {

graph::Graph tiny() {
  graph::Graph g;
  g.name = "tiny";
  g.inputs = {"x"};
  g.outputs = {"y", "z", "u"};
  graph::Node conv{"conv", "Conv", "", {"x", "wc"}, {"c"}, {}};
  graph::Node grouped{"dw", "Conv", "", {"x", "wd"}, {"d"}, {{"group", int64_t{2}}}};
  graph::Node gemm{"fc", "Gemm", "", {"f", "wg"}, {"y"}, {{"transB", int64_t{1}}, {"alpha", 2.0}}};
  graph::Node mm{"mm", "MatMul", "", {"f", "wm"}, {"z"}, {}};
  graph::Node act{"act", "MatMul", "", {"f", "f2"}, {"u"}, {}};  // activation x activation
  g.nodes = {conv, grouped, gemm, mm, act};
  g.initializers["wc"] = graph::Initializer::from_floats({2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  g.initializers["wd"] = graph::Initializer::from_floats({2, 1, 1, 1}, {1, 2});
  g.initializers["wg"] = graph::Initializer::from_floats({2, 3}, {1, 2, 3, 4, 5, 6});  // [out, in]
  g.initializers["wm"] = graph::Initializer::from_floats({3, 2}, {1, 2, 3, 4, 5, 6});  // [in, out]
  return g;
}

TEST(ModelLayers, CrossbarLayoutsOfConvGemmMatMul) {
  const ModelLayers l = crossbar_layers(tiny());
  ASSERT_EQ(l.mapped.size(), 3u);
  EXPECT_EQ(l.skipped, (std::vector<std::string>{"dw (grouped convolution)",
                                                 "act (right operand is not a constant matrix)"}));
  const CrossbarMatrix& conv = l.mapped[0];
  EXPECT_EQ(conv.rows, 4);  // C_in * K_h * K_w
  EXPECT_EQ(conv.cols, 2);  // C_out
  EXPECT_EQ(conv.weights, (std::vector<float>{1, 5, 2, 6, 3, 7, 4, 8}));
  const CrossbarMatrix& fc = l.mapped[1];  // transB: [out 2, in 3] -> 3 x 2, times alpha = 2
  EXPECT_EQ(fc.rows, 3);
  EXPECT_EQ(fc.cols, 2);
  EXPECT_EQ(fc.weights, (std::vector<float>{2, 8, 4, 10, 6, 12}));
  const CrossbarMatrix& mm = l.mapped[2];
  EXPECT_EQ(mm.rows, 3);
  EXPECT_EQ(mm.weights, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ModelLayers, AuditProgramsEveryLayerOrTheNamedOnes) {
  ChipProfile p;
  p.name = "a";
  const Chip chip(p, 1);
  const auto all = audit_model(tiny(), chip);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].layer, "fc");
  EXPECT_DOUBLE_EQ(all[1].gamma, 12.0);
  EXPECT_EQ(all[1].distinct_levels, 6);  // 2..12 over gamma 12: levels 42, 85, 128, 170, 212, 255
  const auto one = audit_model(tiny(), chip, {"mm"});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].layer, "mm");
  EXPECT_THROW((void)audit_model(tiny(), chip, {"dw"}), UserError);
  // A zoo graph describes the architecture only: no values to map.
  try {
    (void)crossbar_layers(zoo::race_cnn(1, {1, 28, 28, 10}));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("carries no values"), std::string::npos);
  }
}

}  // namespace
}  // namespace hetcim::xbar
