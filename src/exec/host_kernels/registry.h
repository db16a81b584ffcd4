// Operators the oneDNN engine executes with plain C++ kernels on row-major float32 tensors, found
// through one table (registry.cpp) rather than the engine's dispatch ladder: each family lives in
// its own file (reduce.cpp, normalization.cpp, pad.cpp, unary_math.cpp, gather.cpp) and is
// compiled once per node from the node, its input shapes and its constant operands. New operators
// of the engine go here. The reference interpreter implements the same operators with its own
// arithmetic (it is the oracle these kernels are tested against).
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "exec/tensor.h"
#include "graph/graph.h"

namespace hetcim::exec::host {

// What a kernel is compiled from. Per input (same positions as node.inputs): its shape (empty for
// an absent optional input) and, when it is a constant, its value (nullptr for activations).
struct KernelInput {
  const graph::Node& node;
  int64_t opset = 17;
  std::vector<graph::Shape> shapes;
  std::vector<const Tensor*> constants;
  std::vector<graph::Shape> out_shapes;  // per output, as shape inference gave them
};

// A compiled kernel: `in` holds one row-major float32 pointer per input (nullptr for constants
// and absent inputs: the kernel captured what it needs at compile time), `out` one per output.
using Run =
    std::function<void(const std::vector<const float*>& in, const std::vector<float*>& out)>;
using Compile = Run (*)(const KernelInput&);

struct Family {
  std::string_view op;
  Compile compile;
  // Inputs the kernel reads at run time (activations); every other present input must be a
  // constant. An empty list means "input 0 only".
  std::vector<size_t> activations;
};

// The family executing `op_type` of the default ONNX domain, or nullptr.
[[nodiscard]] const Family* find(std::string_view op_type);

// Every operator of the table, in table order (for `inspect`'s list of what `run` executes).
[[nodiscard]] std::vector<std::string_view> operators();

}  // namespace hetcim::exec::host
