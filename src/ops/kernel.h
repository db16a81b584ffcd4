// What an operator family's engine kernel is compiled from and what it runs on: the small context
// the execution engine (exec/engine.cpp) gives a family. The engine owns memory planning, layouts,
// fusion and threads; a family owns its operator's semantics. A kernel reads and writes row-major
// float32 buffers (the engine converts a blocked or channels-last input first).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "graph/graph.h"

namespace hetcim::ops {

// A constant operand's values (the engine converts its initializer): every element as double,
// exact for float32 and for integers below 2^53.
struct Constant {
  graph::Shape shape;
  std::vector<double> values;
  [[nodiscard]] int64_t numel() const { return static_cast<int64_t>(values.size()); }
  [[nodiscard]] double at(int64_t i) const { return values.at(static_cast<size_t>(i)); }
  [[nodiscard]] std::vector<float> floats() const {
    return std::vector<float>(values.begin(), values.end());
  }
};

// Per input (same positions as node.inputs): its shape (empty for an absent optional input) and,
// when it is a constant, its value (nullptr for activations).
struct KernelInput {
  const graph::Node& node;
  int64_t opset = 17;
  std::vector<graph::Shape> shapes;
  std::vector<const Constant*> constants;
  std::vector<graph::Shape> out_shapes;  // per output, as shape inference gave them
};

// A compiled kernel: `in` holds one float32 pointer per input (nullptr for absent inputs and for
// constants the family does not read at run time), `out` one per output.
using Run =
    std::function<void(const std::vector<const float*>& in, const std::vector<float*>& out)>;
using Compile = Run (*)(const KernelInput&);

}  // namespace hetcim::ops
