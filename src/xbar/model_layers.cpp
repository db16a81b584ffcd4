#include "xbar/model_layers.h"

#include <algorithm>

#include "ops/registry.h"
#include "util/error.h"
#include "xbar/layout.h"

namespace hetcim::xbar {
namespace {

const graph::Initializer* constant(const graph::Graph& g, const graph::Node& n, size_t input) {
  if (n.inputs.size() <= input || n.inputs[input].empty()) return nullptr;
  auto it = g.initializers.find(n.inputs[input]);
  if (it == g.initializers.end()) return nullptr;
  if (!it->second.has_values())
    throw user_error("node '", n.name, "': weight '", n.inputs[input],
                     "' carries no values (an architecture-only model cannot be mapped)");
  if (!it->second.info.shape)
    throw user_error("node '", n.name, "': weight '", n.inputs[input], "' has no shape");
  return &it->second;
}

}  // namespace

ModelLayers crossbar_layers(const graph::Graph& g) {
  ModelLayers out;
  for (const graph::Node& n : g.nodes) {
    if (!n.domain.empty()) continue;
    // Float weighted operators only (the registry's GEMM view; QLinear forms are not mapped).
    const std::optional<ops::QLinearOperands> q = ops::weighted_operands(n.op_type);
    if (!q || q->quantized) continue;
    const ops::GemmView view = ops::gemm_view(n);
    if (view == ops::GemmView::Conv) {
      const graph::Initializer* w = constant(g, n, q->w);
      if (w == nullptr) {
        out.skipped.push_back(n.name + " (weight is not a constant)");
        continue;
      }
      const graph::Shape& s = *w->info.shape;
      if (s.size() != 4) {
        out.skipped.push_back(n.name + " (not a 2-D convolution)");
        continue;
      }
      if (n.attr_int("group", 1) != 1) {
        out.skipped.push_back(n.name + " (grouped convolution)");
        continue;
      }
      const std::vector<float> v = w->floats();
      out.mapped.push_back({n.name, n.op_type, s[1] * s[2] * s[3], s[0],
                            conv_to_crossbar(v.data(), s[0], s[1], s[2], s[3])});
    } else if (view == ops::GemmView::Gemm || view == ops::GemmView::MatMul) {
      const graph::Initializer* w = constant(g, n, q->w);
      if (w == nullptr || w->info.shape->size() != 2) {
        out.skipped.push_back(n.name + " (right operand is not a constant matrix)");
        continue;
      }
      const graph::Shape& s = *w->info.shape;
      std::vector<float> v = w->floats();
      CrossbarMatrix m{n.name, n.op_type, s[0], s[1], {}};
      if (view == ops::GemmView::Gemm && n.attr_int("transB", 0) != 0) {
        m.rows = s[1];
        m.cols = s[0];
        m.weights = linear_to_crossbar(v.data(), s[0], s[1]);
      } else {
        m.weights = std::move(v);
      }
      const double alpha = view == ops::GemmView::Gemm ? n.attr_float("alpha", 1.0) : 1.0;
      if (alpha != 1.0)
        for (float& x : m.weights) x = static_cast<float>(x * alpha);
      out.mapped.push_back(std::move(m));
    }
  }
  return out;
}

std::vector<MappingAudit> audit_model(const graph::Graph& g, const Chip& chip,
                                      const std::vector<std::string>& only) {
  const ModelLayers layers = crossbar_layers(g);
  for (const std::string& name : only) {
    if (std::none_of(layers.mapped.begin(), layers.mapped.end(),
                     [&](const CrossbarMatrix& m) { return m.node == name; }))
      throw user_error(
          "model '", g.name, "': '", name,
          "' is not a layer a crossbar can hold (Conv, Gemm or MatMul with constant weights)");
  }
  std::vector<MappingAudit> audits;
  for (const CrossbarMatrix& m : layers.mapped) {
    if (!only.empty() && std::find(only.begin(), only.end(), m.node) == only.end()) continue;
    audits.push_back(chip.program(m.node, m.weights.data(), m.rows, m.cols).audit());
  }
  return audits;
}

}  // namespace hetcim::xbar
