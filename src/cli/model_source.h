// A model named on the command line (zoo name or ONNX path), its --batch and its --input-shape
// flags, loaded by api::load_model (api/model.h), where the rule zoo name vs. file lives.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "api/model.h"
#include "graph/graph.h"
#include "util/error.h"

namespace hetcim::cli {

struct ModelSource {
  std::string spec;  // as the user typed it
  int64_t batch = 1;
  std::vector<std::string> input_shapes;  // NAME=1x3x224x224 (ONNX files only)
};

// The --input-shape flags by input name; UserError naming the flag for a malformed or repeated one.
[[nodiscard]] std::map<std::string, graph::Shape> input_shapes(const ModelSource& src);
[[nodiscard]] api::Model load_api_model(const ModelSource& src);
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
