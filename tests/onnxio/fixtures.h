// ONNX models built programmatically, in the shapes real exporters produce them, so the tests
// need neither Python nor committed model files.
//
// - torch_cnn: a small fp32 CNN as torch.onnx.export writes it (opset 13-17): graph "main_graph",
//   input "input.1" with a symbolic "batch_size", nodes named "/layer1/conv/Conv", outputs named
//   "/layer1/conv/Conv_output_0", parameters named "conv1.weight" / "onnx::Conv_123", and either
//   torch.flatten (Flatten) or x.view(x.size(0), -1) (Shape -> Gather -> Unsqueeze -> Concat ->
//   Reshape with Constant nodes for the indices).
// - qdq_cnn: the same kind of network after ONNX Runtime's quantize_static in QDQ format:
//   QuantizeLinear/DequantizeLinear pairs on activations, int8 weights (per-tensor, or
//   per-channel with axis=0) and int32 biases behind DequantizeLinear, around Conv, Add and Gemm.
//
// Every parameter value follows a closed formula documented next to its builder, so tests can
// check the imported bytes against numbers computed by hand.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "graph/graph.h"
#include "onnx/onnx_pb.h"

namespace hetcim::onnxio::fixtures {

using Dim = std::variant<int64_t, std::string>;  // a size or a symbol ("batch_size")

// Thin helpers over the protobuf API, in the order an exporter writes a model.
class ModelBuilder {
 public:
  ModelBuilder(int64_t opset, std::string graph_name, int64_t ir_version = 0);

  void input(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims);
  void output(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims);
  void value_info(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims);
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "",
                        const std::string& domain = "");
  // Initializers as raw_data (the common case) or typed fields.
  onnx::TensorProto& init_float(const std::string& name, const std::vector<int64_t>& dims,
                                const std::vector<float>& values, bool typed_field = false);
  onnx::TensorProto& init_int8(const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<int8_t>& values);
  onnx::TensorProto& init_uint8(const std::string& name, const std::vector<int64_t>& dims,
                                const std::vector<uint8_t>& values);
  onnx::TensorProto& init_int32(const std::string& name, const std::vector<int64_t>& dims,
                                const std::vector<int32_t>& values);
  onnx::TensorProto& init_int64(const std::string& name, const std::vector<int64_t>& dims,
                                const std::vector<int64_t>& values, bool typed_field = false);
  void add_opset(const std::string& domain, int64_t version);

  [[nodiscard]] onnx::ModelProto& model() { return model_; }
  [[nodiscard]] onnx::GraphProto& graph() { return *model_.mutable_graph(); }

 private:
  onnx::ModelProto model_;
};

void attr_int(onnx::NodeProto& n, const std::string& key, int64_t v);
void attr_float(onnx::NodeProto& n, const std::string& key, float v);
void attr_string(onnx::NodeProto& n, const std::string& key, const std::string& v);
void attr_ints(onnx::NodeProto& n, const std::string& key, const std::vector<int64_t>& v);
void attr_floats(onnx::NodeProto& n, const std::string& key, const std::vector<float>& v);
void attr_tensor(onnx::NodeProto& n, const std::string& key, const onnx::TensorProto& t);
// A Constant node holding an int64 tensor, as torch writes shape operands.
void constant_int64(ModelBuilder& b, const std::string& name, const std::string& output,
                    const std::vector<int64_t>& dims, const std::vector<int64_t>& values);

[[nodiscard]] std::string serialize(const onnx::ModelProto& m);

struct TorchCnnOptions {
  int64_t opset = 13;                   // 13-17
  bool reshape_flatten = false;         // x.view(x.size(0), -1) instead of torch.flatten(x, 1)
  bool initializers_as_inputs = false;  // list parameters as graph inputs (exporters before IR 4)
};
// input.1 [batch_size,3,16,16] -> /conv1/Conv (8x3x3x3, pad 1, no bias) -> /bn1/BatchNormalization
// -> /relu/Relu -> /maxpool/MaxPool (2x2, stride 2) -> /layer1/conv/Conv (onnx::Conv_123 16x8x3x3,
// onnx::Conv_124 bias, pad 1, stride 2) -> /layer1/relu/Relu -> /avgpool/GlobalAveragePool ->
// /Flatten or the Reshape chain -> /fc/Gemm (fc.weight 10x16, transB=1) -> logits [batch_size,10].
// Values: conv1.weight[i] = 0.01*((i % 7) - 3); bn1.weight[c] = 1 + 0.1c; bn1.bias[c] = -0.05c;
// bn1.running_mean[c] = 0.02c; bn1.running_var[c] = 1 + c (as float_data);
// onnx::Conv_123[i] = 0.001*((i % 11) - 5); onnx::Conv_124[c] = 0.5 - 0.0625c;
// fc.weight[i] = 0.01*((i % 13) - 6); fc.bias[j] = 0.1j.
[[nodiscard]] onnx::ModelProto torch_cnn(const TorchCnnOptions& options = {});

struct QdqOptions {
  int64_t opset = 13;
  bool per_channel = false;       // conv weights with one scale per output channel, axis = 0
  bool int8_activations = false;  // activations int8 (zero point 0) instead of uint8 (128)
};
// input [1,3,8,8] -> Q/DQ -> /conv1/Conv (3->4, 3x3, pad 1, int8 weight + int32 bias) ->
// /relu1/Relu
// -> Q/DQ (= a) -> /conv2/Conv (4->4, 1x1) -> Q/DQ (= b) -> /Add(a, b) -> Q/DQ ->
// /gap/GlobalAveragePool -> Q/DQ -> /Flatten -> Q/DQ -> /fc/Gemm (int8 10x4, int32 bias, transB=1)
// -> Q/DQ -> output [1,10]. 27 nodes: 7 QuantizeLinear, 13 DequantizeLinear, 2 Conv, Relu, Add,
// GlobalAveragePool, Flatten, Gemm.
// Values: activation scales 0.02 (input), 0.05 (others); weight w_q[i] = ((7i) % 255) - 127 for
// conv1 (108 values), ((5i) % 255) - 127 for conv2 (16), ((3i) % 255) - 127 for fc (40);
// weight scales: per-tensor 0.01 (conv1), 0.02 (conv2), 0.004 (fc); per-channel conv1 0.01(c+1),
// conv2 0.02(c+1); weight zero points 0; bias_q[c] = 100c - 150 (conv1), 10c (conv2),
// 7j - 30 (fc), with bias scale = input scale * weight scale and zero point 0.
[[nodiscard]] onnx::ModelProto qdq_cnn(const QdqOptions& options = {});

// Relu -> com.microsoft Gelu: a custom-domain op ONNX does not know.
[[nodiscard]] onnx::ModelProto custom_domain_model();

// x [1,3,8,8] -> Conv(w 4x3x3x3, raw_data of zeros) -> y [1,4,6,6]: the smallest useful model.
[[nodiscard]] onnx::ModelProto tiny_conv();

// Field-by-field equality with gtest diagnostics naming the first difference.
void expect_same_graph(const graph::Graph& a, const graph::Graph& b);

}  // namespace hetcim::onnxio::fixtures
