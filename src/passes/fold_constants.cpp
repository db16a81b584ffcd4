#include "passes/fold_constants.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "ops/registry.h"
#include "ops/shape_inference.h"
#include "passes/rewrite.h"
#include "util/error.h"

namespace hetcim::passes {
namespace {

// Largest constant a shape subgraph may fold into (Swin's attention mask of 64 windows x 49 x 49
// is 153,664 elements; ONNX Runtime folds any size).
constexpr int64_t kMaxFoldedElements = int64_t{1} << 22;

// Cast and ConstantOfShape of constants, of any dtype (the torch.ao exporter's zero points): the
// row's `fold_any` (ops/registry.h); nullopt for every other operator or operands not constant.
std::optional<graph::Initializer> fold_any(const graph::Graph& g, const graph::Node& n) {
  if (!n.domain.empty()) return std::nullopt;
  const ops::Family* f = ops::row(n.op_type);
  return f && f->fold_any ? f->fold_any(g, n) : std::nullopt;
}

// Tensors whose shape ONNX's inference left open (a Slice whose starts come from shape
// arithmetic, as a channel shuffle exports) get hetcim's inference once their operands are folded.
// Only unknown dimensions are filled; an op hetcim's inference does not know stays as it is.
void refine_output_shapes(graph::Graph& g, const graph::Node& n) {
  bool open = false;
  for (const std::string& t : n.outputs) {
    const graph::TensorInfo* ti = t.empty() ? nullptr : g.info(t);
    open = open || (!t.empty() && (!ti || !ti->shape || graph::element_count(*ti->shape) < 0));
  }
  if (!open) return;
  std::vector<graph::TensorInfo> inferred;
  try {
    inferred = ops::infer_outputs(g, n);
  } catch (const UserError&) {
    return;
  }
  for (size_t k = 0; k < n.outputs.size() && k < inferred.size(); ++k) {
    const std::string& t = n.outputs[k];
    if (t.empty() || !inferred[k].shape) continue;
    auto it = g.values.find(t);
    if (it == g.values.end() || !it->second.shape ||
        it->second.shape->size() != inferred[k].shape->size()) {
      g.values[t] = inferred[k];
      continue;
    }
    graph::Shape& s = *it->second.shape;
    for (size_t d = 0; d < s.size(); ++d)
      if (s[d] < 0) s[d] = (*inferred[k].shape)[d];
  }
}

bool fully_known(const graph::TensorInfo* ti) {
  return ti && ti->shape && graph::element_count(*ti->shape) >= 0;
}

// Inputs whose values (not only their shapes) decide an op's output shape (the row's
// `shape_operands`).
std::vector<size_t> value_operands(const graph::Node& n) {
  const ops::Family* f = ops::row(n.op_type);
  return f ? f->shape_operands : std::vector<size_t>{};
}

// Why tensor `t`'s value is not known before running: the first tensor upstream (through the
// shape-arithmetic operators) whose value depends on data, described for a message; empty when
// only open dimensions are upstream.
std::string data_source(const graph::Graph& g, const std::string& t) {
  std::vector<std::string> upstream = {t};
  std::set<std::string> seen;
  while (!upstream.empty()) {
    const std::string x = upstream.back();
    upstream.pop_back();
    if (!seen.insert(x).second || g.is_initializer(x)) continue;
    const int p = producer(g, x);
    if (p < 0) return "the values of graph input '" + x + "'";
    const graph::Node& n = g.nodes[static_cast<size_t>(p)];
    const ops::Family* f = ops::row(n.op_type);
    if (f && f->reads_shape_only) continue;  // a shape, not data
    // Shape arithmetic: operators whose output shape inference computes from constants (a
    // registry row with an evaluator, ops/registry.h `fold`).
    if (!f || !f->fold) {
      return "the values of tensor '" + x + "' (output of node '" + n.name + "' (" + n.op_type +
             "))";
    }
    for (const std::string& in : n.inputs)
      if (!in.empty()) upstream.push_back(in);
  }
  return {};
}

// After folding, with every graph input's shape fixed, every tensor's shape must be known. The
// first node whose inputs' shapes are all known but whose output's is not is named: with the
// operand deciding that shape (Reshape's shape, Expand's shape, Slice's bounds, ...) that is not a
// constant and where its value comes from, else with its shape rule's own message (an unsupported
// operator).
void check_resolved(const graph::Graph& g) {
  for (const std::string& in : g.inputs)
    if (!fully_known(g.info(in))) return;  // an open input dimension: --input-shape may help
  for (const graph::Node& n : g.nodes) {
    if (!n.domain.empty()) continue;  // other domains' shapes are their executors' business
    bool inputs_known = true;
    for (const std::string& in : n.inputs)
      inputs_known = inputs_known && (in.empty() || fully_known(g.info(in)));
    std::string open;
    for (const std::string& t : n.outputs) {
      if (open.empty() && !t.empty() && !fully_known(g.info(t))) open = t;
    }
    if (!inputs_known || open.empty()) continue;
    for (size_t k : value_operands(n)) {
      if (k >= n.inputs.size() || n.inputs[k].empty() || g.is_initializer(n.inputs[k])) continue;
      const std::string& operand = n.inputs[k];
      const std::string source = data_source(g, operand);
      throw user_error(
          "node '", n.name, "' (", n.op_type, "): input ", k, " '", operand,
          "' decides the shape of its output but is not a constant after folding the shape "
          "subgraphs for the fixed input shapes: it is computed from ",
          source.empty() ? std::string("shapes hetcim could not fold") : source,
          ", which hetcim cannot evaluate before running (hetcim folds Shape, Gather, Concat, "
          "Slice, Range, Where, Expand, ... of constants and fixed shapes; a shape that depends "
          "on the input data is not supported)");
    }
    (void)ops::infer_outputs(g, n);  // its own message first (e.g. an unsupported operator)
    throw user_error("node '", n.name, "' (", n.op_type, "): the shape of its output '", open,
                     "' is not known although every input shape is fixed");
  }
}

}  // namespace

graph::Graph fold_constants(graph::Graph in) {
  graph::Graph g = std::move(in);
  std::set<size_t> dead;
  // One sweep in topological order: a node's operands are folded (and its inputs' shapes refined)
  // before the node itself is looked at.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& n = g.nodes[i];
    refine_output_shapes(g, n);
    if (n.outputs.size() != 1) continue;
    std::optional<graph::Initializer> r = fold_any(g, n);
    if (!r) r = ops::fold_shape_arithmetic(g, n, kMaxFoldedElements);
    if (!r) continue;
    g.values.erase(n.outputs[0]);
    g.initializers[n.outputs[0]] = std::move(*r);
    dead.insert(i);
  }
  // The folded nodes' outputs are initializers now; drop the nodes.
  std::vector<graph::Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!dead.count(i)) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  erase_nodes(g, {});
  graph::validate(g);
  check_resolved(g);
  return g;
}

}  // namespace hetcim::passes
