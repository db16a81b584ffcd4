// Builds a graph::Graph node by node in the form torch.onnx.export gives an fp32 eval-mode model
// (before any fusion): node names are PyTorch module paths ("layer1.0.conv1"), parameters are
// shape-only initializers named like the state_dict ("layer1.0.conv1.weight"), and every node's
// output dtype and shape is inferred the moment the node is added, so shapes are always known and
// a model definition that wires a layer wrongly fails at that layer.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::zoo {

class Builder {
 public:
  explicit Builder(std::string graph_name, int64_t opset = 17);

  // A graph input / output.
  std::string input(const std::string& name, const graph::Shape& shape,
                    graph::DType dtype = graph::DType::Float32);
  void output(const std::string& tensor);

  // A trained parameter: a shape-only float32 initializer.
  std::string param(const std::string& name, const graph::Shape& shape);
  // Constants that carry values (shape operands, scales, clip bounds, grids).
  std::string const_floats(const std::string& name, const graph::Shape& shape,
                           const std::vector<float>& values);
  std::string const_ints(const std::string& name, const std::vector<int64_t>& values);  // 1-D
  // A float32 scalar shared by every node that uses the same value ("const.6").
  std::string scalar(float value);

  // Adds a node and returns its output tensors. A node name already taken gets the suffix _1,
  // _2, ... (as torch.onnx.export does for a module called twice); single-output tensors take
  // the node's name, multi-output ones "<node>.<i>".
  std::vector<std::string> add(const std::string& op_type, const std::string& name,
                               std::vector<std::string> inputs,
                               std::map<std::string, graph::Attribute> attrs = {},
                               size_t outputs = 1);
  std::string add1(const std::string& op_type, const std::string& name,
                   std::vector<std::string> inputs,
                   std::map<std::string, graph::Attribute> attrs = {});

  [[nodiscard]] const graph::Shape& shape(const std::string& tensor) const;
  [[nodiscard]] int64_t channels(const std::string& tensor) const { return shape(tensor).at(1); }

  // PyTorch modules in their exported form. `name` is the module path.
  // nn.Conv2d(C_in, c_out, k, stride, pad, groups, bias): weight "<name>.weight" (+ ".bias").
  std::string conv(const std::string& name, const std::string& x, int64_t c_out, int64_t kernel,
                   int64_t stride = 1, int64_t pad = 0, int64_t groups = 1, bool bias = false);
  // nn.BatchNorm2d: inputs weight, bias, running_mean, running_var.
  std::string batch_norm(const std::string& name, const std::string& x, double epsilon = 1e-5);
  std::string relu(const std::string& name, const std::string& x);
  std::string relu6(const std::string& name, const std::string& x);  // Clip(x, 0, 6), opset 11+
  std::string silu(const std::string& name, const std::string& x);   // x * Sigmoid(x)
  std::string max_pool(const std::string& name, const std::string& x, int64_t kernel,
                       int64_t stride, int64_t pad);
  std::string avg_pool(const std::string& name, const std::string& x, int64_t kernel,
                       int64_t stride, bool ceil_mode = false);
  std::string global_avg_pool(const std::string& name, const std::string& x);
  std::string flatten(const std::string& name, const std::string& x);
  std::string linear(const std::string& name, const std::string& x, int64_t out_features);
  std::string add_tensors(const std::string& name, const std::string& a, const std::string& b);
  std::string concat(const std::string& name, std::vector<std::string> xs, int64_t axis);
  // nn.Upsample(scale_factor, mode='nearest') -> Resize(x, roi = "", scales).
  std::string upsample_nearest(const std::string& name, const std::string& x, float scale);

  // Validates and returns the graph; the builder is spent.
  [[nodiscard]] graph::Graph finish() &&;

 private:
  std::string unique_node_name(const std::string& name);

  graph::Graph g_;
  std::set<std::string> node_names_;
};

// "prefix.name", or "name" when prefix is empty.
[[nodiscard]] std::string join(const std::string& prefix, const std::string& name);

}  // namespace hetcim::zoo
