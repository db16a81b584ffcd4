// Standalone BatchNormalization (inference: constant statistics, per channel of axis 1); the
// engine's own fused BatchNorm kernel takes the 4-D cases with per-channel constants first.
#include <cmath>

#include "graph/node_errors.h"
#include "ops/families.h"

namespace hetcim::ops {
namespace {

std::vector<float> constant_floats(const KernelInput& k, size_t i, const char* what) {
  if (i >= k.constants.size() || !k.constants[i])
    throw graph::node_error(k.node, what, " (input ", i, ") must be a constant");
  return k.constants[i]->floats();
}

Run compile_batch_normalization(const KernelInput& k) {
  const graph::Node& n = k.node;
  if (n.attr_int("training_mode", 0) != 0)
    throw graph::node_error(n, "training_mode=1 is not supported (inference only)");
  for (size_t o = 1; o < n.outputs.size(); ++o)
    if (!n.outputs[o].empty())
      throw graph::node_error(n, "running mean/var outputs are not supported (inference only)");
  const graph::Shape x = k.shapes.at(0);
  if (x.size() < 2) throw graph::node_error(n, "input must have rank >= 2");
  const int64_t c = x[1];
  const std::vector<float> scale = constant_floats(k, 1, "scale");
  const std::vector<float> bias = constant_floats(k, 2, "B");
  const std::vector<float> mean = constant_floats(k, 3, "input_mean");
  const std::vector<float> var = constant_floats(k, 4, "input_var");
  for (const auto* v : {&scale, &bias, &mean, &var})
    if (static_cast<int64_t>(v->size()) != c)
      throw graph::node_error(n, "statistics must have ", c, " values (one per channel), got ",
                              v->size());
  const double eps = n.attr_float("epsilon", 1e-5);
  // y = x * a + b per channel.
  std::vector<float> a(static_cast<size_t>(c)), b(static_cast<size_t>(c));
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(scale[i] / std::sqrt(static_cast<double>(var[i]) + eps));
    b[i] = bias[i] - mean[i] * a[i];
  }
  int64_t inner = 1;
  for (size_t d = 2; d < x.size(); ++d) inner *= x[d];
  const int64_t outer = x[0];
  return
      [a, b, c, inner, outer](const std::vector<const float*>& in, const std::vector<float*>& out) {
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t ch = 0; ch < c; ++ch) {
            const float* src = in[0] + (o * c + ch) * inner;
            float* dst = out[0] + (o * c + ch) * inner;
            const float aa = a[static_cast<size_t>(ch)], bb = b[static_cast<size_t>(ch)];
            for (int64_t i = 0; i < inner; ++i) dst[i] = src[i] * aa + bb;
          }
      };
}

// ---- shape rules and constant evaluators (ops/shape_rule.h)

using namespace shape_rules;

using F = Fill;

Infos batch_norm(const Ctx& c) {
  c.arity(5, 5, 1, 3);
  const Shape& x = c.shape(0);
  if (x.size() < 2) c.fail("input must have rank >= 2 (N, C, ...), got ", shape_str(x));
  static constexpr std::string_view kNames[] = {"", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; ++i) {
    const Shape& p = c.shape(i);
    if (p.size() != 1 || (x[1] >= 0 && p[0] >= 0 && p[0] != x[1])) {
      c.fail(kNames[i], " has shape ", shape_str(p), ", expected ", x[1],
             " (the input's channels)");
    }
  }
  Infos out = {c.info(0)};
  for (size_t i = 1; i < c.node().outputs.size(); ++i) out.push_back({c.dtype(3), Shape{x[1]}});
  return out;
}

}  // namespace

std::vector<Family> normalization_family() {
  return {{.op = "BatchNormalization",
           .family = "batchnorm",
           .compile = compile_batch_normalization,
           .shape = batch_norm,
           .params = {1, 2},
           .fill = {F::Generic, F::One, F::Zero, F::Zero, F::One}}};
}

}  // namespace hetcim::ops
