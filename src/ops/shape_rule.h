// What the shape rules and constant evaluators of the operator families share (internal to
// hetcim_ops; the driver is shape_inference.cpp): the context a rule reads its node, input infos
// and constant operands from (`Ctx`), the values of small constant tensors (`ConstValue`) and the
// helpers several families use (broadcasting, sliding windows, index maps). Each family's rule and
// evaluator sit in its own file (src/ops/<family>.cpp) and its registry rows name them.
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

namespace hetcim::ops::shape_rules {

using graph::Attribute;
using graph::DType;
using graph::dtype_from_onnx_code;
using graph::dtype_name;
using graph::element_count;
using graph::Graph;
using graph::Initializer;
using graph::is_integer;
using graph::Node;
using graph::Shape;
using graph::shape_str;
using graph::TensorInfo;

// Values of a small constant tensor: integers exactly, floating point as double.
struct ConstValue {
  bool is_int = true;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};
using KnownValues = std::map<std::string, ConstValue>;

// Values are tracked through shape arithmetic only for tensors this small.
constexpr int64_t kMaxTrackedElements = 4096;  // = ops::kShapeArithmeticElements
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

// The rule of a one-input operator whose output is its input's shape and dtype (Relu, Erf, ...).
Infos unary(const Ctx& c);

// ---- sliding windows (convolution and pooling)
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: all begins, then all ends
  std::string auto_pad;
  bool ceil_mode = false;
};
// A per-spatial-axis attribute with n values (default `fallback`), each positive or >= 0.
std::vector<int64_t> spatial_attr(const Ctx& c, const std::string& key, size_t n, int64_t fallback,
                                  bool positive);
Window read_window(const Ctx& c, size_t spatial, std::vector<int64_t> kernel);
// Output length of spatial axis i of a sliding window over an input of length `in`.
int64_t window_out(const Ctx& c, const Window& w, size_t i, int64_t in);

// ---- constant evaluation: what the evaluators (`Fold`, ops/registry.h) share
using Value = std::optional<ConstValue>;
using Index = std::vector<size_t>;

// Row-major strides of `s` (all dims known).
std::vector<int64_t> strides_of(const Shape& s);
// For every element of `out` (row-major), the index of the element of `in` that numpy
// broadcasting reads there. `in` must broadcast to `out`.
Index broadcast_index(const Shape& out, const Shape& in);
// The operands of a binary operator of two constants (inputs 0 and 1, no third) and, per element
// of the output `out` (row-major), the element of each that numpy broadcasting reads: what the
// evaluators of arithmetic and comparisons start from. nullopt when either is not a constant.
struct ConstOperands {
  const ConstValue& a;
  const ConstValue& b;
  Index ia, ib;
};
std::optional<ConstOperands> const_operands(const Ctx& c, const TensorInfo& out);
// The value at flat index i as a double.
double as_double(const ConstValue& v, size_t i);
// An empty value of `out`'s dtype: integers (and bool) as ints, floating point as doubles.
ConstValue empty_like(const TensorInfo& out);
// out[e] = in[index[e]] for a value of the same kind.
ConstValue gather_flat(const ConstValue& in, const Index& index);
size_t size_of(const ConstValue& v);
// v converted to dtype `to` as ONNX Cast converts (bool: nonzero; float to int: truncated).
ConstValue cast_value(const ConstValue& v, DType to);

}  // namespace hetcim::ops::shape_rules
