#include "passes/fuse_activation.h"

#include <limits>
#include <unordered_map>
#include <utility>

#include "ops/registry.h"
#include "passes/rewrite.h"

namespace hetcim::passes {
namespace {

// A Clip bound from an attribute (opset < 11) or a constant input (opset >= 11).
std::optional<double> clip_bound(const graph::Graph& g, const graph::Node& clip, size_t input,
                                 const char* attr) {
  if (clip.has_attr(attr)) return clip.attr_float(attr, 0.0);
  if (clip.inputs.size() <= input || clip.inputs[input].empty()) return std::nullopt;
  auto it = g.initializers.find(clip.inputs[input]);
  if (it == g.initializers.end() || !it->second.has_values()) return std::nullopt;
  auto v = it->second.floats();
  if (v.size() != 1) return std::nullopt;
  return v[0];
}

}  // namespace

bool can_fuse_activation(const std::string& op) {
  const ops::Family* f = ops::row(op);
  return f && f->takes_activation;
}

graph::Graph fuse_activation(graph::Graph in) {
  graph::Graph g = std::move(in);
  const auto uses = consumers(g);
  // Producers by tensor, kept up to date as outputs move (producer() would scan every node for
  // every activation: quadratic in a long chain).
  std::unordered_map<std::string, int> producer_of = producers(g);
  std::set<size_t> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& act = g.nodes[i];
    const ops::Family* af = ops::row(act.op_type);
    if (!af || !af->is_activation) continue;
    const auto found = producer_of.find(act.inputs.at(0));
    if (found == producer_of.end()) continue;
    const int p = found->second;
    graph::Node& prod = g.nodes[static_cast<size_t>(p)];
    if (!can_fuse_activation(prod.op_type) || prod.has_attr("activation") ||
        prod.outputs.size() != 1 || !single_use(g, uses, act.inputs[0]))
      continue;
    // A Clip whose bounds are tensors computed at run time cannot be fused.
    if (act.op_type == "Clip") {
      const bool min_dynamic =
          act.inputs.size() > 1 && !act.inputs[1].empty() && !g.is_initializer(act.inputs[1]);
      const bool max_dynamic =
          act.inputs.size() > 2 && !act.inputs[2].empty() && !g.is_initializer(act.inputs[2]);
      if (min_dynamic || max_dynamic) continue;
      // A missing bound is +-infinity; a bound given without a value (architecture-only graph)
      // stays unrecorded.
      auto present = [&](size_t k, const char* attr) {
        return act.has_attr(attr) || (act.inputs.size() > k && !act.inputs[k].empty());
      };
      constexpr double kInf = std::numeric_limits<double>::infinity();
      auto lo = present(1, "min") ? clip_bound(g, act, 1, "min") : std::optional<double>(-kInf);
      auto hi = present(2, "max") ? clip_bound(g, act, 2, "max") : std::optional<double>(kInf);
      if (lo) prod.attrs["activation_min"] = *lo;
      if (hi) prod.attrs["activation_max"] = *hi;
    }
    prod.attrs["activation"] = act.op_type;
    g.values.erase(prod.outputs[0]);
    producer_of.erase(prod.outputs[0]);
    prod.outputs[0] = act.outputs.at(0);
    producer_of[prod.outputs[0]] = p;
    dead.insert(i);
  }
  erase_nodes(g, dead);
  graph::validate(g);
  return g;
}

}  // namespace hetcim::passes
