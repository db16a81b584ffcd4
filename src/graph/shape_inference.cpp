#include "graph/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "graph/constant_values.h"
#include "graph/shape_rules.h"
#include "util/error.h"

namespace hetcim::graph {
namespace {

using namespace shape_rules;

// ---------------------------------------------------------------------------------------------

using InferFn = Infos (*)(const Ctx&);
struct OpEntry {
  std::string_view op;
  InferFn fn;
};

constexpr OpEntry kOps[] = {
    {"Abs", unary},
    {"Add", binary_elementwise},
    {"And", comparison},
    {"AveragePool", pool},
    {"BatchNormalization", batch_norm},
    {"Cast", cast},
    {"Clip", clip},
    {"Concat", concat},
    {"ConstantOfShape", constant_of_shape},
    {"Conv", conv},
    {"ConvTranspose", conv_transpose},
    {"DequantizeLinear", dequantize_linear},
    {"Div", binary_elementwise},
    {"Dropout", dropout},
    {"Equal", comparison},
    {"Erf", unary},
    {"Expand", expand},
    {"Flatten", flatten},
    {"Gather", gather},
    {"Gemm", gemm},
    {"Greater", comparison},
    {"GreaterOrEqual", comparison},
    {"GlobalAveragePool", global_pool},
    {"GlobalMaxPool", global_pool},
    {"HardSigmoid", unary},
    {"HardSwish", unary},
    {"Identity", unary},
    {"LayerNormalization", layer_norm},
    {"LeakyRelu", unary},
    {"Less", comparison},
    {"LessOrEqual", comparison},
    {"MatMul", matmul},
    {"MaxPool", pool},
    {"Mod", binary_elementwise},
    {"Mul", binary_elementwise},
    {"Neg", unary},
    {"Not", logical_not},
    {"Or", comparison},
    {"Pad", pad},
    {"Pow", binary_elementwise},
    {"QuantizeLinear", quantize_linear},
    {"Range", range},
    {"ReduceMean", reduce},
    {"ReduceProd", reduce},
    {"Relu", unary},
    {"Reshape", reshape},
    {"Resize", resize},
    {"ScatterND", scatter_nd},
    {"Shape", shape_op},
    {"Sigmoid", unary},
    {"Size", size_op},
    {"Sqrt", unary},
    {"Slice", slice},
    {"Softmax", softmax},
    {"Split", split},
    {"Squeeze", squeeze},
    {"Sub", binary_elementwise},
    {"Tanh", unary},
    {"Tile", tile},
    {"Transpose", transpose},
    {"Unsqueeze", unsqueeze},
    {"Upsample", upsample},
    {"Where", where},
    {"Xor", comparison},
};

Infos infer(const Graph& g, const Node& n, const KnownValues* known) {
  const bool onnx_domain = n.domain.empty() || n.domain == "ai.onnx";
  if (onnx_domain) {
    for (const OpEntry& e : kOps) {
      if (e.op == n.op_type) {
        Infos out = e.fn(Ctx(g, n, known));
        HETCIM_ASSERT(out.size() == n.outputs.size(), "op ", n.op_type, " inferred ", out.size(),
                      " outputs for ", n.outputs.size());
        return out;
      }
    }
  }
  throw user_error("unsupported op '", onnx_domain ? "" : n.domain + ".", n.op_type, "' at node '",
                   n.name, "'");
}

// Merges an inferred info with one the graph already declares for the same tensor.
TensorInfo merge_declared(const Node& n, const std::string& tensor, const TensorInfo& inferred,
                          const TensorInfo& declared) {
  if (!declared.shape || !inferred.shape) return inferred.shape ? inferred : declared;
  const Shape& a = *inferred.shape;
  const Shape& b = *declared.shape;
  auto mismatch = [&] {
    return user_error("node '", n.name, "' (", n.op_type, "): inferred shape ", shape_str(a),
                      " for tensor '", tensor, "' but the graph declares ", shape_str(b));
  };
  if (a.size() != b.size()) throw mismatch();
  TensorInfo out = inferred;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) throw mismatch();
    if (a[i] < 0) (*out.shape)[i] = b[i];
  }
  return out;
}

}  // namespace

std::vector<TensorInfo> infer_outputs(const Graph& g, const Node& n) {
  return infer(g, n, nullptr);
}

std::optional<Initializer> fold_shape_arithmetic(const Graph& g, const Node& n,
                                                 int64_t max_elements) {
  static const std::set<std::string_view> kFoldable = {"Abs",
                                                       "Add",
                                                       "And",
                                                       "Cast",
                                                       "Concat",
                                                       "ConstantOfShape",
                                                       "Div",
                                                       "Equal",
                                                       "Expand",
                                                       "Flatten",
                                                       "Gather",
                                                       "Greater",
                                                       "GreaterOrEqual",
                                                       "Identity",
                                                       "Less",
                                                       "LessOrEqual",
                                                       "Mod",
                                                       "Mul",
                                                       "Neg",
                                                       "Not",
                                                       "Or",
                                                       "Range",
                                                       "ReduceProd",
                                                       "Reshape",
                                                       "ScatterND",
                                                       "Shape",
                                                       "Size",
                                                       "Slice",
                                                       "Squeeze",
                                                       "Sub",
                                                       "Tile",
                                                       "Transpose",
                                                       "Unsqueeze",
                                                       "Where",
                                                       "Xor"};
  if (!(n.domain.empty() || n.domain == "ai.onnx") || n.outputs.size() != 1 ||
      !kFoldable.count(n.op_type)) {
    return std::nullopt;
  }
  // Only constants (initializers) and static shapes: nothing is tracked.
  const KnownValues known;
  Infos outs;
  try {
    outs = infer(g, n, &known);
  } catch (const UserError&) {
    return std::nullopt;  // an operand whose shape or value is not known: nothing to fold
  }
  // Float64 values would pass through float32 (Initializer::floats); leave them to the engine.
  if (outs.size() != 1 || outs[0].dtype == DType::Float64) return std::nullopt;
  const std::optional<ConstValue> v = evaluate(Ctx(g, n, &known), outs, max_elements);
  if (!v) return std::nullopt;
  if (!v->is_int) {
    std::vector<float> f(v->floats.begin(), v->floats.end());
    return Initializer::from_floats(*outs[0].shape, f);
  }
  Initializer r = Initializer::from_ints(*outs[0].shape, v->ints);
  if (outs[0].dtype != DType::Int64) r = cast_to(r, outs[0].dtype);
  return r;
}

Shape infer_output_shape(const Graph& g, const Node& n) {
  Infos out = infer(g, n, nullptr);
  if (out.empty() || !out[0].shape) {
    throw user_error("node '", n.name, "' (", n.op_type, "): output shape is not known");
  }
  return *out[0].shape;
}

void infer_shapes(Graph& g) {
  validate(g);
  for (const std::string& in : g.inputs) {
    auto it = g.values.find(in);
    if (it == g.values.end() || !it->second.shape) {
      throw user_error("graph input '", in, "' has no shape");
    }
  }
  KnownValues known;
  for (const Node& n : g.nodes) {
    const Infos outs = infer(g, n, &known);
    if (auto v = evaluate(Ctx(g, n, &known), outs, kMaxTrackedElements))
      known.emplace(n.outputs[0], std::move(*v));
    for (size_t i = 0; i < outs.size(); ++i) {
      const std::string& t = n.outputs[i];
      if (t.empty()) continue;
      auto it = g.values.find(t);
      if (it == g.values.end()) {
        g.values.emplace(t, outs[i]);
      } else {
        it->second = merge_declared(n, t, outs[i], it->second);
      }
    }
  }
}

}  // namespace hetcim::graph
