#include "graph/graph.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hetcim::graph
