// Importing models shaped like real exporters' output (fixtures.h): structure, shapes, dtypes and
// the exact initializer values the fixtures wrote.
#include "onnxio/import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "fixtures.h"
#include "util/error.h"

namespace hetcim::onnxio {
namespace {

using graph::DType;
using graph::Graph;
using graph::Shape;

Graph import_model(const onnx::ModelProto& m, const ImportOptions& o = {}) {
  return import_onnx_bytes(fixtures::serialize(m), "fixture.onnx", o);
}

std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> ops;
  for (const auto& n : g.nodes) ops.push_back(n.op_type);
  return ops;
}

size_t count_op(const Graph& g, const std::string& op) {
  return static_cast<size_t>(std::count_if(g.nodes.begin(), g.nodes.end(),
                                           [&](const graph::Node& n) { return n.op_type == op; }));
}

const graph::Node& node(const Graph& g, const std::string& name) {
  const int i = g.node_index(name);
  if (i < 0) throw std::runtime_error("no node " + name);
  return g.nodes[static_cast<size_t>(i)];
}

Shape shape(const Graph& g, const std::string& t) {
  return g.shape_of(t, "test");
}

int64_t param_count(const Graph& g) {
  int64_t n = 0;
  for (const auto& [name, init] : g.initializers) n += graph::element_count(*init.info.shape);
  return n;
}

// torch.ao's exporter writes zero points as ConstantOfShape with a one-element TENSOR attribute.
TEST(ImportTorchAo, ConstantOfShapeValueBecomesScalarAttributes) {
  fixtures::ModelBuilder b(13, "g");
  b.input("x", onnx::TensorProto::FLOAT, {1, 4});
  b.output("y", onnx::TensorProto::FLOAT, {1, 4});
  b.init_int64("shape", {1}, {4});
  onnx::TensorProto v;
  v.set_data_type(onnx::TensorProto::INT32);
  v.add_dims(1);
  v.add_int32_data(3);
  fixtures::attr_tensor(b.node("ConstantOfShape", {"shape"}, {"c"}, "zeros"), "value", v);
  fixtures::attr_int(b.node("Cast", {"c"}, {"cf"}, "cast"), "to", onnx::TensorProto::FLOAT);
  b.node("Add", {"x", "cf"}, {"y"}, "add");
  const Graph g = import_model(b.model());
  const graph::Node& n = node(g, "zeros");
  EXPECT_EQ(n.attr_int("value", -1), 3);
  EXPECT_EQ(n.attr_int("value_dtype", -1), onnx::TensorProto::INT32);
  EXPECT_EQ(g.info("c")->dtype, DType::Int32);
}

TEST(ImportOptions, InputShapesResolveOpenDimensions) {
  fixtures::ModelBuilder b(13, "g");
  b.input("x", onnx::TensorProto::FLOAT, {std::string("n"), 3, std::string("h"), std::string("w")});
  b.output("y", onnx::TensorProto::FLOAT,
           {std::string("n"), 3, std::string("h"), std::string("w")});
  b.node("Relu", {"x"}, {"y"}, "relu");
  ImportOptions o;
  o.input_shapes["x"] = {2, 3, 8, 6};
  EXPECT_EQ(shape(import_model(b.model(), o), "y"), (Shape{2, 3, 8, 6}));
  // Without them the spatial dims stay open (-1): inspect and partition then stop with an error.
  EXPECT_EQ(shape(import_model(b.model()), "y"), (Shape{1, 3, -1, -1}));
  ImportOptions wrong_name;
  wrong_name.input_shapes["image"] = {1, 3, 8, 8};
  try {
    (void)import_model(b.model(), wrong_name);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no input of that name (inputs: x)"), std::string::npos)
        << e.what();
  }
  ImportOptions wrong_rank;
  wrong_rank.input_shapes["x"] = {1, 3, 8};
  EXPECT_THROW((void)import_model(b.model(), wrong_rank), UserError);
  ImportOptions wrong_dim;
  wrong_dim.input_shapes["x"] = {1, 4, 8, 8};  // the model declares 3 channels
  EXPECT_THROW((void)import_model(b.model(), wrong_dim), UserError);
}

TEST(ImportTorchCnn, FlattenVariantAtEveryOpset) {
  for (int64_t opset = 13; opset <= 17; ++opset) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    const Graph g = import_model(fixtures::torch_cnn({opset, false, false}));
    EXPECT_EQ(g.name, "main_graph");
    EXPECT_EQ(g.opset, opset);
    EXPECT_EQ(op_types(g),
              (std::vector<std::string>{"Conv", "BatchNormalization", "Relu", "MaxPool", "Conv",
                                        "Relu", "GlobalAveragePool", "Flatten", "Gemm"}));
    EXPECT_EQ(g.inputs, std::vector<std::string>{"input.1"});
    EXPECT_EQ(g.outputs, std::vector<std::string>{"logits"});
    EXPECT_EQ(g.initializers.size(), 9u);
    // 8*27 + 4*8 + 16*72 + 16 + 10*16 + 10, counted by hand from the fixture's layer sizes.
    EXPECT_EQ(param_count(g), 1586);
    // The symbolic batch becomes 1 (ImportOptions::batch); the rest follows from shape inference.
    EXPECT_EQ(shape(g, "input.1"), (Shape{1, 3, 16, 16}));
    EXPECT_EQ(shape(g, "/conv1/Conv_output_0"), (Shape{1, 8, 16, 16}));
    EXPECT_EQ(shape(g, "/maxpool/MaxPool_output_0"), (Shape{1, 8, 8, 8}));
    EXPECT_EQ(shape(g, "/layer1/conv/Conv_output_0"), (Shape{1, 16, 4, 4}));  // stride 2
    EXPECT_EQ(shape(g, "/avgpool/GlobalAveragePool_output_0"), (Shape{1, 16, 1, 1}));
    EXPECT_EQ(shape(g, "/Flatten_output_0"), (Shape{1, 16}));
    EXPECT_EQ(shape(g, "logits"), (Shape{1, 10}));
    EXPECT_EQ(g.info("logits")->dtype, DType::Float32);
  }
}

TEST(ImportTorchCnn, AttributesKeepTheirTypesAndValues) {
  const Graph g = import_model(fixtures::torch_cnn());
  const graph::Node& conv = node(g, "/layer1/conv/Conv");
  EXPECT_EQ(conv.attr_ints("strides", {}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(conv.attr_ints("pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv.attr_int("group", 0), 1);
  EXPECT_EQ(conv.inputs, (std::vector<std::string>{"/maxpool/MaxPool_output_0", "onnx::Conv_123",
                                                   "onnx::Conv_124"}));
  const graph::Node& bn = node(g, "/bn1/BatchNormalization");
  EXPECT_EQ(bn.attr_float("epsilon", 0), static_cast<double>(1e-5f));  // stored as an ONNX float
  EXPECT_EQ(bn.attr_float("momentum", 0), static_cast<double>(0.9f));
  EXPECT_EQ(node(g, "/fc/Gemm").attr_int("transB", 0), 1);
  EXPECT_TRUE(std::holds_alternative<double>(node(g, "/fc/Gemm").attrs.at("alpha")));
}

TEST(ImportTorchCnn, InitializerValuesFromRawDataAndTypedFields) {
  const Graph g = import_model(fixtures::torch_cnn());
  const auto w = g.initializers.at("conv1.weight").floats();
  ASSERT_EQ(w.size(), 216u);
  EXPECT_FLOAT_EQ(w[0], -0.03f);   // 0.01 * (0 % 7 - 3)
  EXPECT_FLOAT_EQ(w[6], 0.03f);    // 0.01 * (6 - 3)
  EXPECT_FLOAT_EQ(w[215], 0.02f);  // 215 = 7 * 30 + 5 -> 0.01 * (5 - 3)
  EXPECT_EQ(g.initializers.at("conv1.weight").info.shape, (Shape{8, 3, 3, 3}));
  // running_var was stored in float_data, not raw_data: 1 + c.
  const auto var = g.initializers.at("bn1.running_var").floats();
  EXPECT_EQ(var, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  const auto b = g.initializers.at("onnx::Conv_124").floats();
  ASSERT_EQ(b.size(), 16u);
  EXPECT_FLOAT_EQ(b[0], 0.5f);
  EXPECT_FLOAT_EQ(b[8], 0.0f);
  EXPECT_FLOAT_EQ(b[15], -0.4375f);
  EXPECT_EQ(g.initializers.at("fc.weight").info.shape, (Shape{10, 16}));
}

TEST(ImportTorchCnn, ReshapeChainWithConstantsAndDataPropagation) {
  for (int64_t opset = 13; opset <= 17; ++opset) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    const Graph g = import_model(fixtures::torch_cnn({opset, true, false}));
    // 16 ONNX nodes, of which the 3 Constants become initializers.
    EXPECT_EQ(g.nodes.size(), 13u);
    EXPECT_EQ(count_op(g, "Constant"), 0u);
    for (const char* op : {"Shape", "Gather", "Unsqueeze", "Concat", "Reshape"}) {
      EXPECT_EQ(count_op(g, op), 1u) << op;
    }
    EXPECT_EQ(g.initializers.size(), 12u);
    const auto& c0 = g.initializers.at("/Constant_output_0");
    EXPECT_EQ(c0.info.dtype, DType::Int64);
    EXPECT_EQ(c0.info.shape, Shape{});  // scalar
    EXPECT_EQ(c0.ints(), std::vector<int64_t>{0});
    EXPECT_EQ(g.initializers.at("/Constant_2_output_0").ints(), std::vector<int64_t>{-1});
    EXPECT_EQ(shape(g, "/Shape_output_0"), Shape{4});
    EXPECT_EQ(g.info("/Shape_output_0")->dtype, DType::Int64);
    EXPECT_EQ(shape(g, "/Gather_output_0"), Shape{});
    EXPECT_EQ(shape(g, "/Concat_output_0"), Shape{2});
    // Only data propagation through Shape -> Gather -> Unsqueeze -> Concat knows this, and libonnx
    // 1.12 feeds propagated data to Reshape from its opset-14 version on.
    if (opset >= 14) {
      EXPECT_EQ(shape(g, "/Reshape_output_0"), (Shape{1, 16}));
    }
    EXPECT_EQ(shape(g, "logits"), (Shape{1, 10}));
  }
}

TEST(ImportTorchCnn, BatchOptionReplacesTheSymbolEverywhere) {
  ImportOptions o;
  o.batch = 4;
  const Graph g = import_model(fixtures::torch_cnn({17, true, false}), o);
  EXPECT_EQ(shape(g, "input.1"), (Shape{4, 3, 16, 16}));
  EXPECT_EQ(shape(g, "/Reshape_output_0"), (Shape{4, 16}));
  EXPECT_EQ(shape(g, "logits"), (Shape{4, 10}));
}

TEST(ImportTorchCnn, InitializersListedAsInputsAreNotInputs) {
  const onnx::ModelProto m = fixtures::torch_cnn({13, false, true});
  ASSERT_EQ(m.graph().input_size(), 10);  // input.1 + 9 parameters, as older exporters wrote
  const Graph g = import_model(m);
  EXPECT_EQ(g.inputs, std::vector<std::string>{"input.1"});
  EXPECT_EQ(g.initializers.size(), 9u);
  EXPECT_FALSE(g.values.count("fc.weight"));
}

TEST(ImportTorchCnn, UnnamedNodesGetOpAndIndex) {
  onnx::ModelProto m = fixtures::torch_cnn();
  auto* nodes = m.mutable_graph()->mutable_node();
  nodes->Mutable(2)->clear_name();  // Relu
  nodes->Mutable(6)->clear_name();  // GlobalAveragePool
  const Graph g = import_model(m);
  EXPECT_GE(g.node_index("Relu_2"), 0);
  EXPECT_GE(g.node_index("GlobalAveragePool_6"), 0);
  EXPECT_EQ(g.node_index("/relu/Relu"), -1);
}

TEST(ImportQdq, AllFourVariants) {
  for (bool per_channel : {false, true}) {
    for (bool int8_act : {false, true}) {
      SCOPED_TRACE(std::string(per_channel ? "per-channel" : "per-tensor") +
                   (int8_act ? ", int8 activations" : ", uint8 activations"));
      const Graph g = import_model(fixtures::qdq_cnn({13, per_channel, int8_act}));
      EXPECT_EQ(g.nodes.size(), 27u);
      EXPECT_EQ(count_op(g, "QuantizeLinear"), 7u);
      EXPECT_EQ(count_op(g, "DequantizeLinear"), 13u);
      EXPECT_EQ(count_op(g, "Conv"), 2u);
      EXPECT_EQ(count_op(g, "Gemm"), 1u);
      EXPECT_EQ(count_op(g, "Add"), 1u);
      const DType act = int8_act ? DType::Int8 : DType::UInt8;
      EXPECT_EQ(g.info("input_quantized")->dtype, act);
      EXPECT_EQ(g.info("/Add_output_0_quantized")->dtype, act);
      EXPECT_EQ(shape(g, "input_quantized"), (Shape{1, 3, 8, 8}));
      EXPECT_EQ(shape(g, "/conv1/Conv_output_0"), (Shape{1, 4, 8, 8}));
      EXPECT_EQ(shape(g, "/conv2/Conv_output_0"), (Shape{1, 4, 8, 8}));
      EXPECT_EQ(shape(g, "/Flatten_output_0"), (Shape{1, 4}));
      EXPECT_EQ(shape(g, "output"), (Shape{1, 10}));
      EXPECT_EQ(g.info("output")->dtype, DType::Float32);

      // Every Conv/Gemm reads its weight and bias through a DequantizeLinear of an int8 / int32
      // initializer: the quantized operators are recognisable from the graph alone.
      for (const auto& n : g.nodes) {
        if (n.op_type != "Conv" && n.op_type != "Gemm") continue;
        ASSERT_EQ(n.inputs.size(), 3u) << n.name;
        for (size_t slot : {size_t{0}, size_t{1}, size_t{2}}) {
          const auto* producer = &g.nodes[0];
          bool found = false;
          for (const auto& p : g.nodes) {
            if (std::find(p.outputs.begin(), p.outputs.end(), n.inputs[slot]) != p.outputs.end()) {
              producer = &p;
              found = true;
            }
          }
          ASSERT_TRUE(found) << n.name << " input " << slot;
          EXPECT_EQ(producer->op_type, "DequantizeLinear") << n.name << " input " << slot;
          if (slot == 0) continue;
          const auto& q = g.initializers.at(producer->inputs[0]);
          EXPECT_EQ(q.info.dtype, slot == 1 ? DType::Int8 : DType::Int32) << n.name;
          const bool conv = n.op_type == "Conv";
          EXPECT_EQ(producer->attr_int("axis", -1), conv && per_channel ? 0 : -1) << n.name;
        }
      }

      const auto& w1 = g.initializers.at("conv1.weight_quantized");
      EXPECT_EQ(w1.info.shape, (Shape{4, 3, 3, 3}));
      const auto w1v = w1.ints();
      ASSERT_EQ(w1v.size(), 108u);
      EXPECT_EQ(w1v[0], -127);   // (7*0) % 255 - 127
      EXPECT_EQ(w1v[1], -120);   // 7 - 127
      EXPECT_EQ(w1v[37], -123);  // 259 % 255 = 4 -> 4 - 127
      EXPECT_EQ(w1v[40], -102);  // 280 % 255 = 25 -> 25 - 127
      EXPECT_EQ(w1v[107], 112);  // 749 % 255 = 239 -> 239 - 127
      const auto b1 = g.initializers.at("conv1.bias_quantized").ints();
      EXPECT_EQ(b1, (std::vector<int64_t>{-150, -50, 50, 150}));
      const auto bf = g.initializers.at("fc.bias_quantized").ints();
      EXPECT_EQ(bf.front(), -30);
      EXPECT_EQ(bf.back(), 33);  // 7*9 - 30
      const auto s1 = g.initializers.at("conv1.weight_quantized_scale").floats();
      const auto sb1 = g.initializers.at("conv1.bias_quantized_scale").floats();
      if (per_channel) {
        EXPECT_EQ(g.initializers.at("conv1.weight_quantized_scale").info.shape, Shape{4});
        ASSERT_EQ(s1.size(), 4u);
        EXPECT_FLOAT_EQ(s1[3], 0.04f);
        ASSERT_EQ(sb1.size(), 4u);
        EXPECT_FLOAT_EQ(sb1[3], 0.0008f);  // input scale 0.02 * 0.04
      } else {
        EXPECT_EQ(g.initializers.at("conv1.weight_quantized_scale").info.shape, Shape{});
        EXPECT_EQ(s1, std::vector<float>{0.01f});
        ASSERT_EQ(sb1.size(), 1u);
        EXPECT_FLOAT_EQ(sb1[0], 0.0002f);
      }
      const auto zp = g.initializers.at("input_zero_point");
      EXPECT_EQ(zp.info.dtype, act);
      EXPECT_EQ(zp.ints(), std::vector<int64_t>{int8_act ? 0 : 128});
      EXPECT_FLOAT_EQ(g.initializers.at("input_scale").floats().at(0), 0.02f);
    }
  }
}

TEST(ImportCustomDomain, KeptAsIsForConsumersToJudge) {
  const Graph g = import_model(fixtures::custom_domain_model());
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[1].op_type, "Gelu");
  EXPECT_EQ(g.nodes[1].domain, "com.microsoft");
  EXPECT_EQ(g.nodes[1].attr_string("approximation", ""), "none");
  EXPECT_EQ(shape(g, "y"), (Shape{1, 8}));  // from the declared output
}

TEST(ImportFile, ReadsFromDisk) {
  const std::string path = ::testing::TempDir() + "/hetcim_import_test_tiny.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    out << fixtures::serialize(fixtures::tiny_conv());
  }
  const Graph g = import_onnx(path);
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(shape(g, "y"), (Shape{1, 4, 6, 6}));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace hetcim::onnxio
