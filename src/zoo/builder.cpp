#include "zoo/builder.h"

#include <charconv>

#include "ops/shape_inference.h"
#include "util/error.h"

namespace hetcim::zoo {

using graph::Attribute;
using graph::DType;
using graph::Initializer;
using graph::Shape;

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

Builder::Builder(std::string graph_name, int64_t opset) {
  g_.name = std::move(graph_name);
  g_.opset = opset;
}

std::string Builder::input(const std::string& name, const Shape& shape, DType dtype) {
  HETCIM_ASSERT(!g_.info(name), "tensor '", name, "' defined twice");
  g_.inputs.push_back(name);
  g_.values[name] = {dtype, shape};
  return name;
}

void Builder::output(const std::string& tensor) {
  HETCIM_ASSERT(g_.info(tensor), "output '", tensor, "' is not a tensor of the graph");
  g_.outputs.push_back(tensor);
}

std::string Builder::param(const std::string& name, const Shape& shape) {
  HETCIM_ASSERT(!g_.info(name), "tensor '", name, "' defined twice");
  g_.initializers[name] = Initializer::shape_only(DType::Float32, shape);
  return name;
}

std::string Builder::const_floats(const std::string& name, const Shape& shape,
                                  const std::vector<float>& values) {
  HETCIM_ASSERT(!g_.info(name), "tensor '", name, "' defined twice");
  HETCIM_ASSERT(graph::element_count(shape) == static_cast<int64_t>(values.size()), "constant '",
                name, "'");
  g_.initializers[name] = Initializer::from_floats(shape, values);
  return name;
}

std::string Builder::const_ints(const std::string& name, const std::vector<int64_t>& values) {
  HETCIM_ASSERT(!g_.info(name), "tensor '", name, "' defined twice");
  g_.initializers[name] = Initializer::from_ints({static_cast<int64_t>(values.size())}, values);
  return name;
}

std::string Builder::scalar(float value) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  HETCIM_ASSERT(ec == std::errc());
  const std::string name = "const." + std::string(buf, end);
  if (!g_.is_initializer(name)) g_.initializers[name] = Initializer::from_floats({}, {value});
  return name;
}

std::string Builder::unique_node_name(const std::string& name) {
  if (node_names_.insert(name).second) return name;
  for (int i = 1;; ++i) {
    std::string candidate = name + "_" + std::to_string(i);
    if (node_names_.insert(candidate).second) return candidate;
  }
}

std::vector<std::string> Builder::add(const std::string& op_type, const std::string& name,
                                      std::vector<std::string> inputs,
                                      std::map<std::string, Attribute> attrs, size_t outputs) {
  graph::Node n;
  n.name = unique_node_name(name);
  n.op_type = op_type;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  for (size_t i = 0; i < outputs; ++i) {
    std::string t = outputs == 1 ? n.name : n.name + "." + std::to_string(i);
    HETCIM_ASSERT(!g_.info(t), "tensor '", t, "' defined twice");
    n.outputs.push_back(std::move(t));
  }
  std::vector<graph::TensorInfo> infos = ops::infer_outputs(g_, n);
  for (size_t i = 0; i < outputs; ++i) g_.values[n.outputs[i]] = std::move(infos[i]);
  std::vector<std::string> result = n.outputs;
  g_.nodes.push_back(std::move(n));
  return result;
}

std::string Builder::add1(const std::string& op_type, const std::string& name,
                          std::vector<std::string> inputs, std::map<std::string, Attribute> attrs) {
  return add(op_type, name, std::move(inputs), std::move(attrs), 1).front();
}

const Shape& Builder::shape(const std::string& tensor) const {
  return g_.shape_of(tensor, "zoo builder");
}

std::string Builder::conv(const std::string& name, const std::string& x, int64_t c_out,
                          int64_t kernel, int64_t stride, int64_t pad, int64_t groups, bool bias) {
  const int64_t c_in = channels(x);
  if (groups < 1 || c_in % groups != 0) {
    throw user_error("model layer '", name, "': ", c_in, " input channels are not divisible by ",
                     groups, " groups");
  }
  std::vector<std::string> in = {x,
                                 param(name + ".weight", {c_out, c_in / groups, kernel, kernel})};
  if (bias) in.push_back(param(name + ".bias", {c_out}));
  return add1("Conv", name, std::move(in),
              {{"dilations", std::vector<int64_t>{1, 1}},
               {"group", groups},
               {"kernel_shape", std::vector<int64_t>{kernel, kernel}},
               {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
               {"strides", std::vector<int64_t>{stride, stride}}});
}

std::string Builder::batch_norm(const std::string& name, const std::string& x, double epsilon) {
  const int64_t c = channels(x);
  return add1("BatchNormalization", name,
              {x, param(name + ".weight", {c}), param(name + ".bias", {c}),
               param(name + ".running_mean", {c}), param(name + ".running_var", {c})},
              {{"epsilon", epsilon}, {"momentum", 0.9}});
}

std::string Builder::relu(const std::string& name, const std::string& x) {
  return add1("Relu", name, {x});
}

std::string Builder::relu6(const std::string& name, const std::string& x) {
  return add1("Clip", name, {x, scalar(0.0f), scalar(6.0f)});
}

std::string Builder::silu(const std::string& name, const std::string& x) {
  const std::string s = add1("Sigmoid", name + ".sigmoid", {x});
  return add1("Mul", name + ".mul", {x, s});
}

std::string Builder::max_pool(const std::string& name, const std::string& x, int64_t kernel,
                              int64_t stride, int64_t pad) {
  return add1("MaxPool", name, {x},
              {{"ceil_mode", int64_t{0}},
               {"kernel_shape", std::vector<int64_t>{kernel, kernel}},
               {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
               {"strides", std::vector<int64_t>{stride, stride}}});
}

std::string Builder::avg_pool(const std::string& name, const std::string& x, int64_t kernel,
                              int64_t stride, bool ceil_mode) {
  return add1("AveragePool", name, {x},
              {{"ceil_mode", int64_t{ceil_mode ? 1 : 0}},
               {"count_include_pad", int64_t{0}},
               {"kernel_shape", std::vector<int64_t>{kernel, kernel}},
               {"pads", std::vector<int64_t>{0, 0, 0, 0}},
               {"strides", std::vector<int64_t>{stride, stride}}});
}

std::string Builder::global_avg_pool(const std::string& name, const std::string& x) {
  return add1("GlobalAveragePool", name, {x});
}

std::string Builder::flatten(const std::string& name, const std::string& x) {
  return add1("Flatten", name, {x}, {{"axis", int64_t{1}}});
}

std::string Builder::linear(const std::string& name, const std::string& x, int64_t out_features) {
  const Shape& s = shape(x);
  if (s.size() != 2) {
    throw user_error("model layer '", name, "': Linear expects a flattened input, got ",
                     graph::shape_str(s));
  }
  const int64_t in_features = s[1];
  return add1("Gemm", name,
              {x, param(name + ".weight", {out_features, in_features}),
               param(name + ".bias", {out_features})},
              {{"alpha", 1.0}, {"beta", 1.0}, {"transB", int64_t{1}}});
}

std::string Builder::add_tensors(const std::string& name, const std::string& a,
                                 const std::string& b) {
  return add1("Add", name, {a, b});
}

std::string Builder::concat(const std::string& name, std::vector<std::string> xs, int64_t axis) {
  return add1("Concat", name, std::move(xs), {{"axis", axis}});
}

std::string Builder::upsample_nearest(const std::string& name, const std::string& x, float scale) {
  const std::string scales = const_floats(name + ".scales", {4}, {1.0f, 1.0f, scale, scale});
  return add1("Resize", name, {x, "", scales},
              {{"coordinate_transformation_mode", std::string("asymmetric")},
               {"cubic_coeff_a", -0.75},
               {"mode", std::string("nearest")},
               {"nearest_mode", std::string("floor")}});
}

graph::Graph Builder::finish() && {
  graph::validate(g_);
  return std::move(g_);
}

}  // namespace hetcim::zoo
