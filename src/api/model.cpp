#include "api/model.h"

#include <filesystem>

#include "onnxio/import.h"
#include "util/error.h"
#include "workload/workload.h"
#include "zoo/zoo.h"

namespace hetcim::api {

Model load_model(const std::string& spec, int64_t batch,
                 const std::map<std::string, graph::Shape>& input_shapes) {
  if (batch < 1) throw user_error("batch: expected a whole number >= 1, got ", batch);
  Model m{spec, batch, {}};
  const bool looks_like_file = spec.find('/') != std::string::npos || spec.ends_with(".onnx") ||
                               std::filesystem::exists(spec);
  if (looks_like_file) {
    onnxio::ImportOptions o;
    o.batch = batch;
    o.input_shapes = input_shapes;
    m.graph = onnxio::import_onnx(spec, o);
  } else {
    if (!input_shapes.empty())
      throw user_error("input shapes (--input-shape) apply to ONNX files; '", spec,
                       "' is a zoo model");
    zoo::ModelOptions o;
    o.batch = batch;
    m.graph = zoo::build_model(spec, o);
  }
  return m;
}

std::vector<ZooModel> list_models() {
  std::vector<ZooModel> out;
  for (const zoo::ModelInfo& m : zoo::list_models()) {
    const graph::Graph g = zoo::build_model(m.name, {});
    out.push_back({m.name, m.description, m.source, g.shape_of(g.inputs.at(0), m.name),
                   workload::count_params(g)});
  }
  return out;
}

}  // namespace hetcim::api
