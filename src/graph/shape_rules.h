// Internal to hetcim_graph: what the shape rules of shape_inference.cpp share. One file of rules
// per operator family (shape_rules_elementwise.cpp, shape_rules_nn.cpp, shape_rules_tensor.cpp),
// the values of small constant tensors (`ConstValue`) and their evaluator
// (constant_evaluation.cpp). Not installed; nothing outside src/graph includes it.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/constant_values.h"
#include "graph/graph.h"
#include "util/error.h"

namespace hetcim::graph::shape_rules {

// Values of a small constant tensor: integers exactly, floating point as double.
struct ConstValue {
  bool is_int = true;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};
using KnownValues = std::map<std::string, ConstValue>;

// Values are tracked through shape arithmetic only for tensors this small.
constexpr int64_t kMaxTrackedElements = 4096;  // = kShapeArithmeticElements
// Largest dimension and window attribute accepted. Keeps every product of two such numbers (and
// sums of a few) inside int64_t, so hostile graphs get a message instead of an overflow.
constexpr int64_t kMaxDim = int64_t{1} << 31;

// Element count: -1 if a dim is unknown, INT64_MAX if the product overflows.
inline int64_t count_elements(const Shape& s) {
  int64_t n = 1;
  bool unknown = false;
  for (int64_t d : s) {
    if (d < 0) {
      unknown = true;
    } else if (__builtin_mul_overflow(n, d, &n)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return unknown && n != 0 ? -1 : n;
}

inline int64_t ceil_div(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

inline std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// Everything an op's inference needs: the node, its input infos, and constant operand values.
class Ctx {
 public:
  Ctx(const Graph& g, const Node& n, const KnownValues* known) : g_(g), n_(n), known_(known) {}

  [[nodiscard]] const Node& node() const { return n_; }
  [[nodiscard]] int64_t opset() const { return g_.opset; }

  template <typename... Args>
  [[noreturn]] void fail(const Args&... args) const {
    throw user_error("node '", n_.name, "' (", n_.op_type, "): ", args...);
  }

  [[nodiscard]] bool has(size_t i) const { return i < n_.inputs.size() && !n_.inputs[i].empty(); }

  void arity(size_t min_in, size_t max_in, size_t min_out, size_t max_out) const {
    if (n_.inputs.size() < min_in || n_.inputs.size() > max_in) {
      fail("expected ", min_in == max_in ? "" : "between ", min_in,
           min_in == max_in ? "" : " and " + std::to_string(max_in), " inputs, got ",
           n_.inputs.size());
    }
    for (size_t i = 0; i < min_in; ++i) {
      if (n_.inputs[i].empty()) fail("input ", i, " is required");
    }
    if (n_.outputs.size() < min_out || n_.outputs.size() > max_out) {
      fail("expected ", min_out == max_out ? "" : "between ", min_out,
           min_out == max_out ? "" : " and " + std::to_string(max_out), " outputs, got ",
           n_.outputs.size());
    }
  }

  [[nodiscard]] const TensorInfo& info(size_t i) const {
    if (!has(i)) fail("input ", i, " is required");
    const TensorInfo* ti = g_.info(n_.inputs[i]);
    if (!ti || !ti->shape) fail("shape of input tensor '", n_.inputs[i], "' is not known");
    for (int64_t d : *ti->shape) {
      if (d > kMaxDim) {
        fail("input tensor '", n_.inputs[i], "' has shape ", shape_str(*ti->shape),
             "; dimensions above 2^31 are not supported");
      }
    }
    return *ti;
  }
  [[nodiscard]] const Shape& shape(size_t i) const { return *info(i).shape; }
  [[nodiscard]] DType dtype(size_t i) const { return info(i).dtype; }
  [[nodiscard]] int64_t rank(size_t i) const { return static_cast<int64_t>(shape(i).size()); }

  // Values of input i when it is a constant (an initializer with values, or a tracked value).
  [[nodiscard]] const ConstValue* value(size_t i) const {
    if (!has(i)) return nullptr;
    const std::string& t = n_.inputs[i];
    if (known_) {
      if (auto it = known_->find(t); it != known_->end()) return &it->second;
    }
    auto it = g_.initializers.find(t);
    if (it == g_.initializers.end()) return nullptr;
    // An initializer without data is shape-only, unless it has no elements (an empty tensor).
    const bool empty = it->second.info.shape && count_elements(*it->second.info.shape) == 0;
    if (!it->second.has_values() && !empty) return nullptr;
    auto [slot, inserted] = cache_.try_emplace(t);
    if (inserted) {
      const Initializer& init = it->second;
      slot->second.is_int = is_integer(init.info.dtype) || init.info.dtype == DType::Bool;
      if (slot->second.is_int) {
        slot->second.ints = init.ints();
      } else {
        for (float f : init.floats()) slot->second.floats.push_back(f);
      }
    }
    return &slot->second;
  }

  [[nodiscard]] std::vector<int64_t> const_ints(size_t i, std::string_view what) const {
    const ConstValue* v = value(i);
    if (!v) fail(what, " (input ", i, " '", n_.inputs[i], "') must be a constant");
    if (!v->is_int) fail(what, " (input ", i, " '", n_.inputs[i], "') must be an integer tensor");
    return v->ints;
  }

  [[nodiscard]] std::vector<double> const_floats(size_t i, std::string_view what) const {
    const ConstValue* v = value(i);
    if (!v) fail(what, " (input ", i, " '", n_.inputs[i], "') must be a constant");
    if (v->is_int) {
      return std::vector<double>(v->ints.begin(), v->ints.end());
    }
    return v->floats;
  }

  [[nodiscard]] int64_t axis(int64_t a, int64_t rank, std::string_view what = "axis") const {
    if (a < -rank || a >= rank) fail(what, " ", a, " is out of range for rank ", rank);
    return a < 0 ? a + rank : a;
  }

 private:
  const Graph& g_;
  const Node& n_;
  const KnownValues* known_;
  mutable std::map<std::string, ConstValue> cache_;
};

using Infos = std::vector<TensorInfo>;

inline Infos same_as_input(const Ctx& c) {
  return {c.info(0)};
}

// Numpy broadcasting of two shapes; an unknown dimension (-1) takes the other's.
[[nodiscard]] Shape broadcast(const Ctx& c, const Shape& a, const Shape& b);

// Rules, by family. Each checks the node's arity and operands and returns its output infos.
// shape_rules_elementwise.cpp
Infos binary_elementwise(const Ctx& c);
Infos unary(const Ctx& c);
Infos clip(const Ctx& c);
Infos dropout(const Ctx& c);
Infos softmax(const Ctx& c);
Infos cast(const Ctx& c);
Infos constant_of_shape(const Ctx& c);
Infos quantize_linear(const Ctx& c);
Infos dequantize_linear(const Ctx& c);
Infos comparison(const Ctx& c);
Infos logical_not(const Ctx& c);
Infos where(const Ctx& c);
// shape_rules_nn.cpp
Infos conv(const Ctx& c);
Infos conv_transpose(const Ctx& c);
Infos pool(const Ctx& c);
Infos global_pool(const Ctx& c);
Infos batch_norm(const Ctx& c);
Infos layer_norm(const Ctx& c);
Infos reduce(const Ctx& c);
Infos pad(const Ctx& c);
Infos gemm(const Ctx& c);
Infos matmul(const Ctx& c);
// shape_rules_tensor.cpp
Infos flatten(const Ctx& c);
Infos reshape(const Ctx& c);
Infos transpose(const Ctx& c);
Infos concat(const Ctx& c);
Infos split(const Ctx& c);
Infos slice(const Ctx& c);
Infos resize(const Ctx& c);
Infos upsample(const Ctx& c);
Infos squeeze(const Ctx& c);
Infos unsqueeze(const Ctx& c);
Infos shape_op(const Ctx& c);
Infos gather(const Ctx& c);
Infos expand(const Ctx& c);
Infos tile(const Ctx& c);
Infos range(const Ctx& c);
Infos scatter_nd(const Ctx& c);
Infos size_op(const Ctx& c);

// constant_evaluation.cpp: the value of n's single output (`outs`, already inferred) when it is
// computed from constants and static shapes only (Ctx::value) and has at most `max_elements`
// elements; nullopt otherwise.
[[nodiscard]] std::optional<ConstValue> evaluate(const Ctx& c, const Infos& outs,
                                                 int64_t max_elements);

}  // namespace hetcim::graph::shape_rules
