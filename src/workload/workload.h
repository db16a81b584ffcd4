// The per-operator view the cost models need: each operator as a GeMM (weight matrix M_v x N_v
// applied N_mvm times), its MACs, the bytes it reads and writes, and the crossbars it needs
// (seed 000, eq. 1). Pure function of a lowered graph and a few options.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/dag.h"
#include "graph/graph.h"

namespace hetcim::workload {

struct WorkloadOptions {
  int64_t xbar_rows = 256;         // M: crossbar rows (inputs)
  int64_t xbar_cols = 256;         // N: crossbar columns (outputs)
  int64_t columns_per_weight = 1;  // 2 for a differential (G+, G-) mapping of signed weights
  int64_t elem_bytes = 1;          // b_elem: 1 for the int8 deployment, 4 for fp32
};

struct OpWorkload {
  std::string name;
  std::string op_type;
  graph::Shape out_shape;
  bool offloadable = false;  // has a constant 2-D weight matrix a crossbar can hold (V_acc)
  bool quantized = false;
  // Multiply-accumulates of a product (Conv, Gemm, MatMul and their quantized forms), offloadable
  // or not: attention's activation x activation MatMuls count too (elements(output) x K).
  int64_t macs = 0;
  int64_t rows = 0;       // M_v: inputs per MVM = C_in/groups * K_h * K_w (or K of a GeMM)
  int64_t cols = 0;       // N_v: outputs per MVM = C_out (x columns_per_weight when mapped)
  int64_t n_mvm = 0;      // input vectors applied: H_out * W_out (im2col) or GeMM rows
  int64_t in_elems = 0;   // activation elements read (constants excluded)
  int64_t out_elems = 0;  // elements written
  int64_t in_bytes = 0;   // b_elem * in_elems
  int64_t out_bytes = 0;  // b_elem * out_elems
  int64_t crossbars = 0;  // eq. (1); 0 when not offloadable
  int64_t params = 0;     // learned parameters held by the operator
  // Why a crossbar cannot hold the operator (empty when offloadable): a Conv/Gemm/MatMul whose
  // weight operand is an activation (attention's Q x K^T and A x V are "activation x activation
  // MatMul"), a constant B with batch dimensions, or "no weight matrix" for every other operator.
  std::string host_only_reason;
};

struct Totals {
  int64_t operators = 0, edges = 0, parallel_pairs = 0, offloadable = 0, crossbars = 0;
  int64_t params = 0, macs = 0;
  int64_t offloadable_macs = 0;  // MACs of the offloadable operators (those a crossbar can do)
  int64_t cut_nodes = 0;
  // Paper-counted MILP size (seed 000, Table I): binaries N + |P|,
  // constraints 3|E| + 2|P| + N + (N - |V_acc|) + 2.
  int64_t milp_variables = 0, milp_constraints = 0;
};

struct Workload {
  std::vector<OpWorkload> ops;  // one per graph node, in the graph's (topological) order
  graph::Dag dag;
  Totals totals;
  WorkloadOptions options;  // the geometry the crossbar counts and byte sizes assume
};

[[nodiscard]] Workload analyze(const graph::Graph& g, const WorkloadOptions& options = {});

// Learned parameters of a graph before or after lowering: the weight and bias inputs of
// Conv/Gemm/MatMul (and their quantized forms) plus the scale and bias of BatchNormalization
// (running statistics are buffers, not parameters, as in PyTorch's parameter count).
[[nodiscard]] int64_t count_params(const graph::Graph& g);

}  // namespace hetcim::workload
