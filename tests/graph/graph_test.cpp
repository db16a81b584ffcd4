#include "graph/graph.h"

#include <gtest/gtest.h>

#include <cmath>

#include "graph/constant_values.h"
#include "util/error.h"

namespace hetcim::graph {
namespace {

Graph chain() {
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{1, 4}};
  g.outputs = {"z"};
  // Deliberately out of order: validate() must sort.
  g.nodes.push_back({"b", "Relu", "", {"y"}, {"z"}, {}});
  g.nodes.push_back({"a", "Relu", "", {"x"}, {"y"}, {}});
  return g;
}

std::string message_of(Graph g) {
  try {
    validate(g);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Graph, ValidateSortsTopologically) {
  Graph g = chain();
  validate(g);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "a");
  EXPECT_EQ(g.nodes[1].name, "b");
}

TEST(Graph, ValidateNamesTheOffender) {
  Graph g = chain();
  g.nodes[0].inputs = {"nope"};
  EXPECT_NE(message_of(g).find("node 'b' (Relu) reads tensor 'nope'"), std::string::npos);

  g = chain();
  g.nodes[1].name = "b";
  EXPECT_NE(message_of(g).find("two nodes are named 'b'"), std::string::npos);

  g = chain();
  g.nodes[1].inputs = {"z"};  // a <- b <- a
  g.inputs.clear();
  g.values.clear();
  EXPECT_NE(message_of(g).find("cycle"), std::string::npos);

  g = chain();
  g.initializers["w"] = Initializer::from_floats({2, 2}, {1, 2, 3});
  EXPECT_NE(message_of(g).find("initializer 'w': 12 bytes"), std::string::npos);
}

TEST(Graph, InitializerRoundTripsValues) {
  Initializer f = Initializer::from_floats({3}, {1.5f, -2.0f, 0.25f});
  EXPECT_EQ(f.floats(), (std::vector<float>{1.5f, -2.0f, 0.25f}));
  Initializer i = Initializer::from_ints({2}, {-7, 1LL << 40});
  EXPECT_EQ(i.ints(), (std::vector<int64_t>{-7, 1LL << 40}));
  EXPECT_EQ(element_count({2, 3, 4}), 24);
  EXPECT_EQ(element_count({2, -1}), -1);
  EXPECT_EQ(shape_str({1, 64, 56, 56}), "1x64x56x56");
}

TEST(Graph, AttributeTypesAreChecked) {
  Node n{"c", "Conv", "", {}, {}, {{"group", int64_t{2}}, {"auto_pad", std::string("NOTSET")}}};
  EXPECT_EQ(n.attr_int("group", 1), 2);
  EXPECT_EQ(n.attr_int("missing", 7), 7);
  EXPECT_THROW((void)n.attr_int("auto_pad", 0), UserError);
}

// Cast of constants as ONNX Cast: float -> integer truncates toward zero, out-of-range values
// saturate and NaN gives 0 (both undefined in ONNX; hetcim's choice), integer narrowing wraps.
TEST(ConstantValues, CastAndFill) {
  const Initializer f =
      Initializer::from_floats({5}, {-1.7f, 2.9f, 300.0f, -300.0f, std::nanf("")});
  EXPECT_EQ(cast_to(f, DType::Int8).ints(), (std::vector<int64_t>{-1, 2, 127, -128, 0}));
  EXPECT_EQ(cast_to(f, DType::UInt8).ints(), (std::vector<int64_t>{0, 2, 255, 0, 0}));
  EXPECT_EQ(cast_to(f, DType::Bool).ints(), (std::vector<int64_t>{1, 1, 1, 1, 1}));
  const Initializer i = Initializer::from_ints({3}, {300, -1, 7});
  EXPECT_EQ(cast_to(i, DType::Int8).ints(), (std::vector<int64_t>{44, -1, 7}));  // 300 - 256
  EXPECT_EQ(cast_to(i, DType::Float32).floats(), (std::vector<float>{300, -1, 7}));
  const Initializer z = filled(DType::Int32, {2, 2}, 7.0);
  EXPECT_EQ(z.info.dtype, DType::Int32);
  EXPECT_EQ(z.ints(), (std::vector<int64_t>{7, 7, 7, 7}));
  EXPECT_EQ(dtype_from_onnx_code(6), DType::Int32);
  EXPECT_FALSE(dtype_from_onnx_code(10).has_value());  // FLOAT16: not represented
}

}  // namespace
}  // namespace hetcim::graph
