// The operator-family registry: one row per ONNX operator (default domain) the execution engine
// runs, naming its family and, for the families that live here in src/ops, the kernel compiler.
// The engine's dispatch reads this table: a row with a `compile` runs that portable kernel unless
// the engine has a native (oneDNN) kernel of the family that takes the node; a row without one is
// a family whose kernels still sit in the engine (conv, gemm, matmul, pool, concat, quantized ops,
// data movement that aliases buffers). Adding an operator: one family file here and one row.
#pragma once

#include <string_view>
#include <vector>

#include "ops/kernel.h"

namespace hetcim::ops {

struct Family {
  std::string_view op;        // ONNX op_type
  std::string_view family;    // the family's name ("binary", "softmax", ...): one engine entry each
  Compile compile = nullptr;  // the portable kernel of this file's family; nullptr: engine-native
  // Inputs the kernel reads at run time (activations or constants); every other present input
  // must be a constant, captured at compile time. An empty list means "input 0 only".
  std::vector<size_t> activations = {};
};

// The family row of `op_type` of the default ONNX domain, or nullptr.
[[nodiscard]] const Family* find(std::string_view op_type);

// Every operator of the table, in table order (for `inspect`'s list of what `run` executes).
[[nodiscard]] std::vector<std::string_view> operators();

}  // namespace hetcim::ops
