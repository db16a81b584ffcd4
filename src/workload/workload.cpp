#include "workload/workload.h"

#include <algorithm>
#include <optional>
#include <set>

#include "graph/dag_counts.h"
#include "ops/registry.h"
#include "util/error.h"

namespace hetcim::workload {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Input positions holding learned parameters (the registry row's `params`).
const std::vector<size_t>& param_inputs(const std::string& op) {
  static const std::vector<size_t> kNone;
  const ops::Family* f = ops::row(op);
  return f ? f->params : kNone;
}

// The weight operand of an operator that a crossbar can hold, with the GeMM view.
struct GemmView {
  std::string weight;
  int64_t rows = 0, cols = 0, n_mvm = 0, macs = 0;
};

// The GeMM view of a weight-stationary operator, or why it has none (`reason`).
std::optional<GemmView> gemm_view(const graph::Graph& g, const graph::Node& n,
                                  std::string& reason) {
  const std::string who = "node '" + n.name + "' (" + n.op_type + ")";
  reason = "no weight matrix";
  const ops::GemmView view = ops::gemm_view(n);
  if (view == ops::GemmView::Conv) {
    const std::string& w = n.inputs.at(ops::weighted_operands(n.op_type).value().w);
    if (!g.is_initializer(w)) {
      reason = "weight operand is an activation";
      return std::nullopt;
    }
    const graph::Shape& ws = g.shape_of(w, who);
    const graph::Shape& os = g.shape_of(n.outputs.at(0), who);
    if (ws.size() < 3 || os.size() != ws.size())
      throw user_error(who, ": expected a weight of rank >= 3 matching the output rank, got ",
                       graph::shape_str(ws), " and ", graph::shape_str(os));
    int64_t k = 1;
    for (size_t i = 1; i < ws.size(); ++i) k *= ws[i];  // C_in/groups * K_h * K_w
    int64_t spatial = 1;
    for (size_t i = 2; i < os.size(); ++i) spatial *= os[i];
    const int64_t batch = os[0];
    return GemmView{w, k, ws[0], batch * spatial, batch * spatial * ws[0] * k};
  }
  if (view == ops::GemmView::Gemm) {
    const std::string& w = n.inputs.at(ops::weighted_operands(n.op_type).value().w);
    if (!g.is_initializer(w)) {
      reason = g.is_initializer(n.inputs.at(0)) ? "constant A, activation B (a crossbar holds B)"
                                                : "activation x activation Gemm";
      return std::nullopt;
    }
    const graph::Shape& ws = g.shape_of(w, who);
    if (ws.size() != 2)
      throw user_error(who, ": expected a 2-D weight, got ", graph::shape_str(ws));
    const bool trans_b = n.attr_int("transB", 0) != 0;
    const int64_t k = trans_b ? ws[1] : ws[0], cols = trans_b ? ws[0] : ws[1];
    const graph::Shape& os = g.shape_of(n.outputs.at(0), who);
    return GemmView{w, k, cols, os.at(0), os.at(0) * k * cols};
  }
  if (view == ops::GemmView::MatMul) {
    const ops::QLinearOperands q = ops::weighted_operands(n.op_type).value();
    const std::string& w = n.inputs.at(q.w);
    if (!g.is_initializer(w)) {
      // Attention's Q x K^T and A x V: both operands change with every input.
      reason = g.is_initializer(n.inputs.at(q.x)) ? "constant A, activation B (a crossbar holds B)"
                                                  : "activation x activation MatMul";
      return std::nullopt;
    }
    const graph::Shape& ws = g.shape_of(w, who);
    if (ws.size() != 2) {
      reason = ws.size() < 2 ? "constant B is a vector, not a weight matrix"
                             : "constant B has batch dimensions (several weight matrices)";
      return std::nullopt;
    }
    // A of shape [..., rows, K] (batch dimensions included) x B [K, N]: every row of every batch
    // is one input vector, N_mvm = product of A's batch and row dimensions.
    const graph::Shape& os = g.shape_of(n.outputs.at(0), who);
    const int64_t vectors = graph::element_count(os) / ws[1];
    return GemmView{w, ws[0], ws[1], vectors, vectors * ws[0] * ws[1]};
  }
  if (const ops::Family* f = ops::row(n.op_type); f && !f->no_crossbar.empty())
    reason = f->no_crossbar;
  return std::nullopt;
}

// MACs of a product no crossbar holds (attention's activation x activation MatMuls, a constant B
// with batch dimensions, a Gemm or Conv whose weight is an activation): every output element is a
// dot product of length K, so MACs = elements(output) x K. MatMul: K is A's last dimension (numpy
// matmul: [..., M, K] x [..., K, N] -> [..., M, N], batch dimensions broadcast, a 1-D operand
// promoted); Gemm: A's second dimension, its first with transA; Conv: C_in/groups * K_h * K_w
// from the weight. 0 for an operator with no GEMM view.
int64_t host_product_macs(const graph::Graph& g, const graph::Node& n) {
  const ops::GemmView view = ops::gemm_view(n);
  if (view == ops::GemmView::None) return 0;
  const std::string who = "node '" + n.name + "' (" + n.op_type + ")";
  const ops::QLinearOperands q = ops::weighted_operands(n.op_type).value();
  const int64_t outputs = graph::element_count(g.shape_of(n.outputs.at(0), who));
  int64_t k = 1;
  if (view == ops::GemmView::Conv) {
    const graph::Shape& ws = g.shape_of(n.inputs.at(q.w), who);
    for (size_t i = 1; i < ws.size(); ++i) k *= ws[i];
  } else {
    const graph::Shape& as = g.shape_of(n.inputs.at(q.x), who);
    if (as.empty()) throw user_error(who, ": operand A is a scalar; a product needs rank >= 1");
    const bool trans_a = view == ops::GemmView::Gemm && n.attr_int("transA", 0) != 0;
    k = trans_a ? as.front() : as.back();
  }
  return outputs * k;
}

// What would fix a tensor of unknown shape: the model inputs whose shape the file leaves open,
// each with the --input-shape to give (its open dimensions shown as D<i>), or, when every input is
// fixed, that no flag helps (the shape depends on data computed at run time).
std::string open_shape_advice(const graph::Graph& g) {
  std::string open;
  for (const std::string& in : g.inputs) {
    const graph::TensorInfo* ti = g.info(in);
    if (g.is_initializer(in) || (ti && ti->shape && graph::element_count(*ti->shape) >= 0))
      continue;
    std::string dims;
    if (ti && ti->shape) {
      for (size_t i = 0; i < ti->shape->size(); ++i) {
        const int64_t d = (*ti->shape)[i];
        dims += (i ? "x" : "") + (d >= 0 ? std::to_string(d) : "D" + std::to_string(i));
      }
    } else {
      dims = "DIMS";
    }
    open += std::string(open.empty() ? "" : " ") + "--input-shape " + in + "=" + dims;
  }
  if (open.empty())
    return "every model input's shape is fixed, so --input-shape cannot help: the shape depends "
           "on data computed at run time";
  return "the model file leaves input dimensions open; give them with " + open +
         " (D<i>: your size for dimension i)";
}

// Shapes are never silently wrong: a tensor of unknown shape would count as 0 bytes.
int64_t known_elements(const graph::Graph& g, const graph::Node& n, const std::string& t) {
  const graph::TensorInfo* ti = g.info(t);
  if (!ti || !ti->shape || graph::element_count(*ti->shape) < 0) {
    throw user_error("node '", n.name, "' (", n.op_type, "): the shape of tensor '", t, "' is ",
                     ti && ti->shape ? graph::shape_str(*ti->shape) : std::string("not known"),
                     " after shape inference; its bytes and crossbar need cannot be counted (",
                     open_shape_advice(g), ")");
  }
  return graph::element_count(*ti->shape);
}

}  // namespace

int64_t count_params(const graph::Graph& g) {
  std::set<std::string> counted;
  int64_t total = 0;
  for (const graph::Node& n : g.nodes) {
    for (size_t k : param_inputs(n.op_type)) {
      if (k >= n.inputs.size() || n.inputs[k].empty()) continue;
      auto it = g.initializers.find(n.inputs[k]);
      if (it == g.initializers.end() || !counted.insert(it->first).second) continue;
      total += graph::element_count(*it->second.info.shape);
    }
  }
  return total;
}

Workload analyze(const graph::Graph& g, const WorkloadOptions& o) {
  if (o.xbar_rows <= 0 || o.xbar_cols <= 0 || o.columns_per_weight <= 0 || o.elem_bytes <= 0)
    throw user_error(
        "workload options: crossbar size, columns per weight and element size must be positive");
  Workload w;
  w.options = o;
  w.dag = graph::dag_of(g);
  std::set<std::string> counted;
  for (const graph::Node& n : g.nodes) {
    OpWorkload op;
    op.name = n.name;
    op.op_type = n.op_type;
    const graph::TensorInfo* out = g.info(n.outputs.at(0));
    if (out && out->shape) op.out_shape = *out->shape;
    op.quantized = ops::computes_int8(n.op_type) || n.attr_string("precision", "") == "int8";
    for (const std::string& t : n.inputs) {
      if (t.empty() || g.is_initializer(t)) continue;
      op.in_elems += known_elements(g, n, t);
    }
    for (const std::string& t : n.outputs) {
      if (t.empty()) continue;
      op.out_elems += known_elements(g, n, t);
    }
    op.in_bytes = op.in_elems * o.elem_bytes;
    op.out_bytes = op.out_elems * o.elem_bytes;
    if (auto v = gemm_view(g, n, op.host_only_reason)) {
      op.host_only_reason.clear();
      op.offloadable = true;
      op.rows = v->rows;
      op.cols = v->cols * o.columns_per_weight;
      op.n_mvm = v->n_mvm;
      op.macs = v->macs;
      op.crossbars = ceil_div(op.rows, o.xbar_rows) * ceil_div(op.cols, o.xbar_cols);
    } else {
      op.macs = host_product_macs(g, n);
    }
    for (size_t k : param_inputs(n.op_type)) {
      if (k >= n.inputs.size() || n.inputs[k].empty()) continue;
      auto it = g.initializers.find(n.inputs[k]);
      if (it == g.initializers.end() || !counted.insert(it->first).second) continue;
      op.params += graph::element_count(*it->second.info.shape);
    }
    w.ops.push_back(std::move(op));
  }
  Totals& t = w.totals;
  t.operators = static_cast<int64_t>(w.ops.size());
  t.edges = static_cast<int64_t>(w.dag.edges.size());
  // Without the n x n closure (graph/dag_counts.h): linear for a chain of 100,000 operators.
  t.parallel_pairs = graph::count_parallel_pairs(w.dag);
  t.cut_nodes = static_cast<int64_t>(graph::cut_nodes(w.dag).size());
  for (const OpWorkload& op : w.ops) {
    t.offloadable += op.offloadable ? 1 : 0;
    t.crossbars += op.crossbars;
    t.params += op.params;
    t.macs += op.macs;
    t.offloadable_macs += op.offloadable ? op.macs : 0;
  }
  t.milp_variables = t.operators + t.parallel_pairs;
  t.milp_constraints =
      3 * t.edges + 2 * t.parallel_pairs + t.operators + (t.operators - t.offloadable) + 2;
  return w;
}

}  // namespace hetcim::workload
