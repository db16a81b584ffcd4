#include "passes/layout_nhwc.h"

#include <utility>

#include "passes/quantized_ops.h"
#include "passes/rewrite.h"

namespace hetcim::passes {
namespace {

bool rank4(const graph::Graph& g, const std::string& t) {
  const graph::TensorInfo* ti = g.info(t);
  return ti && ti->shape && ti->shape->size() == 4;
}

}  // namespace

graph::Graph layout_nhwc(graph::Graph in) {
  graph::Graph g = std::move(in);
  const size_t original = g.nodes.size();
  std::vector<bool> region(original, false);
  bool any = false;
  for (size_t i = 0; i < original; ++i) {
    const graph::Node& n = g.nodes[i];
    region[i] = is_nhwc_capable(n.op_type) && is_quantized(g, n) && !n.outputs.empty() &&
                rank4(g, n.outputs[0]);
    any = any || region[i];
  }
  if (!any) return g;
  const auto uses = consumers(g);
  auto in_region = [&](int p) {
    return p >= 0 && static_cast<size_t>(p) < original && region[static_cast<size_t>(p)];
  };
  auto add_transpose = [&](const std::string& t, bool to_nhwc) {
    const std::string out = fresh_name(g, t + (to_nhwc ? "_nhwc" : "_nchw"));
    g.values[out] = *g.info(t);
    graph::Node tr{
        fresh_name(g, t + (to_nhwc ? "/ToNHWC" : "/ToNCHW")), "Transpose", "", {t}, {out}, {}};
    tr.attrs["perm"] =
        to_nhwc ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 3, 1, 2};
    tr.attrs["layout_only"] = int64_t{1};
    g.nodes.push_back(tr);
    return out;
  };
  for (const auto& [t, readers] : uses) {
    if (g.is_initializer(t) || !rank4(g, t)) continue;
    const bool src = in_region(producer(g, t));
    std::string converted;
    for (size_t c : readers) {
      if (c >= original || region[c] == src) continue;
      if (converted.empty()) converted = add_transpose(t, !src);
      for (std::string& x : g.nodes[c].inputs)
        if (x == t) x = converted;
    }
    if (src) {
      for (std::string& out : g.outputs) {
        if (out != t) continue;
        if (converted.empty()) converted = add_transpose(t, false);
        out = converted;
      }
    }
  }
  graph::validate(g);
  return g;
}

bool is_layout_transpose(const graph::Node& n) {
  return n.attr_int("layout_only", 0) != 0;
}

}  // namespace hetcim::passes
