// Where a model comes from: a zoo name ("resnet18") or an ONNX file path.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::cli {

struct ModelSource {
  std::string spec;  // as the user typed it
  int64_t batch = 1;
  std::vector<std::string> input_shapes;  // NAME=1x3x224x224 (ONNX files only)
};

[[nodiscard]] graph::Graph load_model(const ModelSource& src);

// Adds --input-shape NAME=DIMS (repeatable) to a subcommand.
void add_input_shape_option(CLI::App* cmd, ModelSource& src);

}  // namespace hetcim::cli
