#include "onnxio/inference_guard.h"

#include <functional>
#include <map>
#include <vector>

#include "onnx/defs/shape_inference.h"
#include "onnx/shape_inference/implementation.h"
#include "util/error.h"

namespace hetcim::onnxio {

namespace {

using onnx::AttributeProto;
using onnx::DataPropagationContext;
using onnx::InferenceContext;

// Rank of input i when known, else -1.
int input_rank(const InferenceContext& ctx, size_t i) {
  if (i >= ctx.getNumInputs()) return -1;
  const onnx::TypeProto* t = ctx.getInputType(i);
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return -1;
  return t->tensor_type().shape().dim_size();
}

// Checks an INTS attribute's length and lower bound; a missing attribute passes.
void check_ints(const InferenceContext& ctx, const char* name, int expected_size, int64_t min) {
  const AttributeProto* a = ctx.getAttribute(name);
  if (!a) return;
  if (a->type() != AttributeProto::INTS)
    fail_shape_inference("attribute '", name, "' must be a list of ints");
  if (expected_size >= 0 && a->ints_size() != expected_size) {
    fail_shape_inference("attribute '", name, "' has ", a->ints_size(), " values, expected ",
                         expected_size);
  }
  for (int64_t v : a->ints()) {
    if (v < min)
      fail_shape_inference("attribute '", name, "' has value ", v, ", expected >= ", min);
  }
}

// Conv-like and pooling operators: X at input 0, the weight (if any) at `w_index`.
void guard_conv_pool(const InferenceContext& ctx, int w_index) {
  const int rx = input_rank(ctx, 0);
  const int rw = w_index >= 0 ? input_rank(ctx, static_cast<size_t>(w_index)) : -1;
  if (rx >= 0 && rx < 3)
    fail_shape_inference("input has rank ", rx, ", expected at least 3 (N, C, spatial...)");
  if (rw >= 0 && rw < 3) fail_shape_inference("weight has rank ", rw, ", expected at least 3");
  if (rx >= 0 && rw >= 0 && rx != rw) {
    fail_shape_inference("input has rank ", rx, " but weight has rank ", rw,
                         " (they must be equal)");
  }
  const int rank = rx >= 0 ? rx : rw;
  const int spatial = rank >= 0 ? rank - 2 : -1;
  check_ints(ctx, "kernel_shape", spatial, 1);
  check_ints(ctx, "strides", spatial, 1);
  check_ints(ctx, "dilations", spatial, 1);
  check_ints(ctx, "pads", spatial >= 0 ? 2 * spatial : -1, 0);
  check_ints(ctx, "output_padding", spatial, 0);
  check_ints(ctx, "output_shape", spatial, 0);
  if (const AttributeProto* g = ctx.getAttribute("group")) {
    if (g->type() != AttributeProto::INT || g->i() < 1)
      fail_shape_inference("attribute 'group' must be an int >= 1");
  }
}

// Gather's data propagation indexes the propagated shape with the propagated indices.
void guard_gather_propagation(DataPropagationContext& ctx) {
  if (ctx.getNumInputs() < 2) return;
  const onnx::TensorShapeProto* data = ctx.getInputData(0);
  const onnx::TensorShapeProto* indices = ctx.getInputData(1);
  if (!data || !indices) return;
  const int64_t n = data->dim_size();
  for (const auto& d : indices->dim()) {
    if (d.has_dim_value() && (d.dim_value() < -n || d.dim_value() >= n)) {
      fail_shape_inference("index ", d.dim_value(), " is out of range for a shape of rank ", n);
    }
  }
}

using InferenceGuard = std::function<void(const InferenceContext&)>;
using PropagationGuard = std::function<void(DataPropagationContext&)>;

struct Guards {
  InferenceGuard inference;
  PropagationGuard propagation;
};

// The default-domain operators whose libonnx inference runs on imported models, with the guards
// their functions need. Every entry is exercised by fuzz/fuzz_onnx_import's structure-aware
// mutator; add an operator here only together with a fuzzing run.
const std::map<std::string, Guards>& inferred_ops() {
  static const std::map<std::string, Guards> ops = [] {
    std::map<std::string, Guards> m;
    for (const char* op :
         {// element-wise
          "Abs", "Add", "And", "Cast", "Ceil", "Clip", "Div", "Dropout", "Elu", "Equal", "Erf",
          "Exp", "Floor", "Greater", "GreaterOrEqual", "HardSigmoid", "HardSwish", "Identity",
          "LeakyRelu", "Less", "LessOrEqual", "Log", "Max", "Mean", "Min", "Mul", "Neg", "Not",
          "Or", "Pow", "PRelu", "Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign",
          "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tanh", "Where",
          // linear algebra and normalization
          "BatchNormalization", "Gemm", "InstanceNormalization", "MatMul", "MatMulInteger",
          "QLinearMatMul", "LRN", "Softmax", "LogSoftmax",
          // pooling without weights
          "GlobalAveragePool", "GlobalMaxPool",
          // shapes and data movement
          "Concat", "Constant", "ConstantOfShape", "DepthToSpace", "Expand", "Flatten", "Gather",
          "Pad", "Range", "Reshape", "Resize", "Shape", "Size", "Slice", "SpaceToDepth", "Split",
          "Squeeze", "Tile", "Transpose", "Unsqueeze",
          // reductions
          "ArgMax", "ArgMin", "ReduceL2", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
          "ReduceSum", "TopK",
          // quantization
          "DequantizeLinear", "DynamicQuantizeLinear", "QuantizeLinear"}) {
      m[op] = {};
    }
    const InferenceGuard conv = [](const InferenceContext& c) { guard_conv_pool(c, 1); };
    const InferenceGuard pool = [](const InferenceContext& c) { guard_conv_pool(c, -1); };
    m["Conv"] = {conv, nullptr};
    m["ConvInteger"] = {conv, nullptr};
    m["ConvTranspose"] = {conv, nullptr};
    m["QLinearConv"] = {[](const InferenceContext& c) { guard_conv_pool(c, 3); }, nullptr};
    m["MaxPool"] = {pool, nullptr};
    m["AveragePool"] = {pool, nullptr};
    m["LpPool"] = {pool, nullptr};
    m["Gather"] = {nullptr, guard_gather_propagation};
    return m;
  }();
  return ops;
}

// Indices of the schema's required (Single) inputs: the checker guarantees they are named, so a
// missing type means the producer's type is unknown.
std::vector<size_t> required_inputs(const onnx::OpSchema& s) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < s.inputs().size(); ++i) {
    if (s.inputs()[i].GetOption() == onnx::OpSchema::Single) idx.push_back(i);
  }
  return idx;
}

}  // namespace

const onnx::OpSchema* GuardedSchemaRegistry::GetSchema(const std::string& key,
                                                       const int maxInclusiveVersion,
                                                       const std::string& domain) const {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, maxInclusiveVersion, domain);
  if (!schema) return nullptr;
  if (auto it = guarded_.find(schema); it != guarded_.end()) return it->second.get();

  auto copy = std::make_unique<onnx::OpSchema>(*schema);
  const bool onnx_domain = schema->domain().empty() || schema->domain() == "ai.onnx";
  const auto& ops = inferred_ops();
  const auto entry = onnx_domain ? ops.find(schema->Name()) : ops.end();
  if (entry == ops.end()) {
    // Not on the list: the node is imported, but libonnx's code for it does not run (this also
    // stops the expansion of function-bodied operators); its outputs keep the declared types.
    copy->TypeAndShapeInferenceFunction([](InferenceContext&) {});
    copy->PartialDataPropagationFunction([](DataPropagationContext&) {});
  } else {
    const Guards& g = entry->second;
    if (schema->has_type_and_shape_inference_function()) {
      copy->TypeAndShapeInferenceFunction(
          [this, guard = g.inference, required = required_inputs(*schema),
           next = schema->GetTypeAndShapeInferenceFunction()](InferenceContext& ctx) {
            if (failed_) fail_shape_inference("not inferred because an earlier node failed");
            for (size_t i : required) {
              if (i < ctx.getNumInputs() && ctx.getInputType(i) == nullptr) return;
            }
            try {
              if (guard) guard(ctx);
              next(ctx);
            } catch (const onnx::InferenceError&) {
              failed_ = true;
              throw;
            }
          });
    }
    if (schema->has_data_propagation_function()) {
      copy->PartialDataPropagationFunction(
          [this, guard = g.propagation,
           next = schema->GetDataPropagationFunction()](DataPropagationContext& ctx) {
            if (failed_) return;
            for (size_t i = 0; i < ctx.getNumInputs(); ++i) {
              if (ctx.getInputType(i) == nullptr) return;
            }
            if (guard) guard(ctx);
            next(ctx);
          });
    }
  }
  const onnx::OpSchema* result = copy.get();
  guarded_.emplace(schema, std::move(copy));
  return result;
}

namespace {

// libonnx joins the errors of all failed nodes, each starting with "(op_type:"; keep the first,
// on one line.
std::string first_error(std::string_view what) {
  size_t begin = what.find("(op_type:");
  if (begin == std::string_view::npos) begin = 0;
  size_t end = what.find("(op_type:", begin + 1);
  std::string out;
  for (char c :
       what.substr(begin, end == std::string_view::npos ? what.size() - begin : end - begin)) {
    if (c == '\n' || c == '\r') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::vector<std::string> inference_allowlist() {
  std::vector<std::string> names;
  for (const auto& [name, guards] : inferred_ops()) names.push_back(name);
  return names;
}

void infer_shapes_guarded(onnx::ModelProto& m) {
  try {
    const GuardedSchemaRegistry registry;
    std::unordered_map<std::string, onnx::TensorShapeProto> generated;
    const onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1,
                                              /*data_prop=*/true);
    onnx::shape_inference::InferShapes(m, &registry, options, &generated);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw user_error("ONNX shape inference: ", first_error(e.what()));
  }
}

}  // namespace hetcim::onnxio
