// graph::Graph -> ONNX file.
//
// The model gets the IR version that ONNX pairs with the graph's opset (11 -> 6, 12-14 -> 7,
// 15-18 -> 8), an opset_import for the default domain (graph.opset) and for every other domain
// a node uses (ExportOptions::domain_versions, or version 1), the graph inputs/outputs with their
// types, a value_info for every other tensor whose dtype is known, the nodes in graph order with
// their attributes (a double becomes an ONNX FLOAT), and the initializers as raw_data, sorted by
// name. An initializer without values gets them from weight_fill.h's seeded rule. A graph without
// a name is exported as "graph" (ONNX requires one).
//
// Before anything is returned or written, the model must pass onnx::checker::check_model and
// strict shape inference with type checks (the equivalent of check_model(full_check=True));
// a failure is a UserError quoting libonnx. Serialization is deterministic: the same graph and
// seed give the same bytes. export_onnx writes a temporary file next to `path` and renames it,
// so a failure leaves no partial output.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "graph/graph.h"

namespace hetcim::onnxio {

struct ExportOptions {
  uint64_t seed = 0;  // for initializers without values
  // Opset version for each non-default domain the graph's nodes use ("com.microsoft" -> 1);
  // a domain not listed gets version 1.
  std::map<std::string, int64_t> domain_versions;
};

// The ONNX IR version released with `opset` (UserError outside [kMinOpset, kMaxOpset]).
[[nodiscard]] int64_t ir_version_for_opset(int64_t opset);

[[nodiscard]] std::string export_onnx_bytes(const graph::Graph& g,
                                            const ExportOptions& options = {});

void export_onnx(const graph::Graph& g, const std::string& path, const ExportOptions& options = {});

}  // namespace hetcim::onnxio
