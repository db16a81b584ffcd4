#include "passes/remove_identity.h"

#include "passes/rewrite.h"
#include "util/error.h"

namespace hetcim::passes {

graph::Graph remove_identity(const graph::Graph& in) {
  graph::Graph g = in;
  std::set<size_t> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& n = g.nodes[i];
    if (n.op_type != "Identity" && n.op_type != "Dropout") continue;
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
