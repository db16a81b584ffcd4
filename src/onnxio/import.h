// ONNX file -> graph::Graph.
//
// The importer is the boundary where untrusted files enter hetcim. In order it:
//   1. parses the ModelProto (a parse failure, an empty input or one over 2 GB is an error);
//   2. checks what hetcim itself relies on, before libonnx touches the model: an opset import for
//      the default domain in [11, 18], no model-local functions, no sparse initializers, no
//      subgraphs (If/Loop/Scan or any GRAPH attribute), TENSOR attributes only on Constant, dense
//      tensor types of a supported element type (float32/64, int8, uint8, int32, int64, bool),
//      dims >= 0, every embedded tensor self-contained with exactly as much data as its dims say
//      (no external data), unique node and initializer names, and every default-domain op known
//      to libonnx at the model's opset ("unsupported op 'Foo' at node 'x'");
//   3. runs onnx::checker::check_model and onnx::shape_inference::InferShapes (strict, with type
//      checks and data propagation), after fixing the batch dimension (below);
//   4. converts: graph inputs (initializers also listed as inputs, as older exporters do, are not
//      inputs), outputs, nodes (an unnamed node i becomes "<op_type>_<i>"; the domain "ai.onnx"
//      becomes ""), attributes (int, float, string and their lists), Constant nodes ->
//      initializers, initializers from raw_data or the typed fields, dtypes/shapes of inputs,
//      outputs and every value_info, then checks Conv/ConvTranspose/Gemm weight shapes against
//      their inputs and calls graph::validate.
//
// Batch: a graph input whose leading dimension is symbolic or missing gets `options.batch` there,
// and every dimension anywhere that carries the same symbol (e.g. "batch_size") gets it too. Other
// unknown dimensions stay -1.
//
// Opset 18: libonnx 1.12 knows schemas up to opset 17, so an opset-18 model is validated against
// the newest schema <= 18 of each op; ops whose signature changed in 18 (Reduce*, Split, Pad,
// Resize...) are then rejected by the checker with its message.
//
// Every failure is a hetcim::UserError whose message starts with "<path or origin>: " and names the
// node, tensor or field concerned.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace hetcim::onnxio {

struct ImportOptions {
  // Substituted for symbolic or missing leading dims of graph inputs (and their symbol). >= 1.
  int64_t batch = 1;
  // Whole shapes of named graph inputs (the CLI's --input-shape NAME=1x3x224x224), applied before
  // ONNX shape inference; they take precedence over `batch` for those inputs. A name the model
  // does not have as an input, a rank or a known dimension that disagrees with the model's
  // declaration is a UserError.
  std::map<std::string, graph::Shape> input_shapes;
};

inline constexpr int64_t kMinOpset = 11;
inline constexpr int64_t kMaxOpset = 18;

[[nodiscard]] graph::Graph import_onnx(const std::string& path, const ImportOptions& options = {});

// Same, from the bytes of a model; `origin` names it in error messages.
[[nodiscard]] graph::Graph import_onnx_bytes(std::string_view bytes, std::string_view origin,
                                             const ImportOptions& options = {});

}  // namespace hetcim::onnxio
