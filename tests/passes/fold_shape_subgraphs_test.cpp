// passes::fold_constants on the shape subgraphs exporters emit: one small hand-built graph per
// folded operator, its value worked out by hand from the ONNX operator definition (spelled out
// beside each case), and the errors for shapes that cannot be folded.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "graph/constant_values.h"
#include "passes/fold_constants.h"
#include "util/error.h"

namespace hetcim::passes {
namespace {

using graph::Attribute;
using graph::DType;
using graph::Graph;
using graph::Initializer;
using graph::Node;
using graph::Shape;
using Ints = std::vector<int64_t>;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << haystack

// A graph with a float input x of a fixed shape; `fold(node)` makes the node's output the graph's
// output, folds, and returns the initializer it became (failing the test if the node stayed).
class Sub {
 public:
  explicit Sub(Shape x = {2, 3, 4, 5}) {
    g_.inputs = {"x"};
    g_.values["x"] = {DType::Float32, std::move(x)};
  }
  Sub& ints(const std::string& name, Shape s, const Ints& v) {
    g_.initializers[name] = Initializer::from_ints(s, v);
    return *this;
  }
  Sub& typed(const std::string& name, DType t, Shape s, const Ints& v) {
    g_.initializers[name] = graph::cast_to(Initializer::from_ints(s, v), t);
    return *this;
  }
  Sub& floats(const std::string& name, Shape s, const std::vector<float>& v) {
    g_.initializers[name] = Initializer::from_floats(s, v);
    return *this;
  }
  Sub& node(const std::string& op, std::vector<std::string> in, std::string out,
            std::map<std::string, Attribute> attrs = {}) {
    g_.nodes.push_back({out + "_node", op, "", std::move(in), {out}, std::move(attrs)});
    return *this;
  }
  // Folds with `out` as the graph output; the folded initializer.
  Initializer fold(const std::string& out) {
    Graph g = g_;
    g.outputs = {out};
    graph::validate(g);
    const Graph f = fold_constants(g);
    EXPECT_TRUE(f.nodes.empty()) << "left " << f.nodes.size() << " nodes, first "
                                 << f.nodes.front().op_type;
    auto it = f.initializers.find(out);
    if (it == f.initializers.end()) throw std::runtime_error(out + " was not folded");
    return it->second;
  }
  Graph folded(const std::string& out) {
    Graph g = g_;
    g.outputs = {out};
    graph::validate(g);
    return fold_constants(g);
  }
  std::string error(const std::string& out) {
    try {
      (void)folded(out);
    } catch (const UserError& e) {
      return e.what();
    }
    return "(no error)";
  }
  Graph& graph() { return g_; }

 private:
  Graph g_;
};

void expect_ints(const Initializer& i, DType t, const Shape& s, const Ints& v) {
  EXPECT_EQ(i.info.dtype, t);
  EXPECT_EQ(*i.info.shape, s);
  EXPECT_EQ(i.ints(), v);
}

TEST(FoldShapeSubgraphs, ShapeWithStartAndEnd) {
  // Shape(x) of 2x3x4x5 with start 1, end -1: dims 1..2.
  Sub s;
  s.node("Shape", {"x"}, "y", {{"start", int64_t{1}}, {"end", int64_t{-1}}});
  expect_ints(s.fold("y"), DType::Int64, {2}, {3, 4});
}

TEST(FoldShapeSubgraphs, GatherOnAnAxisOfAMatrix) {
  // [[1,2,3],[4,5,6]] gathered on axis 1 at [2, -3] (= [2, 0]): [[3,1],[6,4]].
  Sub s;
  s.ints("d", {2, 3}, {1, 2, 3, 4, 5, 6}).ints("i", {2}, {2, -3});
  s.node("Gather", {"d", "i"}, "y", {{"axis", int64_t{1}}});
  expect_ints(s.fold("y"), DType::Int64, {2, 2}, {3, 1, 6, 4});
}

TEST(FoldShapeSubgraphs, UnsqueezeSqueezeAndConcatOnAxisOne) {
  // [[1],[2]] ++ [[3,4],[5,6]] on axis 1: [[1,3,4],[2,5,6]]; Unsqueeze(0) then Squeeze(0) keep
  // the values and give back the shape.
  Sub s;
  s.ints("a", {2, 1}, {1, 2}).ints("b", {2, 2}, {3, 4, 5, 6}).ints("zero", {1}, {0});
  s.node("Concat", {"a", "b"}, "c", {{"axis", int64_t{1}}});
  s.node("Unsqueeze", {"c", "zero"}, "u");
  s.node("Squeeze", {"u", "zero"}, "y");
  expect_ints(s.fold("y"), DType::Int64, {2, 3}, {1, 3, 4, 2, 5, 6});
}

TEST(FoldShapeSubgraphs, SliceWithNegativeStepOnTwoAxes) {
  // 3x4 of 0..11; axis 0 from 2 down to end -4 (= -1, i.e. past row 0), step -1: rows 2, 1, 0;
  // axis 1 from 0 to 4 step 2: columns 0, 2. Values 8, 10, 4, 6, 0, 2.
  Sub s;
  s.ints("d", {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  s.ints("st", {2}, {2, 0}).ints("en", {2}, {-4, 4}).ints("ax", {2}, {0, 1});
  s.ints("sp", {2}, {-1, 2});
  s.node("Slice", {"d", "st", "en", "ax", "sp"}, "y");
  expect_ints(s.fold("y"), DType::Int64, {3, 2}, {8, 10, 4, 6, 0, 2});
}

TEST(FoldShapeSubgraphs, RangeOfIntegersAndOfFloats) {
  // Range(0, 10, 3): ceil(10 / 3) = 4 values 0, 3, 6, 9. Range(1, 2, 0.25): 1, 1.25, 1.5, 1.75.
  Sub s;
  s.ints("s0", {}, {0}).ints("l0", {}, {10}).ints("d0", {}, {3});
  s.floats("s1", {}, {1.0F}).floats("l1", {}, {2.0F}).floats("d1", {}, {0.25F});
  s.node("Range", {"s0", "l0", "d0"}, "y");
  s.node("Range", {"s1", "l1", "d1"}, "z");
  expect_ints(s.fold("y"), DType::Int64, {4}, {0, 3, 6, 9});
  const Initializer z = s.fold("z");
  EXPECT_EQ(*z.info.shape, (Shape{4}));
  EXPECT_EQ(z.floats(), (std::vector<float>{1.0F, 1.25F, 1.5F, 1.75F}));
}

TEST(FoldShapeSubgraphs, EqualBroadcastsToABoolMatrix) {
  // [1,2,3] == [[2],[3]]: [[0,1,0],[0,0,1]].
  Sub s;
  s.ints("a", {3}, {1, 2, 3}).ints("b", {2, 1}, {2, 3});
  s.node("Equal", {"a", "b"}, "y");
  expect_ints(s.fold("y"), DType::Bool, {2, 3}, {0, 1, 0, 0, 0, 1});
}

TEST(FoldShapeSubgraphs, WhereNotAndTile) {
  // Where([1,0,1], [10,20,30], -1) = [10,-1,30]; Not([1,0,1]) = [0,1,0];
  // Tile([[1,2]], [2,2]) = [[1,2,1,2],[1,2,1,2]].
  Sub s;
  s.typed("c", DType::Bool, {3}, {1, 0, 1}).ints("a", {3}, {10, 20, 30}).ints("m", {}, {-1});
  s.ints("t", {1, 2}, {1, 2}).ints("r", {2}, {2, 2});
  s.node("Where", {"c", "a", "m"}, "w");
  s.node("Not", {"c"}, "n");
  s.node("Tile", {"t", "r"}, "tt");
  expect_ints(s.fold("w"), DType::Int64, {3}, {10, -1, 30});
  expect_ints(s.fold("n"), DType::Bool, {3}, {0, 1, 0});
  expect_ints(s.fold("tt"), DType::Int64, {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2});
}

TEST(FoldShapeSubgraphs, ModTakesTheDivisorsSignUnlessFmod) {
  // Python's % (fmod = 0): -7 % 3 = 2, 7 % -3 = -2, -7 % -3 = -1, 7 % 3 = 1.
  // C's fmod (fmod = 1): -1, 1, -1, 1.
  Sub s;
  s.ints("a", {4}, {-7, 7, -7, 7}).ints("b", {4}, {3, -3, -3, 3});
  s.node("Mod", {"a", "b"}, "y");
  s.node("Mod", {"a", "b"}, "z", {{"fmod", int64_t{1}}});
  expect_ints(s.fold("y"), DType::Int64, {4}, {2, -2, -1, 1});
  expect_ints(s.fold("z"), DType::Int64, {4}, {-1, 1, -1, 1});
}

TEST(FoldShapeSubgraphs, IntegerArithmeticAndCast) {
  // Div truncates toward zero: [7, -7] / 2 = [3, -3]; Sub, Add, Mul elementwise with a broadcast
  // scalar. Cast of floats [2.7, -2.7] to int64 truncates: [2, -2]; Cast of [0, 5] to bool:
  // [0, 1].
  Sub s;
  s.ints("a", {2}, {7, -7}).ints("two", {}, {2});
  s.floats("f", {2}, {2.7F, -2.7F}).ints("z5", {2}, {0, 5});
  s.node("Div", {"a", "two"}, "div");
  s.node("Sub", {"a", "two"}, "sub");
  s.node("Add", {"a", "two"}, "add");
  s.node("Mul", {"a", "two"}, "mul");
  s.node("Cast", {"f"}, "ci", {{"to", int64_t{7}}});
  s.node("Cast", {"z5"}, "cb", {{"to", int64_t{9}}});
  expect_ints(s.fold("div"), DType::Int64, {2}, {3, -3});
  expect_ints(s.fold("sub"), DType::Int64, {2}, {5, -9});
  expect_ints(s.fold("add"), DType::Int64, {2}, {9, -5});
  expect_ints(s.fold("mul"), DType::Int64, {2}, {14, -14});
  expect_ints(s.fold("ci"), DType::Int64, {2}, {2, -2});
  expect_ints(s.fold("cb"), DType::Bool, {2}, {0, 1});
}

TEST(FoldShapeSubgraphs, FloatPowOfConstantsIntegerPowLeftToRunTime) {
  // A transformer's attention scale as torch exports it (make_corpus.py's TinyViT: (d // h) **
  // -0.5 with d // h = 16): Pow(16, -0.5) = 0.25. Broadcast: [4, 9] ** 0.5 = [2, 3] and [2, 3] ** 3
  // = [8, 27]. Integer Pow stays an operator.
  Sub s;
  s.floats("sixteen", {}, {16}).floats("minus_half", {}, {-0.5F});
  s.floats("b", {2}, {4, 9}).floats("half", {1}, {0.5F}).floats("c", {2}, {2, 3});
  s.floats("three", {}, {3});
  s.node("Pow", {"sixteen", "minus_half"}, "scale");
  s.node("Pow", {"b", "half"}, "root");
  s.node("Pow", {"c", "three"}, "cube");
  const Initializer scale = s.fold("scale");
  EXPECT_EQ(scale.info.dtype, DType::Float32);
  EXPECT_EQ(*scale.info.shape, Shape{});
  EXPECT_EQ(scale.floats(), std::vector<float>{0.25F});
  EXPECT_EQ(s.fold("root").floats(), (std::vector<float>{2, 3}));
  EXPECT_EQ(s.fold("cube").floats(), (std::vector<float>{8, 27}));

  Sub i;
  i.ints("a", {2}, {2, 3}).ints("two", {}, {2});
  i.node("Pow", {"a", "two"}, "y");
  i.graph().values["y"] = {DType::Int64, Shape{2}};
  EXPECT_EQ(i.folded("y").nodes.size(), 1u);
}

TEST(FoldShapeSubgraphs, ScatterNDAndReduceProd) {
  // ONNX's ScatterND example: data 1..8, indices [[4],[3],[1],[7]], updates [9,10,11,12]:
  // [1,11,3,10,9,6,7,12]. Rows of a matrix: [[0,0,0],[0,0,0]] with row 1 = [7,8,9].
  // ReduceProd of [[1,2,3],[4,5,6]] over axis 1 without keepdims: [6, 120]; over all: [[720]].
  Sub s;
  s.ints("d", {8}, {1, 2, 3, 4, 5, 6, 7, 8}).ints("i", {4, 1}, {4, 3, 1, 7});
  s.ints("u", {4}, {9, 10, 11, 12});
  s.ints("m", {2, 3}, {0, 0, 0, 0, 0, 0}).ints("mi", {1, 1}, {1}).ints("mu", {1, 3}, {7, 8, 9});
  s.ints("p", {2, 3}, {1, 2, 3, 4, 5, 6});
  s.node("ScatterND", {"d", "i", "u"}, "y");
  s.node("ScatterND", {"m", "mi", "mu"}, "rows");
  s.node("ReduceProd", {"p"}, "r1", {{"axes", Ints{1}}, {"keepdims", int64_t{0}}});
  s.node("ReduceProd", {"p"}, "rall");
  expect_ints(s.fold("y"), DType::Int64, {8}, {1, 11, 3, 10, 9, 6, 7, 12});
  expect_ints(s.fold("rows"), DType::Int64, {2, 3}, {0, 0, 0, 7, 8, 9});
  // k = 0: one empty index tuple replaces the whole tensor: [1, 2] -> [5, 6].
  s.ints("d2", {2}, {1, 2}).ints("i0", {1, 0}, {}).ints("u2", {1, 2}, {5, 6});
  s.node("ScatterND", {"d2", "i0", "u2"}, "whole");
  expect_ints(s.fold("whole"), DType::Int64, {2}, {5, 6});
  expect_ints(s.fold("r1"), DType::Int64, {2}, {6, 120});
  expect_ints(s.fold("rall"), DType::Int64, {1, 1}, {720});
}

// torchvision's VisionTransformer: `self.class_token.expand(n, -1, -1)` exports as
// c = [1, -1, -1] (n = 1 from Shape); ones = ConstantOfShape([3]) = [1, 1, 1];
// Where(c == ones * -1, ones, c) = [1, 1, 1]; Expand(class_token 1x1x4, [1, 1, 1]) = class_token.
// Then Concat with the patch tokens, whose shape ONNX left open, gets 1x3x4.
TEST(FoldShapeSubgraphs, VitClassTokenExpandFoldsAndTheConcatGetsItsShape) {
  Sub s({1, 2, 4});
  s.ints("c", {3}, {1, -1, -1}).ints("three", {1}, {3}).ints("minus1", {}, {-1});
  s.floats("class_token", {1, 1, 4}, {0.5F, -1.0F, 2.0F, 0.25F});
  s.node("ConstantOfShape", {"three"}, "ones",
         {{"value", int64_t{1}}, {"value_dtype", int64_t{7}}});
  s.node("Mul", {"ones", "minus1"}, "neg");
  s.node("Equal", {"c", "neg"}, "eq");
  s.node("Where", {"eq", "ones", "c"}, "shape");
  s.node("Expand", {"class_token", "shape"}, "tok");
  s.node("Concat", {"tok", "x"}, "y", {{"axis", int64_t{1}}});
  s.graph().values["y"] = {DType::Float32, Shape{-1, -1, 4}};  // as ONNX's inference leaves it
  const Graph f = s.folded("y");
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].op_type, "Concat");
  EXPECT_EQ(f.initializers.at("tok").floats(), (std::vector<float>{0.5F, -1.0F, 2.0F, 0.25F}));
  EXPECT_EQ(*f.initializers.at("tok").info.shape, (Shape{1, 1, 4}));
  EXPECT_EQ(*f.values.at("y").shape, (Shape{1, 3, 4}));
}

TEST(FoldShapeSubgraphs, ExpandAndTransposeOfConstants) {
  // [[1],[2]] expanded to [2, 3]: [1,1,1,2,2,2]; its transpose: [[1,2],[1,2],[1,2]].
  Sub s;
  s.ints("a", {2, 1}, {1, 2}).ints("to", {2}, {2, 3});
  s.node("Expand", {"a", "to"}, "e");
  s.node("Transpose", {"e"}, "t", {{"perm", Ints{1, 0}}});
  expect_ints(s.fold("t"), DType::Int64, {3, 2}, {1, 2, 1, 2, 1, 2});
}

TEST(FoldShapeSubgraphs, OverflowIsLeftToRunTime) {
  // 2^62 * 4 overflows int64: not folded, the Mul stays.
  Sub s;
  s.ints("a", {1}, {int64_t{1} << 62}).ints("four", {1}, {4});
  s.node("Mul", {"a", "four"}, "y");
  s.graph().values["y"] = {DType::Int64, Shape{1}};
  EXPECT_EQ(s.folded("y").nodes.size(), 1u);
}

TEST(FoldShapeSubgraphs, IntegerDivisionByZeroNamesTheNode) {
  Sub s;
  s.ints("a", {1}, {4}).ints("zero", {1}, {0});
  s.node("Div", {"a", "zero"}, "y");
  EXPECT_HAS(s.error("y"), "node 'y_node' (Div): integer division by zero");
}

// A Reshape whose target is computed from the values of data (here Relu(x) cast to int64): one
// error naming the node, the operand and the data it comes from; no advice about input shapes,
// which are all fixed.
TEST(FoldShapeSubgraphs, ShapeFromDataIsOneClearError) {
  Sub s({2});
  s.node("Relu", {"x"}, "r");
  s.node("Cast", {"r"}, "target", {{"to", int64_t{7}}});
  s.node("Reshape", {"x", "target"}, "y");
  s.graph().values["r"] = {DType::Float32, Shape{2}};
  s.graph().values["target"] = {DType::Int64, Shape{2}};
  s.graph().values["y"] = {DType::Float32, Shape{-1, -1}};
  const std::string e = s.error("y");
  EXPECT_HAS(e, "node 'y_node' (Reshape): input 1 'target' decides the shape of its output");
  EXPECT_HAS(e, "the values of tensor 'r' (output of node 'r_node' (Relu))");
  EXPECT_HAS(e, "a shape that depends on the input data is not supported");
  EXPECT_EQ(e.find("--input-shape"), std::string::npos) << e;

  // Straight from the graph input's values.
  Sub d({2});
  d.node("Cast", {"x"}, "target", {{"to", int64_t{7}}});
  d.node("Reshape", {"x", "target"}, "y");
  d.graph().values["target"] = {DType::Int64, Shape{2}};
  d.graph().values["y"] = {DType::Float32, Shape{-1, -1}};
  EXPECT_HAS(d.error("y"), "computed from the values of graph input 'x'");
}

// An operator whose output shape hetcim cannot infer (NonZero: its length depends on the data)
// with every input shape fixed: its rule's own message names it, before any later step would
// advise --input-shape.
TEST(FoldShapeSubgraphs, UnknownShapeAfterFoldingNamesTheNode) {
  Sub s({4});
  s.node("NonZero", {"x"}, "y");
  s.graph().values["y"] = {DType::Int64, Shape{1, -1}};
  EXPECT_HAS(s.error("y"), "unsupported op 'NonZero' at node 'y_node'");
}

// With an input dimension left open, shapes that depend on it cannot fold; fold_constants leaves
// the graph to later steps (whose message may advise --input-shape) instead of blaming data.
TEST(FoldShapeSubgraphs, OpenInputDimensionIsNotReportedAsData) {
  Sub s({-1, 4});
  s.ints("zero", {1}, {0}).ints("minus1", {1}, {-1});
  s.node("Shape", {"x"}, "sh");
  s.node("Gather", {"sh", "zero"}, "n");
  s.node("Concat", {"n", "minus1"}, "target", {{"axis", int64_t{0}}});
  s.node("Reshape", {"x", "target"}, "y");
  s.graph().values["y"] = {DType::Float32, Shape{-1, -1}};
  const Graph f = s.folded("y");
  EXPECT_EQ(f.nodes.size(), 4u);
}

}  // namespace
}  // namespace hetcim::passes
