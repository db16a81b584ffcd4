// Moved: seeded weights for architecture-only graphs are the weight-fill rule's,
// onnxio/weight_fill.h (onnxio::materialize_weights). This alias keeps exec callers compiling.
#pragma once

#include "onnxio/weight_fill.h"

namespace hetcim::exec {

using onnxio::materialize_weights;

}  // namespace hetcim::exec
