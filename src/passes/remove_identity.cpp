#include "passes/remove_identity.h"

#include <algorithm>
#include <utility>

#include "graph/constant_values.h"
#include "passes/rewrite.h"
#include "util/error.h"

namespace hetcim::passes {
namespace {

// A Pad that adds and crops nothing, whatever its mode and value: torch exports AvgPool2d as a
// Pad of zeros before the AveragePool (DenseNet's transitions), and left in place it runs as a
// copy and keeps the pool off the channels-blocked layout. Pads come from the attribute (opset
// < 11) or a constant input (folded to an initializer by then).
bool is_zero_pad(const graph::Graph& g, const graph::Node& n) {
  if (n.op_type != "Pad" || !n.domain.empty() || n.inputs.empty()) return false;
  std::vector<int64_t> pads = n.attr_ints("pads", {});
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const auto it = g.initializers.find(n.inputs[1]);
    if (it == g.initializers.end() || !it->second.has_values()) return false;
    pads = it->second.ints();
  }
  return !pads.empty() && std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
}

}  // namespace

graph::Graph remove_identity(graph::Graph in) {
  graph::Graph g = std::move(in);
  std::set<size_t> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& n = g.nodes[i];
    // A Cast to the dtype its input already has (the torch.ao exporter's Cast(to=UINT8) after
    // every uint8 QuantizeLinear) is an identity too.
    bool identity_cast = false;
    if (n.op_type == "Cast" && n.domain.empty() && n.inputs.size() == 1) {
      const graph::TensorInfo* ti = g.info(n.inputs[0]);
      const auto to = graph::dtype_from_onnx_code(n.attr_int("to", -1));
      identity_cast = ti && to && ti->dtype == *to;
    }
    if (n.op_type != "Identity" && n.op_type != "Dropout" && !identity_cast && !is_zero_pad(g, n))
      continue;
    if (n.inputs.empty() || n.inputs[0].empty()) {
      throw user_error("node '", n.name, "' (", n.op_type, ") has no input");
    }
    // Dropout's optional mask output must be unused for the node to be an identity.
    if (n.outputs.size() > 1 && !n.outputs[1].empty() && consumers(g).count(n.outputs[1])) continue;
    const std::string src = n.inputs[0];
    const std::string out = n.outputs[0];
    dead.insert(i);
    replace_uses(g, out, src);
  }
  erase_nodes(g, dead);
  graph::validate(g);
  return g;
}

}  // namespace hetcim::passes
