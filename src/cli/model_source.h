// Where a model comes from: a zoo name ("resnet18") or an ONNX file path.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "util/error.h"

namespace hetcim::cli {

struct ModelSource {
  std::string spec;  // as the user typed it
  int64_t batch = 1;
  std::vector<std::string> input_shapes;  // NAME=1x3x224x224 (ONNX files only)
};

[[nodiscard]] graph::Graph load_model(const ModelSource& src);

// Adds --input-shape NAME=DIMS (repeatable) to a subcommand.
void add_input_shape_option(CLI::App* cmd, ModelSource& src);

// Runs f (preparing or compiling the model); a UserError from it that does not name the model
// yet (e.g. "node 'frob' (Frobnicate): unsupported operator") gets "<model>: " in front.
template <typename F>
auto with_model_named(const ModelSource& src, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const UserError& e) {
    if (std::string(e.what()).find(src.spec) != std::string::npos) throw;
    throw UserError(src.spec + ": " + e.what());
  }
}

}  // namespace hetcim::cli
