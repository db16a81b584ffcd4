#include "cli/model_source.h"

#include "api/model.h"
#include "util/error.h"
#include "util/numbers.h"

namespace hetcim::cli {

namespace {

// NAME=D0xD1x... with every dimension a whole number >= 1.
std::pair<std::string, graph::Shape> parse_input_shape(const std::string& spec) {
  const size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw user_error("--input-shape '", spec, "': expected NAME=DIMS such as input=1x3x224x224");
  graph::Shape shape;
  const std::string dims = spec.substr(eq + 1);
  size_t start = 0;
  while (true) {
    const size_t x = dims.find('x', start);
    const std::string_view part = std::string_view(dims).substr(
        start, x == std::string::npos ? std::string::npos : x - start);
    const std::optional<int64_t> d = parse_integer(part);
    if (!d || *d < 1)
      throw user_error("--input-shape '", spec, "': dimension '", part,
                       "' is not a whole number >= 1");
    shape.push_back(*d);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return {spec.substr(0, eq), shape};
}

}  // namespace

void add_input_shape_option(CLI::App* cmd, ModelSource& src) {
  cmd->add_option("--input-shape", src.input_shapes,
                  "Shape of a model input, NAME=1x3x224x224 (repeatable; for inputs whose "
                  "dimensions the ONNX file leaves open)");
}

std::map<std::string, graph::Shape> input_shapes(const ModelSource& src) {
  std::map<std::string, graph::Shape> out;
  for (const std::string& spec : src.input_shapes) {
    auto [name, shape] = parse_input_shape(spec);
    if (!out.emplace(name, shape).second)
      throw user_error("--input-shape: input '", name, "' given twice");
  }
  return out;
}

api::Model load_api_model(const ModelSource& src) {
  return api::load_model(src.spec, src.batch, input_shapes(src));
}

graph::Graph load_model(const ModelSource& src) {
  return load_api_model(src).graph;
}

}  // namespace hetcim::cli
