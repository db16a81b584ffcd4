// Each pass on a small hand-built graph whose result is known by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "passes/fold_batchnorm.h"
#include "passes/fold_constants.h"
#include "passes/fold_qdq.h"
#include "passes/fuse_activation.h"
#include "passes/pipeline.h"
#include "passes/remove_identity.h"

namespace hetcim::passes {
namespace {

using graph::DType;
using graph::Graph;
using graph::Initializer;
using graph::Node;
using graph::Shape;

// Adds a node and sets the shape of its (single) output.
void add(Graph& g, Node n, Shape out, DType t = DType::Float32) {
  g.values[n.outputs.at(0)] = {t, out};
  g.nodes.push_back(std::move(n));
}

std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op_type);
  return ops;
}

// x(1x1x2x2) -> conv 1x1 (2 out) -> bn -> relu -> y
Graph conv_bn_relu(bool with_values) {
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{1, 1, 2, 2}};
  g.outputs = {"y"};
  if (with_values) {
    g.initializers["w"] = Initializer::from_floats({2, 1, 1, 1}, {2.0f, -1.0f});
    g.initializers["gamma"] = Initializer::from_floats({2}, {1.0f, 3.0f});
    g.initializers["beta"] = Initializer::from_floats({2}, {0.5f, -0.5f});
    g.initializers["mean"] = Initializer::from_floats({2}, {1.0f, 2.0f});
    g.initializers["var"] = Initializer::from_floats({2}, {4.0f, 0.25f});
  } else {
    g.initializers["w"] = Initializer::shape_only(DType::Float32, {2, 1, 1, 1});
    for (const char* k : {"gamma", "beta", "mean", "var"})
      g.initializers[k] = Initializer::shape_only(DType::Float32, {2});
  }
  add(g, {"conv", "Conv", "", {"x", "w"}, {"c"}, {}}, {1, 2, 2, 2});
  add(g,
      {"bn",
       "BatchNormalization",
       "",
       {"c", "gamma", "beta", "mean", "var"},
       {"b"},
       {{"epsilon", 0.0}}},
      {1, 2, 2, 2});
  add(g, {"relu", "Relu", "", {"b"}, {"y"}, {}}, {1, 2, 2, 2});
  graph::validate(g);
  return g;
}

TEST(FoldBatchnorm, FoldsScaleAndShiftIntoConv) {
  const Graph g = fold_batchnorm(conv_bn_relu(true));
  ASSERT_EQ(op_types(g), (std::vector<std::string>{"Conv", "Relu"}));
  const Node& conv = g.nodes[0];
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(conv.outputs[0], "b");
  // s = gamma / sqrt(var) = {0.5, 6}; W' = W*s = {1, -6}; b' = beta - mean*s = {0, -12.5}.
  EXPECT_EQ(g.initializers.at(conv.inputs[1]).floats(), (std::vector<float>{1.0f, -6.0f}));
  EXPECT_EQ(g.initializers.at(conv.inputs[2]).floats(), (std::vector<float>{0.0f, -12.5f}));
  EXPECT_FALSE(g.initializers.count("gamma"));  // running statistics are gone
}

TEST(FoldBatchnorm, ArchitectureOnlyGraphGetsShapeOnlyBias) {
  const Graph g = fold_batchnorm(conv_bn_relu(false));
  ASSERT_EQ(op_types(g), (std::vector<std::string>{"Conv", "Relu"}));
  const Initializer& b = g.initializers.at(g.nodes[0].inputs[2]);
  EXPECT_FALSE(b.has_values());
  EXPECT_EQ(*b.info.shape, (Shape{2}));
}

TEST(FuseActivation, ReluAndClipFuseIntoTheirSingleProducer) {
  Graph g = fuse_activation(fold_batchnorm(conv_bn_relu(true)));
  ASSERT_EQ(op_types(g), (std::vector<std::string>{"Conv"}));
  EXPECT_EQ(g.nodes[0].attr_string("activation", ""), "Relu");
  EXPECT_EQ(g.nodes[0].outputs[0], "y");

  // Clip(0, 6) = ReLU6 with bounds as constant inputs (opset >= 11).
  Graph c = conv_bn_relu(true);
  c.nodes[2].op_type = "Clip";
  c.initializers["lo"] = Initializer::from_floats({}, {0.0f});
  c.initializers["hi"] = Initializer::from_floats({}, {6.0f});
  c.nodes[2].inputs = {"b", "lo", "hi"};
  c = fuse_activation(fold_batchnorm(c));
  ASSERT_EQ(c.nodes.size(), 1u);
  EXPECT_EQ(c.nodes[0].attr_string("activation", ""), "Clip");
  EXPECT_DOUBLE_EQ(c.nodes[0].attr_float("activation_min", -1), 0.0);
  EXPECT_DOUBLE_EQ(c.nodes[0].attr_float("activation_max", -1), 6.0);
}

TEST(FuseActivation, ProducerWithTwoReadersIsNotFused) {
  Graph g = fold_batchnorm(conv_bn_relu(true));
  g.outputs.push_back("b");  // the conv output is also a graph output
  g = fuse_activation(g);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Conv", "Relu"}));
}

TEST(RemoveIdentity, RewiresReadersAndGraphOutputs) {
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{4}};
  g.outputs = {"z"};
  add(g, {"id", "Identity", "", {"x"}, {"a"}, {}}, {4});
  add(g, {"relu", "Relu", "", {"a"}, {"b"}, {}}, {4});
  add(g, {"drop", "Dropout", "", {"b"}, {"z"}, {}}, {4});
  graph::validate(g);
  g = remove_identity(g);
  ASSERT_EQ(op_types(g), (std::vector<std::string>{"Relu"}));
  EXPECT_EQ(g.nodes[0].inputs[0], "x");
  EXPECT_EQ(g.outputs[0], "b");
}

// torch.ao's zero-point chain: ConstantOfShape (value 3 as int32, as the importer decodes it) ->
// Cast(to=FLOAT) folds to a float32 initializer {3, 3, 3, 3}; only the Add is left.
TEST(FoldConstants, ConstantOfShapeAndCastOfConstants) {
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{4}};
  g.initializers["shape"] = Initializer::from_ints({1}, {4});
  g.nodes.push_back({"fill",
                     "ConstantOfShape",
                     "",
                     {"shape"},
                     {"c"},
                     {{"value", int64_t{3}}, {"value_dtype", int64_t{6}}}});
  g.nodes.push_back({"cast", "Cast", "", {"c"}, {"cf"}, {{"to", int64_t{1}}}});
  g.nodes.push_back({"add", "Add", "", {"x", "cf"}, {"y"}, {}});
  g.values["y"] = {DType::Float32, Shape{4}};
  g.outputs = {"y"};
  graph::validate(g);
  const Graph f = fold_constants(g);
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].op_type, "Add");
  const Initializer& cf = f.initializers.at("cf");
  EXPECT_EQ(cf.info.dtype, DType::Float32);
  EXPECT_EQ(cf.floats(), (std::vector<float>{3, 3, 3, 3}));
  EXPECT_FALSE(f.initializers.count("c"));  // read by nobody any more
}

// The exporter's Cast(to=UINT8) after a uint8 QuantizeLinear is an identity; a real Cast stays.
TEST(RemoveIdentity, CastToTheDtypeItAlreadyHasGoes) {
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::UInt8, Shape{4}};
  g.nodes.push_back({"same", "Cast", "", {"x"}, {"a"}, {{"to", int64_t{2}}}});
  g.values["a"] = {DType::UInt8, Shape{4}};
  g.nodes.push_back({"real", "Cast", "", {"a"}, {"b"}, {{"to", int64_t{1}}}});
  g.values["b"] = {DType::Float32, Shape{4}};
  g.outputs = {"b"};
  graph::validate(g);
  const Graph r = remove_identity(g);
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0].name, "real");
  EXPECT_EQ(r.nodes[0].inputs, (std::vector<std::string>{"x"}));
}

// A Pad of zeros (torch's AvgPool2d export: pads as an opset-11 input, or the opset-2 attribute)
// goes; a Pad that adds one column, or whose pads are not a constant, stays.
TEST(RemoveIdentity, PadOfZerosGoesARealPadStays) {
  Graph g;
  g.inputs = {"x", "p"};
  g.values["x"] = {DType::Float32, Shape{1, 2, 4, 4}};
  g.values["p"] = {DType::Int64, Shape{8}};
  g.initializers["zeros"] = Initializer::from_ints({8}, {0, 0, 0, 0, 0, 0, 0, 0});
  g.initializers["one"] = Initializer::from_ints({8}, {0, 0, 0, 0, 0, 0, 0, 1});
  add(g, {"zero_input", "Pad", "", {"x", "zeros"}, {"a"}, {}}, {1, 2, 4, 4});
  add(g, {"zero_attr", "Pad", "", {"a"}, {"b"}, {{"pads", std::vector<int64_t>(8, 0)}}},
      {1, 2, 4, 4});
  add(g, {"real", "Pad", "", {"b", "one"}, {"c"}, {}}, {1, 2, 4, 5});
  add(g, {"data", "Pad", "", {"c", "p"}, {"d"}, {}}, {1, 2, 4, 5});
  g.outputs = {"d"};
  graph::validate(g);
  const Graph r = remove_identity(g);
  ASSERT_EQ(op_types(r), (std::vector<std::string>{"Pad", "Pad"}));
  EXPECT_EQ(r.nodes[0].name, "real");
  EXPECT_EQ(r.nodes[0].inputs[0], "x");
  EXPECT_EQ(r.nodes[1].name, "data");
}

TEST(FoldConstants, EvaluatesTorchFlattenShapeArithmetic) {
  // Shape(x)[0] unsqueezed and concatenated with -1: the Reshape target [1, -1].
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{1, 8, 2, 2}};
  g.outputs = {"y"};
  g.initializers["zero"] = Initializer::from_ints({}, {0});
  g.initializers["axes"] = Initializer::from_ints({1}, {0});
  g.initializers["minus1"] = Initializer::from_ints({1}, {-1});
  add(g, {"shape", "Shape", "", {"x"}, {"s"}, {}}, {4}, DType::Int64);
  add(g, {"gather", "Gather", "", {"s", "zero"}, {"n"}, {{"axis", int64_t{0}}}}, {}, DType::Int64);
  add(g, {"unsq", "Unsqueeze", "", {"n", "axes"}, {"n1"}, {}}, {1}, DType::Int64);
  add(g, {"cat", "Concat", "", {"n1", "minus1"}, {"target"}, {{"axis", int64_t{0}}}}, {2},
      DType::Int64);
  add(g, {"reshape", "Reshape", "", {"x", "target"}, {"y"}, {}}, {1, 32});
  graph::validate(g);
  g = fold_constants(g);
  ASSERT_EQ(op_types(g), (std::vector<std::string>{"Reshape"}));
  EXPECT_EQ(g.initializers.at("target").ints(), (std::vector<int64_t>{1, -1}));
}

// x -> Conv 3x3 -> Relu -> GlobalAveragePool -> Flatten -> Gemm -> y: a ResNet in miniature.
Graph tiny_cnn() {
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{1, 3, 8, 8}};
  g.outputs = {"y"};
  g.initializers["w"] = Initializer::shape_only(DType::Float32, {4, 3, 3, 3});
  g.initializers["fc.w"] = Initializer::shape_only(DType::Float32, {10, 4});
  g.initializers["fc.b"] = Initializer::shape_only(DType::Float32, {10});
  add(g, {"conv", "Conv", "", {"x", "w"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}},
      {1, 4, 8, 8});
  add(g, {"relu", "Relu", "", {"c"}, {"r"}, {}}, {1, 4, 8, 8});
  add(g, {"gap", "GlobalAveragePool", "", {"r"}, {"p"}, {}}, {1, 4, 1, 1});
  add(g, {"flatten", "Flatten", "", {"p"}, {"f"}, {}}, {1, 4});
  add(g, {"fc", "Gemm", "", {"f", "fc.w", "fc.b"}, {"y"}, {{"transB", int64_t{1}}}}, {1, 10});
  graph::validate(g);
  return g;
}

TEST(Pipeline, Int8GivesTheSevenBoundaryNodesOfTableI) {
  const Graph g = lower(tiny_cnn());
  // Q, T, conv(+relu), gap, T, DQ, Flatten, Q, Gemm, DQ: the 3 compute ops plus the seven
  // host-only boundary nodes of seeds/README.md, in this order.
  EXPECT_EQ(op_types(g),
            (std::vector<std::string>{"QuantizeLinear", "Transpose", "Conv", "GlobalAveragePool",
                                      "Transpose", "DequantizeLinear", "Flatten", "QuantizeLinear",
                                      "Gemm", "DequantizeLinear"}));
  EXPECT_EQ(g.nodes[2].attr_string("precision", ""), "int8");
  EXPECT_EQ(g.nodes[1].attr_ints("perm", {}), (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(g.nodes[4].attr_ints("perm", {}), (std::vector<int64_t>{0, 3, 1, 2}));
  EXPECT_EQ(g.info(g.nodes[2].outputs[0])->dtype, DType::UInt8);
  EXPECT_EQ(g.info(g.outputs[0])->dtype, DType::Float32);
}

TEST(Pipeline, Fp32KeepsOnlyComputeOps) {
  PipelineOptions o;
  o.precision = Precision::Fp32;
  std::vector<std::string> steps;
  const Graph g =
      lower(tiny_cnn(), o, [&](const std::string& s, const Graph&) { steps.push_back(s); });
  EXPECT_EQ(op_types(g),
            (std::vector<std::string>{"Conv", "GlobalAveragePool", "Flatten", "Gemm"}));
  EXPECT_EQ(steps, pipeline_steps());
}

// The QDQ form of tiny_cnn's conv as quantize_static writes it:
// x -> Q -> DQ -> Conv(DQ(w_q), DQ(b_q)) -> Relu -> Q -> DQ -> y
Graph qdq_conv() {
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{1, 3, 8, 8}};
  g.outputs = {"y"};
  g.initializers["x_s"] = Initializer::from_floats({}, {0.1f});
  g.initializers["x_z"] = Initializer{{DType::UInt8, Shape{}}, {128}};
  g.initializers["w_q"] =
      Initializer{{DType::Int8, Shape{4, 3, 3, 3}}, std::vector<uint8_t>(108, 1)};
  g.initializers["w_s"] = Initializer::from_floats({4}, {0.01f, 0.02f, 0.03f, 0.04f});
  g.initializers["w_z"] = Initializer{{DType::Int8, Shape{4}}, {0, 0, 0, 0}};
  g.initializers["b_q"] = Initializer{{DType::Int32, Shape{4}}, std::vector<uint8_t>(16, 0)};
  g.initializers["b_s"] = Initializer::from_floats({4}, {0.001f, 0.002f, 0.003f, 0.004f});
  g.initializers["y_s"] = Initializer::from_floats({}, {0.05f});
  g.initializers["y_z"] = Initializer{{DType::UInt8, Shape{}}, {0}};
  add(g, {"q_x", "QuantizeLinear", "", {"x", "x_s", "x_z"}, {"xq"}, {}}, {1, 3, 8, 8},
      DType::UInt8);
  add(g, {"dq_x", "DequantizeLinear", "", {"xq", "x_s", "x_z"}, {"xf"}, {}}, {1, 3, 8, 8});
  add(g, {"dq_w", "DequantizeLinear", "", {"w_q", "w_s", "w_z"}, {"wf"}, {{"axis", int64_t{0}}}},
      {4, 3, 3, 3});
  add(g, {"dq_b", "DequantizeLinear", "", {"b_q", "b_s"}, {"bf"}, {}}, {4});
  add(g,
      {"conv", "Conv", "", {"xf", "wf", "bf"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}},
      {1, 4, 8, 8});
  add(g, {"relu", "Relu", "", {"c"}, {"r"}, {}}, {1, 4, 8, 8});
  add(g, {"q_r", "QuantizeLinear", "", {"r", "y_s", "y_z"}, {"rq"}, {}}, {1, 4, 8, 8},
      DType::UInt8);
  add(g, {"dq_r", "DequantizeLinear", "", {"rq", "y_s", "y_z"}, {"y"}, {}}, {1, 4, 8, 8});
  graph::validate(g);
  return g;
}

TEST(FoldQdq, ConvBetweenQdqBecomesQLinearConv) {
  const Graph g = fold_qdq(fuse_activation(qdq_conv()));
  ASSERT_EQ(op_types(g),
            (std::vector<std::string>{"QuantizeLinear", "QLinearConv", "DequantizeLinear"}));
  const Node& q = g.nodes[1];
  EXPECT_EQ(q.name, "conv");
  EXPECT_EQ(q.inputs, (std::vector<std::string>{"xq", "x_s", "x_z", "w_q", "w_s", "w_z", "y_s",
                                                "y_z", "b_q"}));
  EXPECT_EQ(q.outputs[0], "rq");
  EXPECT_EQ(q.attr_string("activation", ""), "Relu");
}

TEST(Pipeline, QdqModelGetsTheSameBoundaryStructureAsAnnotatedFloat) {
  const Graph g = lower(qdq_conv());
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"QuantizeLinear", "Transpose", "QLinearConv",
                                                   "Transpose", "DequantizeLinear"}));
}

}  // namespace
}  // namespace hetcim::passes
