// LayerNormalization (opset 17; passes::fuse_layer_norm makes it from the opset-13 decomposition
// ReduceMean, Sub, Pow, ReduceMean, Add eps, Sqrt, Div, Mul, Add): over the dimensions from `axis`
// on, Scale and optional B of that trailing shape (or one value). Per row: the mean and the
// variance around it in 16 float lanes each (two passes over a row that sits in L1), then one
// vectorised pass y = (x - mean) * (Scale / sd) + B.
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

__attribute__((target_clones("avx512f", "avx2", "default"))) void normalize_row(
    const float* x, float* y, int64_t n, const float* sc, const float* bi, float eps) {
  constexpr int L = 16;
  float part[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int l = 0; l < L; ++l) part[l] += x[i + l];
  float sum = 0.0f;
  for (float p : part) sum += p;
  for (; i < n; ++i) sum += x[i];
  const float mean = sum / static_cast<float>(n);
  float sq[L] = {};
  i = 0;
  for (; i + L <= n; i += L)
    for (int l = 0; l < L; ++l) {
      const float d = x[i + l] - mean;
      sq[l] += d * d;
    }
  float var = 0.0f;
  for (float p : sq) var += p;
  for (; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  var /= static_cast<float>(n);
  const float inv = 1.0f / std::sqrt(var + eps);
  for (i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * sc[i] + bi[i];
}

Run compile_layer_normalization(const KernelInput& k) {
  const graph::Node& n = k.node;
  for (size_t o = 1; o < n.outputs.size(); ++o)
    if (!n.outputs[o].empty())
      throw graph::node_error(n, "the Mean and InvStdDev outputs are not supported");
  const graph::Shape x = k.shapes.at(0);
  const auto rank = static_cast<int64_t>(x.size());
  const int64_t axis = graph::normalize_axis(n, n.attr_int("axis", -1), rank);
  if (n.attr_int("stash_type", 1) != 1)
    throw graph::node_error(n, "stash_type must be 1 (float32)");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= x[static_cast<size_t>(d)];
  const std::vector<float> scale = constant_floats(k, 1, "Scale");
  std::vector<float> bias(static_cast<size_t>(inner), 0.0f);
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) bias = constant_floats(k, 2, "B");
  // Scale and B broadcast to the normalized shape; hetcim takes them whole or as one value.
  auto expand = [&](std::vector<float> v, const char* what) {
    if (static_cast<int64_t>(v.size()) == inner) return v;
    if (v.size() == 1) return std::vector<float>(static_cast<size_t>(inner), v[0]);
    throw graph::node_error(n, what, " has ", v.size(), " values, expected 1 or ", inner);
  };
  const std::vector<float> sc = expand(scale, "Scale"), bi = expand(bias, "B");
  const auto eps = static_cast<float>(n.attr_float("epsilon", 1e-5));
  return [sc, bi, outer, inner, eps](const std::vector<const float*>& in,
                                     const std::vector<float*>& out) {
#pragma omp parallel for schedule(static) if (outer > 1 && outer * inner >= (int64_t{1} << 16))
    for (int64_t o = 0; o < outer; ++o)
      normalize_row(in[0] + o * inner, out[0] + o * inner, inner, sc.data(), bi.data(), eps);
  };
}

// ---- shape rules and constant evaluators (ops/shape_rule.h)

using namespace shape_rules;

Infos layer_norm(const Ctx& c) {
  c.arity(2, 3, 1, 3);
  const Shape& x = c.shape(0);
  const int64_t axis = c.axis(c.node().attr_int("axis", -1), c.rank(0));
  Shape stat(x.begin(), x.begin() + axis);
  stat.resize(x.size(), 1);
  Infos out = {c.info(0)};
  for (size_t i = 1; i < c.node().outputs.size(); ++i) out.push_back({DType::Float32, stat});
  return out;
}

}  // namespace

std::vector<Family> layer_norm_family() {
  return {{.op = "LayerNormalization",
           .family = "layer_norm",
           .compile = compile_layer_normalization,
           .shape = layer_norm}};
}

}  // namespace hetcim::ops
