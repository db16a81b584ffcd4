// Where a model comes from: a zoo name ("resnet18") or an ONNX file path.
#pragma once

#include <string>

#include "graph/graph.h"

namespace hetcim::cli {

struct ModelSource {
  std::string spec;  // as the user typed it
  int64_t batch = 1;
};

[[nodiscard]] graph::Graph load_model(const ModelSource& src);

}  // namespace hetcim::cli
