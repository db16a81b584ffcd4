// Where a model comes from: a zoo name ("resnet18") or an ONNX file path, as the user typed it.
#pragma once

#include <cstdint>
#include <string>

#include "graph/graph.h"

namespace hetcim::api {

struct Model {
  std::string spec;    // as given: zoo name or path
  int64_t batch = 1;   // zoo models and symbolic batch dimensions
  graph::Graph graph;  // as imported or built, before lowering
};

// A path (contains '/', ends in .onnx, or names an existing file) is imported as ONNX, anything
// else is a zoo name. UserError for an unknown zoo name, a bad file or batch < 1.
[[nodiscard]] Model load_model(const std::string& spec, int64_t batch = 1);

}  // namespace hetcim::api
