#include "passes/fold_batchnorm.h"

#include <cmath>
#include <utility>

#include "passes/rewrite.h"
#include "util/error.h"

namespace hetcim::passes {
namespace {

const graph::Initializer* constant(const graph::Graph& g, const std::string& t) {
  auto it = g.initializers.find(t);
  return it == g.initializers.end() ? nullptr : &it->second;
}

}  // namespace

graph::Graph fold_batchnorm(graph::Graph in) {
  graph::Graph g = std::move(in);
  const auto uses = consumers(g);
  std::set<size_t> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& bn = g.nodes[i];
    if (bn.op_type != "BatchNormalization" || bn.inputs.size() < 5) continue;
    const int p = producer(g, bn.inputs[0]);
    if (p < 0) continue;
    graph::Node& conv = g.nodes[static_cast<size_t>(p)];
    if (conv.op_type != "Conv" || !single_use(g, uses, bn.inputs[0])) continue;
    const graph::Initializer* w = constant(g, conv.inputs.at(1));
    const graph::Initializer* gamma = constant(g, bn.inputs[1]);
    const graph::Initializer* beta = constant(g, bn.inputs[2]);
    const graph::Initializer* mean = constant(g, bn.inputs[3]);
    const graph::Initializer* var = constant(g, bn.inputs[4]);
    if (!w || !gamma || !beta || !mean || !var) continue;  // not a foldable inference-mode BN
    const graph::Shape& ws = *w->info.shape;
    const int64_t cout = ws.at(0);
    if (graph::element_count(*gamma->info.shape) != cout) {
      throw user_error("node '", bn.name,
                       "' (BatchNormalization): ", graph::element_count(*gamma->info.shape),
                       " channels, but conv '", conv.name, "' has ", cout, " output channels");
    }
    const std::string bias_name =
        conv.inputs.size() > 2 && !conv.inputs[2].empty() ? conv.inputs[2] : "";
    const graph::Initializer* b = bias_name.empty() ? nullptr : constant(g, bias_name);
    const bool values = w->has_values() && gamma->has_values() && beta->has_values() &&
                        mean->has_values() && var->has_values() && (!b || b->has_values());
    graph::Initializer new_w = *w;
    graph::Initializer new_b = graph::Initializer::shape_only(graph::DType::Float32, {cout});
    if (values) {
      const double eps = bn.attr_float("epsilon", 1e-5);
      std::vector<float> wv = w->floats(), gv = gamma->floats(), bv = beta->floats(),
                         mv = mean->floats(), vv = var->floats();
      std::vector<float> cb = b ? b->floats() : std::vector<float>(static_cast<size_t>(cout), 0.f);
      const size_t per_out = wv.size() / static_cast<size_t>(cout);
      std::vector<float> ob(static_cast<size_t>(cout));
      for (size_t c = 0; c < static_cast<size_t>(cout); ++c) {
        const double s = gv[c] / std::sqrt(static_cast<double>(vv[c]) + eps);
        for (size_t k = 0; k < per_out; ++k)
          wv[c * per_out + k] = static_cast<float>(wv[c * per_out + k] * s);
        ob[c] = static_cast<float>(bv[c] + (cb[c] - mv[c]) * s);
      }
      new_w = graph::Initializer::from_floats(ws, wv);
      new_b = graph::Initializer::from_floats({cout}, ob);
    }
    const std::string w_name = fresh_name(g, conv.name + ".weight_folded");
    const std::string b_name = fresh_name(g, conv.name + ".bias_folded");
    g.initializers[w_name] = std::move(new_w);
    g.initializers[b_name] = std::move(new_b);
    conv.inputs.resize(3);
    conv.inputs[1] = w_name;
    conv.inputs[2] = b_name;
    g.values.erase(conv.outputs[0]);
    conv.outputs[0] = bn.outputs[0];
    dead.insert(i);
  }
  erase_nodes(g, dead);
  graph::validate(g);
  return g;
}

}  // namespace hetcim::passes
