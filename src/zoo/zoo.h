// The built-in model zoo: architecture-only graphs (shape-only weights) written from the
// models' definitions, in the form torch.onnx.export gives the fp32 eval-mode model, every
// tensor shape known. The registry is a plain function over a constant table: no global state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "zoo/bottleneck.h"

namespace hetcim::zoo {

struct ModelInfo {
  std::string name;         // what build_model accepts, e.g. "resnet18"
  std::string description;  // one line
  graph::Shape input;       // input shape at batch 1 (default options)
  std::string source;       // where the architecture is defined
};

struct ModelOptions {
  int64_t batch = 1;                // >= 1
  BottleneckShape bottleneck = {};  // used by "bottleneck" only
};

// The zoo, in a fixed order: resnet18, resnet50, mobilenetv2, yolov5n, bottleneck, race_cnn,
// race_cnn_mnist.
[[nodiscard]] std::vector<ModelInfo> list_models();

// Builds the named model; an unknown name is a UserError listing the known names.
[[nodiscard]] graph::Graph build_model(std::string_view name, const ModelOptions& options = {});

}  // namespace hetcim::zoo
