#include "zoo/builder.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace hetcim::zoo {
namespace {

using graph::Shape;

TEST(Builder, NamesParamsAndShapes) {
  Builder b("t");
  std::string x = b.input("x", {1, 3, 8, 8});
  x = b.conv("stem", x, 4, 3, 2, 1);
  // (8 + 2 - 3) / 2 + 1 = 4
  EXPECT_EQ(b.shape(x), (Shape{1, 4, 4, 4}));
  x = b.batch_norm("bn", x);
  const std::string r1 = b.relu("act", x);
  const std::string r2 = b.relu("act", r1);  // a module called twice
  EXPECT_EQ(r1, "act");
  EXPECT_EQ(r2, "act_1");
  const std::string s = b.silu("silu", r2);
  const std::string u = b.upsample_nearest("up", s, 2.0f);
  EXPECT_EQ(b.shape(u), (Shape{1, 4, 8, 8}));
  const std::string f = b.flatten("flatten", b.global_avg_pool("gap", u));
  const std::string y = b.linear("fc", f, 10);
  EXPECT_EQ(b.shape(y), (Shape{1, 10}));
  b.output(y);
  const std::string six = b.scalar(6.0f);
  EXPECT_EQ(six, b.scalar(6.0f));  // shared
  graph::Graph g = std::move(b).finish();
  EXPECT_EQ(g.nodes.front().name, "stem");
  EXPECT_EQ(g.shape_of("stem.weight", "t"), (Shape{4, 3, 3, 3}));
  EXPECT_FALSE(g.initializers.at("stem.weight").has_values());  // shape only
  EXPECT_EQ(g.initializers.at("up.scales").floats(), (std::vector<float>{1, 1, 2, 2}));
  EXPECT_EQ(g.initializers.at(six).floats(), (std::vector<float>{6.0f}));
  EXPECT_GE(g.node_index("silu.sigmoid"), 0);
  EXPECT_GE(g.node_index("silu.mul"), 0);
  EXPECT_EQ(g.nodes[g.node_index("fc")].attr_int("transB", 0), 1);
  EXPECT_EQ(g.shape_of("fc.weight", "t"), (Shape{10, 4}));
}

TEST(Builder, MiswiredLayerFailsAtThatLayer) {
  Builder b("t");
  std::string x = b.input("x", {1, 3, 8, 8});
  std::string a = b.conv("a", x, 4, 3, 1, 1);
  std::string c = b.conv("c", x, 6, 1);
  try {
    (void)b.add_tensors("layer.add", a, c);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'layer.add' (Add): shapes 1x4x8x8 and 1x6x8x8"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)b.conv("g", x, 4, 3, 1, 1, /*groups=*/2), UserError);
}

}  // namespace
}  // namespace hetcim::zoo
