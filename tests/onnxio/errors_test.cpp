// Hostile and broken input: every failure is one hetcim::UserError whose message starts with the
// file (or origin) and names the node, tensor or field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "fixtures.h"
#include "onnxio/import.h"
#include "util/error.h"

namespace hetcim::onnxio {
namespace {

using fixtures::ModelBuilder;
using onnx::TensorProto;

// The message of the UserError `f` throws; any other outcome fails the test.
std::string user_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a UserError: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no error";
  return "";
}

std::string import_error(const onnx::ModelProto& m, const std::string& origin = "bad.onnx") {
  const std::string bytes = fixtures::serialize(m);
  return user_error_of([&] { (void)import_onnx_bytes(bytes, origin); });
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)
#define EXPECT_STARTS(msg, prefix) EXPECT_EQ((msg).rfind(prefix, 0), 0u) << (msg)

TEST(ImportErrors, MissingFileAndDirectory) {
  const std::string missing = "/nonexistent/dir/model.onnx";
  std::string msg = user_error_of([&] { (void)import_onnx(missing); });
  EXPECT_EQ(msg, missing + ": cannot open ONNX file: no such file");
  const std::string dir = ::testing::TempDir();
  msg = user_error_of([&] { (void)import_onnx(dir); });
  EXPECT_EQ(msg, dir + ": cannot open ONNX file: not a regular file");
}

TEST(ImportErrors, EmptyInput) {
  const std::string msg = user_error_of([] { (void)import_onnx_bytes("", "empty.onnx"); });
  EXPECT_EQ(msg, "empty.onnx: empty input, not an ONNX model");
}

TEST(ImportErrors, EveryTruncationIsRejected) {
  // opset_import (field 8) is serialized after the graph (field 7), so no proper prefix of a model
  // is a complete one: every prefix must fail, and fail cleanly.
  const std::string full = fixtures::serialize(fixtures::tiny_conv());
  ASSERT_NO_THROW((void)import_onnx_bytes(full, "tiny.onnx"));
  size_t parse_failures = 0;
  for (size_t n = 1; n < full.size(); ++n) {
    const std::string msg =
        user_error_of([&] { (void)import_onnx_bytes(full.substr(0, n), "cut.onnx"); });
    EXPECT_STARTS(msg, "cut.onnx: ");
    if (msg.find("protobuf parsing failed") != std::string::npos) ++parse_failures;
  }
  EXPECT_GT(parse_failures, full.size() / 2);  // most cuts land inside a field
  const std::string half =
      user_error_of([&] { (void)import_onnx_bytes(full.substr(0, full.size() / 2), "half.onnx"); });
  EXPECT_EQ(
      half,
      "half.onnx: not a valid ONNX model (protobuf parsing failed: truncated or not a ModelProto)");
}

TEST(ImportErrors, TruncatedFileOnDisk) {
  const std::string full = fixtures::serialize(fixtures::torch_cnn());
  const std::string path = ::testing::TempDir() + "/hetcim_errors_test_truncated.onnx";
  { std::ofstream(path, std::ios::binary) << full.substr(0, 1000); }
  const std::string msg = user_error_of([&] { (void)import_onnx(path); });
  EXPECT_STARTS(msg, path + ": not a valid ONNX model");
  std::filesystem::remove(path);
}

TEST(ImportErrors, RandomBytes) {
  std::mt19937_64 rng(20240531);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes(1 + rng() % 256, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    const std::string msg = user_error_of([&] { (void)import_onnx_bytes(bytes, "random"); });
    EXPECT_STARTS(msg, "random: ");
  }
}

TEST(ImportErrors, UnknownOpInTheDefaultDomain) {
  ModelBuilder b(13, "g");
  b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{4}});
  b.node("Foo", {"x"}, {"y"}, "x1");
  b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{4}});
  EXPECT_EQ(import_error(b.model()),
            "bad.onnx: unsupported op 'Foo' at node 'x1': no such operator in domain ai.onnx at "
            "opset 13");
}

TEST(ImportErrors, OpNewerThanTheOpset) {
  ModelBuilder b(11, "g");  // HardSwish arrived in opset 14
  b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{4}});
  b.node("HardSwish", {"x"}, {"y"});
  b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{4}});
  EXPECT_EQ(import_error(b.model()),
            "bad.onnx: unsupported op 'HardSwish' at node 'HardSwish_0': no such operator in "
            "domain ai.onnx "
            "at opset 11");
}

TEST(ImportErrors, SubgraphsAreUnsupported) {
  ModelBuilder b(13, "g");
  b.input("c", TensorProto::BOOL, {});
  b.node("If", {"c"}, {"y"}, "branch");
  b.output("y", TensorProto::FLOAT, {int64_t{1}});
  EXPECT_HAS(import_error(b.model()), "bad.onnx: unsupported op 'If' at node 'branch'");

  ModelBuilder c(13, "g");
  c.add_opset("my.domain", 1);
  c.input("x", TensorProto::FLOAT, {int64_t{1}});
  auto& n = c.node("Wrap", {"x"}, {"y"}, "w", "my.domain");
  auto* a = n.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name("inner");
  c.output("y", TensorProto::FLOAT, {int64_t{1}});
  const std::string msg = import_error(c.model());
  EXPECT_HAS(msg, "node 'w' (Wrap): attribute 'body' is a subgraph (GRAPH)");
}

TEST(ImportErrors, TensorAttributeOutsideConstant) {
  ModelBuilder b(13, "g");
  b.input("x", TensorProto::FLOAT, {int64_t{1}});
  auto& n = b.node("Relu", {"x"}, {"y"}, "r");
  fixtures::attr_tensor(n, "payload", TensorProto());
  b.output("y", TensorProto::FLOAT, {int64_t{1}});
  EXPECT_EQ(import_error(b.model()),
            "bad.onnx: node 'r' (Relu): attribute 'payload' is a TENSOR; hetcim accepts "
            "tensor attributes on Constant nodes only");
}

TEST(ImportErrors, ConvWeightChannelsDoNotMatchTheInput) {
  ModelBuilder b(13, "g");
  b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}});
  b.init_float("w", {4, 2, 3, 3}, std::vector<float>(72, 0.0f));
  b.node("Conv", {"x", "w"}, {"y"}, "conv");
  b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{4}, int64_t{6}, int64_t{6}});
  EXPECT_EQ(import_error(b.model()),
            "bad.onnx: node 'conv' (Conv): input 'x' has 3 channels but weight 'w' expects 2 (2 "
            "per group x group 1)");
}

// Found by fuzz_onnx_import: libonnx 1.12's Conv inference reads past the kernel shape when the
// weight's rank differs from the input's. The guarded schema registry turns it into an error.
TEST(ImportErrors, ConvRankMismatchIsAnErrorNotACrash) {
  for (const auto& [x_dims, w_dims] :
       std::vector<std::pair<std::vector<fixtures::Dim>, std::vector<int64_t>>>{
           {{int64_t{3}, int64_t{8}, int64_t{8}}, {4, 2, 3, 3}},
           {{int64_t{1}, int64_t{2}, int64_t{8}, int64_t{8}}, {4, 2, 3}}}) {
    ModelBuilder b(13, "g");
    b.input("x", TensorProto::FLOAT, x_dims);
    int64_t n = 1;
    for (int64_t d : w_dims) n *= d;
    b.init_float("w", w_dims, std::vector<float>(static_cast<size_t>(n), 0.0f));
    b.node("Conv", {"x", "w"}, {"y"}, "c");
    b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{4}, int64_t{6}});
    const std::string msg = import_error(b.model());
    EXPECT_STARTS(msg, "bad.onnx: ONNX shape inference: ");
    EXPECT_HAS(msg, "node name: c");
    EXPECT_HAS(msg, "input has rank " + std::to_string(x_dims.size()) + " but weight has rank " +
                        std::to_string(w_dims.size()));
  }
}

// Found by fuzz_onnx_import: after a node fails inference, libonnx 1.12 runs the next nodes'
// functions on inputs without types, and Shape's data propagation dereferences the missing type.
// Inference now stops at the first failure, and the message names that node only.
TEST(ImportErrors, AFailedNodeStopsInferenceInsteadOfCrashingItsConsumers) {
  ModelBuilder b(17, "g");
  b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}});
  b.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.0f));
  fixtures::attr_ints(b.node("Conv", {"x", "w"}, {"c"}, "conv"), "pads", {1, 1, 1});
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.node("Shape", {"r"}, {"s"}, "shape");
  b.output("s", TensorProto::INT64, {int64_t{4}});
  EXPECT_EQ(import_error(b.model()),
            "bad.onnx: ONNX shape inference: (op_type:Conv, node name: conv): "
            "[ShapeInferenceError] attribute "
            "'pads' has 3 values, expected 4");
}

// An op of an unknown domain leaves its output untyped; libonnx's functions downstream must not
// run on it (Shape's data propagation would dereference the missing type).
TEST(ImportErrors, UntypedOutputOfACustomOpIsSafe) {
  ModelBuilder b(17, "g");
  b.add_opset("com.example", 1);
  b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{3}});
  b.node("Mystery", {"x"}, {"t"}, "mystery", "com.example");
  b.node("Shape", {"t"}, {"s"}, "shape");
  auto& g = b.node("Gather", {"s", "i"}, {"d"}, "gather");
  fixtures::attr_int(g, "axis", 0);
  b.init_int64("i", {}, {0});
  b.output("d", TensorProto::INT64, {});
  const graph::Graph imported = import_onnx_bytes(fixtures::serialize(b.model()), "custom.onnx");
  EXPECT_EQ(imported.nodes.size(), 3u);
  EXPECT_EQ(imported.info("t"), nullptr);  // nothing is known about the custom op's output
  EXPECT_EQ(imported.shape_of("d", "test"), graph::Shape{});
}

// Found by the structure-aware mutator: libonnx 1.12's STFT inference indexes the dims of a rank-1
// signal. Operators outside the inference allowlist are imported without running libonnx's code.
TEST(ImportErrors, OperatorsOutsideTheInferenceAllowlistAreImportedWithoutInference) {
  ModelBuilder b(17, "g");
  b.input("x", TensorProto::FLOAT, {int64_t{1}});
  b.init_int64("step", {}, {1});
  b.node("STFT", {"x", "step"}, {"y"}, "stft");
  b.node("Relu", {"y"}, {"z"}, "relu");
  b.output("z", TensorProto::FLOAT, {int64_t{1}, int64_t{8}, int64_t{0}});
  const graph::Graph g = import_onnx_bytes(fixtures::serialize(b.model()), "stft.onnx");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op_type, "STFT");
  ASSERT_NE(g.info("y"), nullptr);  // libonnx binds the element type from the type constraints
  EXPECT_EQ(g.info("y")->dtype, graph::DType::Float32);
  EXPECT_FALSE(g.info("y")->shape.has_value());                 // but no inference function ran
  EXPECT_EQ(g.shape_of("z", "test"), (graph::Shape{1, 8, 0}));  // declared
}

TEST(ImportErrors, GemmInnerDimensionsDoNotMatch) {
  ModelBuilder b(13, "g");
  b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{16}});
  b.init_float("w", {10, 15}, std::vector<float>(150, 0.0f));
  auto& n = b.node("Gemm", {"x", "w"}, {"y"}, "fc");
  fixtures::attr_int(n, "transB", 1);
  b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{10}});
  EXPECT_EQ(import_error(b.model()),
            "bad.onnx: node 'fc' (Gemm): input 'x' has inner dimension 16 but 'w' has 15");
}

TEST(ImportErrors, DeclaredShapeContradictsInference) {
  onnx::ModelProto m = fixtures::tiny_conv();
  m.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(5);
  const std::string msg = import_error(m);
  EXPECT_STARTS(msg, "bad.onnx: ONNX shape inference: ");
  EXPECT_HAS(msg, "node name: c");
  EXPECT_HAS(msg, "(4) vs (5)");
}

TEST(ImportErrors, WrongRawDataSize) {
  onnx::ModelProto m = fixtures::tiny_conv();
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(10, '\0'));
  EXPECT_EQ(
      import_error(m),
      "bad.onnx: initializer 'w': raw_data has 10 bytes but shape [4,3,3,3] of float32 needs 432");
}

TEST(ImportErrors, WrongTypedFieldCountAndKind) {
  onnx::ModelProto m = fixtures::tiny_conv();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  for (int i = 0; i < 5; ++i) w->add_float_data(1.0f);
  EXPECT_EQ(import_error(m),
            "bad.onnx: initializer 'w': float_data has 5 values but shape [4,3,3,3] needs 108");
  w->clear_float_data();
  for (int i = 0; i < 108; ++i) w->add_int64_data(1);
  EXPECT_EQ(import_error(m),
            "bad.onnx: initializer 'w': a float32 tensor cannot store its values in int64_data");
  w->add_float_data(1.0f);
  EXPECT_EQ(import_error(m),
            "bad.onnx: initializer 'w': values are stored in 2 fields (expected one)");
}

TEST(ImportErrors, Int8ValueOutOfRangeInInt32Data) {
  ModelBuilder b(13, "g");
  b.input("x", TensorProto::INT8, {int64_t{2}});
  auto* t = b.graph().add_initializer();
  t->set_name("k");
  t->set_data_type(TensorProto::INT8);
  t->add_dims(2);
  t->add_int32_data(5);
  t->add_int32_data(300);
  b.node("Add", {"x", "k"}, {"y"}, "add");
  b.output("y", TensorProto::INT8, {int64_t{2}});
  EXPECT_EQ(import_error(b.model()),
            "bad.onnx: initializer 'k': int32_data[1] = 300 is out of range for int8");
}

TEST(ImportErrors, NegativeAndOverflowingDims) {
  onnx::ModelProto m = fixtures::tiny_conv();
  m.mutable_graph()->mutable_initializer(0)->set_dims(3, -3);
  EXPECT_EQ(
      import_error(m),
      "bad.onnx: initializer 'w': dimension 3 is -3 in shape [4,3,3,-3] (dimensions must be >= 0)");

  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_dims();
  for (int64_t d : {int64_t{1} << 31, int64_t{1} << 31, int64_t{4}}) w->add_dims(d);
  EXPECT_EQ(
      import_error(m),
      "bad.onnx: initializer 'w': shape [2147483648,2147483648,4] of float32 exceeds the 2 GB "
      "limit of an embedded ONNX tensor");

  // int64 overflow of the product must not wrap around to a small count.
  w->clear_dims();
  for (int i = 0; i < 4; ++i) w->add_dims(int64_t{1} << 16);
  EXPECT_HAS(import_error(m), "exceeds the 2 GB limit");

  onnx::ModelProto v = fixtures::tiny_conv();
  v.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(2)
      ->set_dim_value(-8);
  EXPECT_EQ(import_error(v),
            "bad.onnx: graph input 'x': dimension 2 is -8 (dimensions must be >= 0)");
}

TEST(ImportErrors, ExternalData) {
  onnx::ModelProto m = fixtures::tiny_conv();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(TensorProto::EXTERNAL);
  auto* kv = w->add_external_data();
  kv->set_key("location");
  kv->set_value("weights.bin");
  EXPECT_HAS(import_error(m),
             "bad.onnx: initializer 'w': refers to external data in file 'weights.bin'");
}

TEST(ImportErrors, UnsupportedElementTypes) {
  onnx::ModelProto m = fixtures::tiny_conv();
  m.mutable_graph()->mutable_initializer(0)->set_data_type(TensorProto::FLOAT16);
  EXPECT_HAS(import_error(m), "bad.onnx: initializer 'w': element type FLOAT16 is not supported");

  ModelBuilder b(13, "g");
  b.input("s", TensorProto::STRING, {int64_t{1}});
  b.node("Identity", {"s"}, {"y"}, "id");
  b.output("y", TensorProto::STRING, {int64_t{1}});
  EXPECT_HAS(import_error(b.model()), "bad.onnx: graph input 's' has element type STRING");

  ModelBuilder c(13, "g");
  c.input("x", TensorProto::FLOAT, {int64_t{1}});
  c.node("Relu", {"x"}, {"y"}, "r");
  c.output("y", TensorProto::FLOAT, {int64_t{1}});
  c.graph().mutable_input(0)->mutable_type()->mutable_sequence_type();
  EXPECT_HAS(import_error(c.model()),
             "bad.onnx: graph input 'x' is a sequence; hetcim supports dense tensors only");
}

TEST(ImportErrors, Opsets) {
  for (int64_t opset : {7, 10, 19, 99}) {
    onnx::ModelProto m = fixtures::tiny_conv();
    m.mutable_opset_import(0)->set_version(opset);
    EXPECT_HAS(import_error(m), "bad.onnx: unsupported opset " + std::to_string(opset) +
                                    " for the default domain (ai.onnx); hetcim reads opsets 11-18");
  }
  onnx::ModelProto m = fixtures::tiny_conv();
  m.mutable_opset_import(0)->set_domain("com.example");
  EXPECT_EQ(import_error(m),
            "bad.onnx: opset_import has no entry for the default domain (ai.onnx)");
  m = fixtures::tiny_conv();
  *m.add_opset_import() = m.opset_import(0);
  EXPECT_EQ(import_error(m), "bad.onnx: opset_import lists domain 'ai.onnx' twice");
  // 11 and 18 are the bounds and import.
  for (int64_t opset : {11, 18}) {
    m = fixtures::tiny_conv();
    m.set_ir_version(opset == 11 ? 6 : 8);
    m.mutable_opset_import(0)->set_version(opset);
    EXPECT_NO_THROW((void)import_onnx_bytes(fixtures::serialize(m), "ok.onnx")) << opset;
  }
}

TEST(ImportErrors, DuplicateNames) {
  onnx::ModelProto m = fixtures::torch_cnn();
  m.mutable_graph()->mutable_node(2)->set_name("/conv1/Conv");
  EXPECT_EQ(import_error(m), "bad.onnx: two nodes are named '/conv1/Conv'");

  m = fixtures::torch_cnn();
  *m.mutable_graph()->add_initializer() = m.graph().initializer(0);
  EXPECT_EQ(import_error(m), "bad.onnx: two initializers are named 'conv1.weight'");

  m = fixtures::torch_cnn();
  m.mutable_graph()->mutable_node(3)->set_output(
      0, "/relu/Relu_output_0");  // MaxPool writes Relu's output
  const std::string msg = import_error(m);
  EXPECT_STARTS(msg, "bad.onnx: ONNX checker: ");
  EXPECT_HAS(msg, "/relu/Relu_output_0");
}

TEST(ImportErrors, DanglingInputNamesTheNode) {
  onnx::ModelProto m = fixtures::torch_cnn();
  m.mutable_graph()->mutable_node(4)->set_input(0, "nowhere");
  const std::string msg = import_error(m);
  EXPECT_STARTS(msg, "bad.onnx: ONNX checker: ");
  EXPECT_HAS(msg, "nowhere");
  EXPECT_HAS(msg, "/layer1/conv/Conv");
}

TEST(ImportErrors, ModelWithoutGraphAndBadBatch) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  EXPECT_EQ(import_error(m), "bad.onnx: the model has no graph");
  ImportOptions o;
  o.batch = 0;
  const std::string bytes = fixtures::serialize(fixtures::tiny_conv());
  EXPECT_EQ(user_error_of([&] { (void)import_onnx_bytes(bytes, "t.onnx", o); }),
            "t.onnx: ImportOptions::batch is 0 (must be >= 1)");
}

}  // namespace
}  // namespace hetcim::onnxio
