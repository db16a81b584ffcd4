#include "cli/model_source.h"

#include <filesystem>

#include "onnxio/import.h"
#include "util/error.h"
#include "zoo/zoo.h"

namespace hetcim::cli {

graph::Graph load_model(const ModelSource& src) {
  const bool looks_like_file = src.spec.find('/') != std::string::npos ||
                               src.spec.ends_with(".onnx") || std::filesystem::exists(src.spec);
  if (looks_like_file) {
    onnxio::ImportOptions o;
    o.batch = src.batch;
    return onnxio::import_onnx(src.spec, o);
  }
  zoo::ModelOptions o;
  o.batch = src.batch;
  return zoo::build_model(src.spec, o);
}

}  // namespace hetcim::cli
