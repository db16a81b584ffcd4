#include "cli/model_source.h"

#include "api/model.h"

namespace hetcim::cli {

graph::Graph load_model(const ModelSource& src) {
  return api::load_model(src.spec, src.batch).graph;
}

}  // namespace hetcim::cli
