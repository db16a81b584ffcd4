// The driver of shape inference and constant evaluation: each node's rule and evaluator come from
// its registry row (ops/registry.h: `shape`, `fold`), written in its family's file.
#include "ops/shape_inference.h"

#include <optional>
#include <string>

#include "ops/registry.h"
#include "ops/shape_rule.h"
#include "util/error.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

bool onnx_domain(const Node& n) {
  return n.domain.empty() || n.domain == "ai.onnx";
}

Infos infer(const Graph& g, const Node& n, const KnownValues* known) {
  const bool onnx = onnx_domain(n);
  if (onnx) {
    if (const Family* f = row(n.op_type); f && f->shape) {
      Infos out = f->shape(Ctx(g, n, known));
      HETCIM_ASSERT(out.size() == n.outputs.size(), "op ", n.op_type, " inferred ", out.size(),
                    " outputs for ", n.outputs.size());
      return out;
    }
  }
  throw user_error("unsupported op '", onnx ? "" : n.domain + ".", n.op_type, "' at node '", n.name,
                   "'");
}

// The value of n's single output (`outs`, already inferred) when its row has an evaluator and it
// is computed from constants and static shapes only (Ctx::value), with at most `max_elements`
// elements; nullopt otherwise.
std::optional<ConstValue> evaluate(const Ctx& c, const Infos& outs, int64_t max_elements) {
  if (outs.size() != 1 || !outs[0].shape) return std::nullopt;
  const int64_t count = count_elements(*outs[0].shape);
  if (count < 0 || count > max_elements) return std::nullopt;
  const Family* f = row(c.node().op_type);
  if (!f || !f->fold) return std::nullopt;
  return f->fold(c, outs[0], count);
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
  const Family* f = onnx_domain(n) ? row(n.op_type) : nullptr;
  if (!f || !f->fold || n.outputs.size() != 1) return std::nullopt;
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
    std::vector<float> fl(v->floats.begin(), v->floats.end());
    return Initializer::from_floats(*outs[0].shape, fl);
  }
  Initializer r = Initializer::from_ints(*outs[0].shape, v->ints);
  if (outs[0].dtype != DType::Int64) r = graph::cast_to(r, outs[0].dtype);
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
  graph::validate(g);
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

}  // namespace hetcim::ops
