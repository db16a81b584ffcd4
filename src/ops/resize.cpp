// Resize and Upsample (its opset <= 9 form). Kernels: exec/families/resize.cpp (exec/resize.h);
// the shape rules are here: sizes, or scales rounded as ONNX Runtime rounds them.
#include <cmath>

#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

Shape scaled(const Ctx& c, const Shape& x, const std::vector<double>& scales) {
  if (scales.size() != x.size()) {
    c.fail(scales.size(), " scales for an input of rank ", x.size());
  }
  Shape out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(scales[i] > 0)) c.fail("scale ", scales[i], " on axis ", i, " must be positive");
    // In float, as ONNX's shape inference and ONNX Runtime compute it: 5 x 1.8f is 9 there, while
    // the exact product 8.99999976 would give 8.
    const double v =
        std::floor(static_cast<double>(static_cast<float>(x[i]) * static_cast<float>(scales[i])));
    if (v > static_cast<double>(kMaxDim))
      c.fail("scale ", scales[i], " on axis ", i, " gives a dimension above 2^31");
    out[i] = x[i] < 0 ? -1 : static_cast<int64_t>(v);
  }
  return out;
}

Infos resize(const Ctx& c) {
  c.arity(1, 4, 1, 1);
  const Shape& x = c.shape(0);
  const int64_t r = static_cast<int64_t>(x.size());
  // Opset 10: (X, scales). Opset 11+: (X, roi, scales, sizes); an empty tensor means absent.
  const bool opset10 = c.opset() <= 10;
  const size_t scales_at = opset10 ? 1 : 2, sizes_at = 3;
  std::vector<int64_t> axes = c.node().attr_ints("axes", {});  // opset 18
  for (int64_t& a : axes) a = c.axis(a, r);
  std::vector<int64_t> sizes;
  std::vector<double> scales;
  if (!opset10 && c.has(sizes_at)) sizes = c.const_ints(sizes_at, "sizes");
  if (c.has(scales_at)) scales = c.const_floats(scales_at, "scales");
  if (!sizes.empty() && !scales.empty())
    c.fail("scales and sizes are both given; exactly one is allowed");
  if (sizes.empty() && scales.empty()) c.fail("neither scales nor sizes is given");
  const size_t given = sizes.empty() ? scales.size() : sizes.size();
  if (!axes.empty() && given != axes.size()) {
    c.fail(given, sizes.empty() ? " scales" : " sizes", " for ", axes.size(), " axes");
  }
  if (!sizes.empty()) {
    Shape out = sizes;
    if (!axes.empty()) {
      out = x;
      for (size_t i = 0; i < axes.size(); ++i) out[static_cast<size_t>(axes[i])] = sizes[i];
    }
    if (out.size() != x.size()) c.fail(sizes.size(), " sizes for an input of rank ", x.size());
    for (int64_t s : sizes) {
      if (s < 0 || s > kMaxDim) c.fail("sizes ", list_str(sizes), " must be in [0, 2^31]");
    }
    return {{c.dtype(0), out}};
  }
  if (!axes.empty()) {
    std::vector<double> full(x.size(), 1.0);
    for (size_t i = 0; i < axes.size(); ++i) full[static_cast<size_t>(axes[i])] = scales[i];
    scales = std::move(full);
  }
  return {{c.dtype(0), scaled(c, x, scales)}};
}

Infos upsample(const Ctx& c) {
  c.arity(1, 2, 1, 1);
  std::vector<double> scales;
  if (c.has(1)) {
    scales = c.const_floats(1, "scales");
  } else if (auto it = c.node().attrs.find("scales"); it != c.node().attrs.end()) {
    if (auto* v = std::get_if<std::vector<double>>(&it->second))
      scales = *v;
    else
      c.fail("attribute 'scales' must be a list of floats");
  } else {
    c.fail("scales (input 1 or attribute) is required");
  }
  return {{c.dtype(0), scaled(c, c.shape(0), scales)}};
}

}  // namespace

std::vector<Family> resize_family() {
  return {{.op = "Resize",
           .family = "resize",
           .shape = resize,
           .shape_operands = {1, 2, 3},
           .int8_runs = true,
           .int8_passthrough = true,
           .nhwc = true},
          {.op = "Upsample",
           .family = "resize",
           .shape = upsample,
           .shape_operands = {1},
           .legacy_resize = true}};
}

}  // namespace hetcim::ops
