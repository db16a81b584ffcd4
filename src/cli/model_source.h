// A model named on the command line (zoo name or ONNX path) and its --batch, loaded by
// api::load_model (api/model.h), where the rule zoo name vs. file lives.
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
