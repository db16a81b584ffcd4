// Where a model comes from: a zoo name ("resnet18") or an ONNX file path, as the user typed it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::api {

struct Model {
  std::string spec;    // as given: zoo name or path
  int64_t batch = 1;   // zoo models and symbolic batch dimensions
  graph::Graph graph;  // as imported or built, before lowering
};

// A path (contains '/', ends in .onnx, or names an existing file) is imported as ONNX, anything
// else is a zoo name. `input_shapes` fixes the shapes of ONNX inputs whose dimensions the file
// leaves open (onnxio::ImportOptions::input_shapes; the CLI's --input-shape NAME=DIMS). UserError
// for an unknown zoo name, a bad file, batch < 1, or input shapes given for a zoo model.
[[nodiscard]] Model load_model(const std::string& spec, int64_t batch = 1,
                               const std::map<std::string, graph::Shape>& input_shapes = {});

// One model of the built-in zoo, as `hetcim models` and Python's hetcim.list_models() show it.
struct ZooModel {
  std::string name;         // what load_model accepts ("resnet18")
  std::string description;  // one line
  std::string source;       // where the architecture is defined
  graph::Shape input;       // the first input's shape at batch 1, as built
  int64_t parameters = 0;   // weights and biases the built graph holds (workload::count_params)
};

// The zoo in its fixed order, each model built once to count its parameters.
[[nodiscard]] std::vector<ZooModel> list_models();

}  // namespace hetcim::api
