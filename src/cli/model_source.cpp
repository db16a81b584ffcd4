#include "cli/model_source.h"

#include <filesystem>

#include "onnxio/import.h"
#include "util/error.h"
#include "util/numbers.h"
#include "zoo/zoo.h"

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

graph::Graph load_model(const ModelSource& src) {
  const bool looks_like_file = src.spec.find('/') != std::string::npos ||
                               src.spec.ends_with(".onnx") || std::filesystem::exists(src.spec);
  if (looks_like_file) {
    onnxio::ImportOptions o;
    o.batch = src.batch;
    for (const std::string& spec : src.input_shapes) {
      auto [name, shape] = parse_input_shape(spec);
      if (!o.input_shapes.emplace(name, shape).second)
        throw user_error("--input-shape: input '", name, "' given twice");
    }
    return onnxio::import_onnx(src.spec, o);
  }
  if (!src.input_shapes.empty())
    throw user_error("--input-shape applies to ONNX files; '", src.spec, "' is a zoo model");
  zoo::ModelOptions o;
  o.batch = src.batch;
  return zoo::build_model(src.spec, o);
}

}  // namespace hetcim::cli
