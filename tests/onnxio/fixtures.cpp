#include "fixtures.h"

#include <gtest/gtest.h>

#include <cstring>

namespace hetcim::onnxio::fixtures {

namespace {

using onnx::TensorProto;

void set_type(onnx::ValueInfoProto* vi, const std::string& name, int32_t elem_type,
              const std::vector<Dim>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* shape = tt->mutable_shape();
  for (const Dim& d : dims) {
    auto* dim = shape->add_dim();
    if (const auto* v = std::get_if<int64_t>(&d)) {
      dim->set_dim_value(*v);
    } else {
      dim->set_dim_param(std::get<std::string>(d));
    }
  }
}

template <typename T>
TensorProto& raw_tensor(onnx::GraphProto& g, const std::string& name, int32_t type,
                        const std::vector<int64_t>& dims, const std::vector<T>& values) {
  TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(values.data(), values.size() * sizeof(T));
  return *t;
}

int64_t ir_for(int64_t opset) {
  return opset <= 11 ? 6 : opset <= 14 ? 7 : 8;
}

template <typename F>
std::vector<float> floats(size_t n, F f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = f(static_cast<int64_t>(i));
  return v;
}

std::vector<int8_t> qweights(size_t n, int64_t step) {
  std::vector<int8_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<int8_t>((step * static_cast<int64_t>(i)) % 255 - 127);
  }
  return v;
}

}  // namespace

ModelBuilder::ModelBuilder(int64_t opset, std::string graph_name, int64_t ir_version) {
  model_.set_ir_version(ir_version > 0 ? ir_version : ir_for(opset));
  model_.set_producer_name("hetcim-fixtures");
  add_opset("", opset);
  model_.mutable_graph()->set_name(std::move(graph_name));
}

void ModelBuilder::input(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims) {
  set_type(graph().add_input(), name, elem_type, dims);
}
void ModelBuilder::output(const std::string& name, int32_t elem_type,
                          const std::vector<Dim>& dims) {
  set_type(graph().add_output(), name, elem_type, dims);
}
void ModelBuilder::value_info(const std::string& name, int32_t elem_type,
                              const std::vector<Dim>& dims) {
  set_type(graph().add_value_info(), name, elem_type, dims);
}

onnx::NodeProto& ModelBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& outputs,
                                    const std::string& name, const std::string& domain) {
  onnx::NodeProto* n = graph().add_node();
  n->set_op_type(op);
  if (!name.empty()) n->set_name(name);
  if (!domain.empty()) n->set_domain(domain);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return *n;
}

TensorProto& ModelBuilder::init_float(const std::string& name, const std::vector<int64_t>& dims,
                                      const std::vector<float>& values, bool typed_field) {
  if (!typed_field) return raw_tensor(graph(), name, TensorProto::FLOAT, dims, values);
  TensorProto* t = graph().add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
  return *t;
}
TensorProto& ModelBuilder::init_int8(const std::string& name, const std::vector<int64_t>& dims,
                                     const std::vector<int8_t>& values) {
  return raw_tensor(graph(), name, TensorProto::INT8, dims, values);
}
TensorProto& ModelBuilder::init_uint8(const std::string& name, const std::vector<int64_t>& dims,
                                      const std::vector<uint8_t>& values) {
  return raw_tensor(graph(), name, TensorProto::UINT8, dims, values);
}
TensorProto& ModelBuilder::init_int32(const std::string& name, const std::vector<int64_t>& dims,
                                      const std::vector<int32_t>& values) {
  return raw_tensor(graph(), name, TensorProto::INT32, dims, values);
}
TensorProto& ModelBuilder::init_int64(const std::string& name, const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& values, bool typed_field) {
  if (!typed_field) return raw_tensor(graph(), name, TensorProto::INT64, dims, values);
  TensorProto* t = graph().add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return *t;
}

void ModelBuilder::add_opset(const std::string& domain, int64_t version) {
  auto* op = model_.add_opset_import();
  op->set_domain(domain);
  op->set_version(version);
}

void attr_int(onnx::NodeProto& n, const std::string& key, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void attr_float(onnx::NodeProto& n, const std::string& key, float v) {
  auto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void attr_string(onnx::NodeProto& n, const std::string& key, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
void attr_ints(onnx::NodeProto& n, const std::string& key, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void attr_floats(onnx::NodeProto& n, const std::string& key, const std::vector<float>& v) {
  auto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}
void attr_tensor(onnx::NodeProto& n, const std::string& key, const onnx::TensorProto& t) {
  auto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = t;
}

void constant_int64(ModelBuilder& b, const std::string& name, const std::string& output,
                    const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  onnx::TensorProto t;
  t.set_data_type(TensorProto::INT64);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(values.data(), values.size() * sizeof(int64_t));
  attr_tensor(b.node("Constant", {}, {output}, name), "value", t);
}

std::string serialize(const onnx::ModelProto& m) {
  std::string s;
  if (!m.SerializeToString(&s)) ADD_FAILURE() << "fixture does not serialize";
  return s;
}

onnx::ModelProto torch_cnn(const TorchCnnOptions& o) {
  ModelBuilder b(o.opset, "main_graph");
  b.model().set_producer_name("pytorch");
  b.model().set_producer_version("1.13.1");
  const std::vector<Dim> in_dims{std::string("batch_size"), int64_t{3}, int64_t{16}, int64_t{16}};
  b.input("input.1", TensorProto::FLOAT, in_dims);

  b.init_float("conv1.weight", {8, 3, 3, 3},
               floats(216, [](int64_t i) { return 0.01f * static_cast<float>(i % 7 - 3); }));
  b.init_float("bn1.weight", {8},
               floats(8, [](int64_t c) { return 1.0f + 0.1f * static_cast<float>(c); }));
  b.init_float("bn1.bias", {8},
               floats(8, [](int64_t c) { return -0.05f * static_cast<float>(c); }));
  b.init_float("bn1.running_mean", {8},
               floats(8, [](int64_t c) { return 0.02f * static_cast<float>(c); }));
  b.init_float("bn1.running_var", {8},
               floats(8, [](int64_t c) { return 1.0f + static_cast<float>(c); }),
               /*typed_field=*/true);
  b.init_float("onnx::Conv_123", {16, 8, 3, 3},
               floats(1152, [](int64_t i) { return 0.001f * static_cast<float>(i % 11 - 5); }));
  b.init_float("onnx::Conv_124", {16},
               floats(16, [](int64_t c) { return 0.5f - 0.0625f * static_cast<float>(c); }));
  b.init_float("fc.weight", {10, 16},
               floats(160, [](int64_t i) { return 0.01f * static_cast<float>(i % 13 - 6); }));
  b.init_float("fc.bias", {10}, floats(10, [](int64_t j) { return 0.1f * static_cast<float>(j); }));
  if (o.initializers_as_inputs) {
    for (const auto& t : b.graph().initializer()) {
      std::vector<Dim> dims(t.dims().begin(), t.dims().end());
      b.input(t.name(), TensorProto::FLOAT, dims);
    }
  }

  auto& c1 = b.node("Conv", {"input.1", "conv1.weight"}, {"/conv1/Conv_output_0"}, "/conv1/Conv");
  attr_ints(c1, "dilations", {1, 1});
  attr_int(c1, "group", 1);
  attr_ints(c1, "kernel_shape", {3, 3});
  attr_ints(c1, "pads", {1, 1, 1, 1});
  attr_ints(c1, "strides", {1, 1});
  auto& bn = b.node(
      "BatchNormalization",
      {"/conv1/Conv_output_0", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var"},
      {"/bn1/BatchNormalization_output_0"}, "/bn1/BatchNormalization");
  attr_float(bn, "epsilon", 1e-5f);
  attr_float(bn, "momentum", 0.9f);
  b.node("Relu", {"/bn1/BatchNormalization_output_0"}, {"/relu/Relu_output_0"}, "/relu/Relu");
  auto& mp =
      b.node("MaxPool", {"/relu/Relu_output_0"}, {"/maxpool/MaxPool_output_0"}, "/maxpool/MaxPool");
  attr_int(mp, "ceil_mode", 0);
  attr_ints(mp, "kernel_shape", {2, 2});
  attr_ints(mp, "pads", {0, 0, 0, 0});
  attr_ints(mp, "strides", {2, 2});
  auto& c2 = b.node("Conv", {"/maxpool/MaxPool_output_0", "onnx::Conv_123", "onnx::Conv_124"},
                    {"/layer1/conv/Conv_output_0"}, "/layer1/conv/Conv");
  attr_ints(c2, "dilations", {1, 1});
  attr_int(c2, "group", 1);
  attr_ints(c2, "kernel_shape", {3, 3});
  attr_ints(c2, "pads", {1, 1, 1, 1});
  attr_ints(c2, "strides", {2, 2});
  b.node("Relu", {"/layer1/conv/Conv_output_0"}, {"/layer1/relu/Relu_output_0"},
         "/layer1/relu/Relu");
  b.node("GlobalAveragePool", {"/layer1/relu/Relu_output_0"},
         {"/avgpool/GlobalAveragePool_output_0"}, "/avgpool/GlobalAveragePool");
  std::string flat;
  if (o.reshape_flatten) {
    const std::string x = "/avgpool/GlobalAveragePool_output_0";
    b.node("Shape", {x}, {"/Shape_output_0"}, "/Shape");
    constant_int64(b, "/Constant", "/Constant_output_0", {}, {0});
    auto& gather = b.node("Gather", {"/Shape_output_0", "/Constant_output_0"}, {"/Gather_output_0"},
                          "/Gather");
    attr_int(gather, "axis", 0);
    constant_int64(b, "/Constant_1", "/Constant_1_output_0", {1}, {0});
    b.node("Unsqueeze", {"/Gather_output_0", "/Constant_1_output_0"}, {"/Unsqueeze_output_0"},
           "/Unsqueeze");
    constant_int64(b, "/Constant_2", "/Constant_2_output_0", {1}, {-1});
    auto& concat = b.node("Concat", {"/Unsqueeze_output_0", "/Constant_2_output_0"},
                          {"/Concat_output_0"}, "/Concat");
    attr_int(concat, "axis", 0);
    b.node("Reshape", {x, "/Concat_output_0"}, {"/Reshape_output_0"}, "/Reshape");
    flat = "/Reshape_output_0";
  } else {
    auto& f = b.node("Flatten", {"/avgpool/GlobalAveragePool_output_0"}, {"/Flatten_output_0"},
                     "/Flatten");
    attr_int(f, "axis", 1);
    flat = "/Flatten_output_0";
  }
  auto& fc = b.node("Gemm", {flat, "fc.weight", "fc.bias"}, {"logits"}, "/fc/Gemm");
  attr_float(fc, "alpha", 1.0f);
  attr_float(fc, "beta", 1.0f);
  attr_int(fc, "transB", 1);
  b.output("logits", TensorProto::FLOAT, {std::string("batch_size"), int64_t{10}});
  return b.model();
}

onnx::ModelProto qdq_cnn(const QdqOptions& o) {
  ModelBuilder b(o.opset, "torch-jit-export_quantized");
  b.model().set_producer_name("onnx.quantize");
  b.model().set_producer_version("0.1.0");
  b.input("input", TensorProto::FLOAT, {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}});

  // Activation quantization parameters, one scale / zero point pair per quantized tensor.
  auto act_params = [&](const std::string& t, float scale) {
    b.init_float(t + "_scale", {}, {scale});
    if (o.int8_activations) {
      b.init_int8(t + "_zero_point", {}, {0});
    } else {
      b.init_uint8(t + "_zero_point", {}, {128});
    }
  };
  // x -> QuantizeLinear -> DequantizeLinear; returns the dequantized tensor's name.
  auto qdq = [&](const std::string& x, float scale) {
    act_params(x, scale);
    b.node("QuantizeLinear", {x, x + "_scale", x + "_zero_point"}, {x + "_quantized"},
           x + "_QuantizeLinear");
    b.node("DequantizeLinear", {x + "_quantized", x + "_scale", x + "_zero_point"},
           {x + "_dequantized"}, x + "_DequantizeLinear");
    return x + "_dequantized";
  };
  // A quantized weight (int8) or bias (int32) behind a DequantizeLinear.
  auto dq_param = [&](const std::string& p, const std::vector<int64_t>& dims,
                      const std::vector<float>& scales, bool per_channel, bool is_bias,
                      const std::vector<int8_t>& w8, const std::vector<int32_t>& b32) {
    const std::string q = p + "_quantized";
    if (is_bias) {
      b.init_int32(q, dims, b32);
    } else {
      b.init_int8(q, dims, w8);
    }
    const std::vector<int64_t> pdims =
        per_channel ? std::vector<int64_t>{static_cast<int64_t>(scales.size())}
                    : std::vector<int64_t>{};
    b.init_float(q + "_scale", pdims, scales);
    if (is_bias) {
      b.init_int32(q + "_zero_point", pdims, std::vector<int32_t>(scales.size(), 0));
    } else {
      b.init_int8(q + "_zero_point", pdims, std::vector<int8_t>(scales.size(), 0));
    }
    auto& n = b.node("DequantizeLinear", {q, q + "_scale", q + "_zero_point"}, {p + "_dequantized"},
                     p + "_DequantizeLinear");
    if (per_channel) attr_int(n, "axis", 0);
    return p + "_dequantized";
  };
  auto scales = [&](float base, int64_t channels) {
    if (!o.per_channel) return std::vector<float>{base};
    std::vector<float> s;
    for (int64_t c = 0; c < channels; ++c) s.push_back(base * static_cast<float>(c + 1));
    return s;
  };
  auto times = [](float a, std::vector<float> v) {
    for (float& x : v) x *= a;
    return v;
  };
  auto biases = [](int64_t n, auto f) {
    std::vector<int32_t> v;
    for (int64_t c = 0; c < n; ++c) v.push_back(static_cast<int32_t>(f(c)));
    return v;
  };

  const float in_scale = 0.02f, act_scale = 0.05f;
  const std::string x = qdq("input", in_scale);
  const auto s1 = scales(0.01f, 4);
  const std::string w1 =
      dq_param("conv1.weight", {4, 3, 3, 3}, s1, o.per_channel, false, qweights(108, 7), {});
  const std::string b1 = dq_param("conv1.bias", {4}, times(in_scale, s1), o.per_channel, true, {},
                                  biases(4, [](int64_t c) { return 100 * c - 150; }));
  auto& c1 = b.node("Conv", {x, w1, b1}, {"/conv1/Conv_output_0"}, "/conv1/Conv");
  attr_ints(c1, "kernel_shape", {3, 3});
  attr_ints(c1, "pads", {1, 1, 1, 1});
  b.node("Relu", {"/conv1/Conv_output_0"}, {"/relu1/Relu_output_0"}, "/relu1/Relu");
  const std::string a = qdq("/relu1/Relu_output_0", act_scale);

  const auto s2 = scales(0.02f, 4);
  const std::string w2 =
      dq_param("conv2.weight", {4, 4, 1, 1}, s2, o.per_channel, false, qweights(16, 5), {});
  const std::string b2 = dq_param("conv2.bias", {4}, times(act_scale, s2), o.per_channel, true, {},
                                  biases(4, [](int64_t c) { return 10 * c; }));
  auto& c2 = b.node("Conv", {a, w2, b2}, {"/conv2/Conv_output_0"}, "/conv2/Conv");
  attr_ints(c2, "kernel_shape", {1, 1});
  const std::string bq = qdq("/conv2/Conv_output_0", act_scale);

  b.node("Add", {a, bq}, {"/Add_output_0"}, "/Add");
  const std::string s = qdq("/Add_output_0", act_scale);
  b.node("GlobalAveragePool", {s}, {"/gap/GlobalAveragePool_output_0"}, "/gap/GlobalAveragePool");
  const std::string p = qdq("/gap/GlobalAveragePool_output_0", act_scale);
  auto& fl = b.node("Flatten", {p}, {"/Flatten_output_0"}, "/Flatten");
  attr_int(fl, "axis", 1);
  const std::string f = qdq("/Flatten_output_0", act_scale);

  const std::string wf =
      dq_param("fc.weight", {10, 4}, {0.004f}, false, false, qweights(40, 3), {});
  const std::string bf = dq_param("fc.bias", {10}, {act_scale * 0.004f}, false, true, {},
                                  biases(10, [](int64_t j) { return 7 * j - 30; }));
  auto& gemm = b.node("Gemm", {f, wf, bf}, {"/fc/Gemm_output_0"}, "/fc/Gemm");
  attr_float(gemm, "alpha", 1.0f);
  attr_float(gemm, "beta", 1.0f);
  attr_int(gemm, "transB", 1);
  // The graph output keeps its name; its Q/DQ pair is the last one.
  act_params("/fc/Gemm_output_0", 0.1f);
  b.node("QuantizeLinear",
         {"/fc/Gemm_output_0", "/fc/Gemm_output_0_scale", "/fc/Gemm_output_0_zero_point"},
         {"/fc/Gemm_output_0_quantized"}, "/fc/Gemm_output_0_QuantizeLinear");
  b.node("DequantizeLinear",
         {"/fc/Gemm_output_0_quantized", "/fc/Gemm_output_0_scale", "/fc/Gemm_output_0_zero_point"},
         {"output"}, "output_DequantizeLinear");
  b.output("output", TensorProto::FLOAT, {int64_t{1}, int64_t{10}});
  return b.model();
}

onnx::ModelProto custom_domain_model() {
  ModelBuilder b(17, "custom");
  b.add_opset("com.microsoft", 1);
  b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{8}});
  b.node("Relu", {"x"}, {"r"}, "relu");
  auto& g = b.node("Gelu", {"r"}, {"y"}, "gelu", "com.microsoft");
  attr_string(g, "approximation", "none");
  b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{8}});
  return b.model();
}

onnx::ModelProto tiny_conv() {
  ModelBuilder b(13, "tiny");
  b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}});
  b.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.0f));
  b.node("Conv", {"x", "w"}, {"y"}, "c");
  b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{4}, int64_t{6}, int64_t{6}});
  return b.model();
}

void expect_same_graph(const graph::Graph& a, const graph::Graph& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.opset, b.opset);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const graph::Node& x = a.nodes[i];
    const graph::Node& y = b.nodes[i];
    EXPECT_EQ(x.name, y.name) << "node " << i;
    EXPECT_EQ(x.op_type, y.op_type) << x.name;
    EXPECT_EQ(x.domain, y.domain) << x.name;
    EXPECT_EQ(x.inputs, y.inputs) << x.name;
    EXPECT_EQ(x.outputs, y.outputs) << x.name;
    EXPECT_TRUE(x.attrs == y.attrs) << "attributes of " << x.name;
  }
  ASSERT_EQ(a.values.size(), b.values.size());
  for (const auto& [name, info] : a.values) {
    auto it = b.values.find(name);
    ASSERT_NE(it, b.values.end()) << "value " << name;
    EXPECT_EQ(info.dtype, it->second.dtype) << name;
    EXPECT_EQ(info.shape, it->second.shape) << name;
  }
  ASSERT_EQ(a.initializers.size(), b.initializers.size());
  for (const auto& [name, init] : a.initializers) {
    auto it = b.initializers.find(name);
    ASSERT_NE(it, b.initializers.end()) << "initializer " << name;
    EXPECT_EQ(init.info.dtype, it->second.info.dtype) << name;
    EXPECT_EQ(init.info.shape, it->second.info.shape) << name;
    EXPECT_TRUE(init.raw == it->second.raw) << "bytes of " << name;
  }
}

}  // namespace hetcim::onnxio::fixtures
