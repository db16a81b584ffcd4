// Pad, mode "constant" (pads as an attribute before opset 11, as a constant input from 11 on;
// optional constant_value; optional axes from opset 18). Negative pads crop.
#include <algorithm>

#include "graph/node_errors.h"
#include "ops/families.h"

namespace hetcim::ops {
namespace {

Run compile_pad(const KernelInput& k) {
  const graph::Node& n = k.node;
  const std::string mode = n.attr_string("mode", "constant");
  if (mode != "constant")
    throw graph::node_error(n, "mode '", mode, "' is not supported (hetcim pads with a constant)");
  const graph::Shape x = k.shapes.at(0);
  const auto rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> pads = n.attr_ints("pads", {});
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    if (!k.constants[1]) throw graph::node_error(n, "pads (input 1) must be a constant");
    pads.clear();
    for (int64_t i = 0; i < k.constants[1]->numel(); ++i)
      pads.push_back(static_cast<int64_t>(k.constants[1]->at(i)));
  }
  float value = static_cast<float>(n.attr_float("value", 0.0));
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    if (!k.constants[2]) throw graph::node_error(n, "constant_value (input 2) must be a constant");
    value = static_cast<float>(k.constants[2]->at(0));
  }
  std::vector<int64_t> axes;
  if (n.inputs.size() > 3 && !n.inputs[3].empty()) {
    if (!k.constants[3]) throw graph::node_error(n, "axes (input 3) must be a constant");
    for (int64_t i = 0; i < k.constants[3]->numel(); ++i)
      axes.push_back(graph::normalize_axis(n, static_cast<int64_t>(k.constants[3]->at(i)), rank));
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size())
    throw graph::node_error(n, "pads has ", pads.size(), " values, expected ", 2 * axes.size());
  std::vector<int64_t> begin(x.size(), 0);
  graph::Shape y = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto d = static_cast<size_t>(axes[i]);
    begin[d] = pads[i];
    y[d] = x[d] + pads[i] + pads[i + axes.size()];
    if (y[d] < 0) throw graph::node_error(n, "pads crop axis ", d, " below zero");
  }
  // Row by row along the last axis: the part of a row inside the input is one copy, the rest
  // the pad value (rows outside the input along an outer axis are all pad value).
  if (y.empty())
    return [](const std::vector<const float*>& in, const std::vector<float*>& out) {
      out[0][0] = in[0][0];
    };
  const size_t last = y.size() - 1;
  const int64_t row = y[last], xrow = x[last];
  const int64_t rows = row == 0 ? 0 : graph::element_count(y) / row;
  const int64_t o0 = std::clamp<int64_t>(begin[last], 0, row);
  const int64_t o1 = std::clamp<int64_t>(begin[last] + xrow, 0, row);
  return [x, y, begin, value, last, row, xrow, rows, o0, o1](const std::vector<const float*>& in,
                                                             const std::vector<float*>& out) {
    std::vector<int64_t> idx(last, 0);
    for (int64_t r = 0; r < rows; ++r) {
      float* dst = out[0] + r * row;
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < last && inside; ++d) {
        const int64_t s = idx[d] - begin[d];
        inside = s >= 0 && s < x[d];
        src = src * x[d] + s;
      }
      if (!inside || o1 <= o0) {
        std::fill(dst, dst + row, value);
      } else {
        std::fill(dst, dst + o0, value);
        std::copy_n(in[0] + src * xrow + (o0 - begin[last]), o1 - o0, dst + o0);
        std::fill(dst + o1, dst + row, value);
      }
      for (size_t d = last; d-- > 0;) {
        if (++idx[d] < y[d]) break;
        idx[d] = 0;
      }
    }
  };
}

// ---- shape rules and constant evaluators (ops/shape_rule.h)

using namespace shape_rules;

// Pad: pads as an attribute (opset < 11) or a constant input; optional axes (opset 18).
Infos pad(const Ctx& c) {
  c.arity(1, 4, 1, 1);
  const Shape& x = c.shape(0);
  std::vector<int64_t> pads = c.node().attr_ints("pads", {});
  if (c.has(1)) pads = c.const_ints(1, "pads");
  std::vector<int64_t> axes;
  if (c.has(3)) {
    for (int64_t a : c.const_ints(3, "axes")) axes.push_back(c.axis(a, c.rank(0)));
  } else {
    for (int64_t d = 0; d < c.rank(0); ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size())
    c.fail("pads has ", pads.size(), " values, expected ", 2 * axes.size());
  Shape out = x;
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t& d = out[static_cast<size_t>(axes[k])];
    if (d < 0) continue;
    d += pads[k] + pads[k + axes.size()];
    if (d < 0) c.fail("pads crop axis ", axes[k], " below zero");
  }
  return {{c.dtype(0), out}};
}

}  // namespace

std::vector<Family> pad_family() {
  return {
      {.op = "Pad", .family = "pad", .compile = compile_pad, .shape = pad, .shape_operands = {1}}};
}

}  // namespace hetcim::ops
