// The graph IR: plain data. Nodes name their input and output tensors; tensors carry a dtype, a
// shape (when known) and, for initializers, optionally their values. No parsing, I/O or hardware
// knowledge lives here: importers build a Graph, passes map Graph -> Graph, analyses read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hetcim::graph {

enum class DType { Float32, Float64, Int8, UInt8, Int32, Int64, Bool };

[[nodiscard]] size_t dtype_size(DType t);
[[nodiscard]] std::string_view dtype_name(DType t);

using Shape = std::vector<int64_t>;  // dims >= 0; -1 marks a dimension not known statically

// -1 if any dim is unknown; UserError if the count overflows 64 bits (hostile shapes).
[[nodiscard]] int64_t element_count(const Shape& s);
[[nodiscard]] std::string shape_str(const Shape& s);  // "1x64x56x56"

struct TensorInfo {
  DType dtype = DType::Float32;
  std::optional<Shape> shape;  // nullopt: rank unknown
};

// A constant tensor (weights, biases, shape operands). `raw` holds little-endian values of
// `info.dtype`, or is empty when the graph describes an architecture without weights (zoo models
// are built that way; values are drawn from a seed only when something needs them).
struct Initializer {
  TensorInfo info;
  std::vector<uint8_t> raw;

  [[nodiscard]] bool has_values() const { return !raw.empty(); }
  [[nodiscard]] std::vector<float> floats() const;  // Float32/Float64 -> float
  [[nodiscard]] std::vector<int64_t> ints() const;  // any integer dtype -> int64
  static Initializer from_floats(const Shape& shape, const std::vector<float>& v);
  static Initializer from_ints(const Shape& shape, const std::vector<int64_t>& v);
  static Initializer shape_only(DType dtype, const Shape& shape);
};

using Attribute = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>>;

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;               // "" = ai.onnx
  std::vector<std::string> inputs;  // "" = optional input left out
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attrs;

  [[nodiscard]] bool has_attr(const std::string& key) const { return attrs.count(key) != 0; }
  [[nodiscard]] int64_t attr_int(const std::string& key, int64_t fallback) const;
  [[nodiscard]] double attr_float(const std::string& key, double fallback) const;
  [[nodiscard]] std::string attr_string(const std::string& key, const std::string& fallback) const;
  [[nodiscard]] std::vector<int64_t> attr_ints(const std::string& key,
                                               const std::vector<int64_t>& fallback) const;
};

struct Graph {
  std::string name;
  int64_t opset = 17;
  std::vector<std::string> inputs;  // graph inputs (not initializers)
  std::vector<std::string> outputs;
  std::vector<Node> nodes;                   // kept in a topological order by validate()/passes
  std::map<std::string, TensorInfo> values;  // every non-constant tensor with known info
  std::map<std::string, Initializer> initializers;  // constants by name

  [[nodiscard]] bool is_initializer(const std::string& t) const {
    return initializers.count(t) != 0;
  }
  // dtype/shape of a tensor (value or initializer); nullptr if unknown.
  [[nodiscard]] const TensorInfo* info(const std::string& t) const;
  // Shape of a tensor; throws UserError naming `who` when it is not known.
  [[nodiscard]] const Shape& shape_of(const std::string& t, std::string_view who) const;
  [[nodiscard]] int node_index(std::string_view node_name) const;  // -1 if absent
};

// Checks the structural invariants the rest of hetcim relies on and throws UserError naming the
// offending node or tensor: unique node names, every tensor produced once, every input produced by
// a node, a graph input or an initializer, no cycle, outputs produced. On success the nodes are put
// into a deterministic topological order (stable with respect to the given order).
void validate(Graph& g);

}  // namespace hetcim::graph
