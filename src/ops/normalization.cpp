// Standalone BatchNormalization (inference: constant statistics, per channel of axis 1); the
// engine's own fused BatchNorm kernel takes the 4-D cases with per-channel constants first.
// InstanceNormalization (ONNX opset 6): per sample and channel of x [N, C, D1, ...], over the
// spatial extent, y = (x - mean) / sqrt(var + epsilon) * scale[c] + B[c] (var without Bessel's
// correction). torch exports nn.InstanceNorm*d as it and, below opset 18, nn.GroupNorm (FCOS's and
// RetinaNet-v2's heads, diffusion U-Nets) as Reshape [N, G, -1] -> InstanceNormalization (scale 1,
// B 0) -> Reshape -> Mul -> Add. Its kernel: each instance's mean and variance in 8 double lanes
// (two passes), then one vectorised y = (x - mean) * a + b; its reference kernel is written apart
// below.
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

// Mean and variance (around the mean) of x[0, n), in 8 double lanes per pass.
__attribute__((target_clones("avx512f", "avx2", "default"))) void instance_moments(const float* x,
                                                                                   int64_t n,
                                                                                   double& mean,
                                                                                   double& var) {
  constexpr int L = 8;
  double part[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int l = 0; l < L; ++l) part[l] += x[i + l];
  double sum = 0.0;
  for (double p : part) sum += p;
  for (; i < n; ++i) sum += x[i];
  mean = sum / static_cast<double>(n);
  double sq[L] = {};
  i = 0;
  for (; i + L <= n; i += L)
    for (int l = 0; l < L; ++l) {
      const double d = x[i + l] - mean;
      sq[l] += d * d;
    }
  double ss = 0.0;
  for (double p : sq) ss += p;
  for (; i < n; ++i) ss += (x[i] - mean) * (x[i] - mean);
  var = ss / static_cast<double>(n);
}

// y = (x - m) * a + b: the mean subtracted first, so an instance of near-constant values (a small
// deviation, a large a) keeps its accuracy.
__attribute__((target_clones("avx512f", "avx2", "default"))) void normalize_instance(
    const float* x, float* y, int64_t n, float m, float a, float b) {
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) * a + b;
}

// x's (N, C, spatial extent) and the per-channel scale and B of an InstanceNormalization.
struct Instances {
  int64_t batch = 0, channels = 0, inner = 1;
  std::vector<float> scale, bias;
  double eps = 1e-5;
};

Instances instances(const KernelInput& k) {
  const graph::Node& n = k.node;
  const graph::Shape& x = k.shapes.at(0);
  if (x.size() < 3) throw graph::node_error(n, "input must have rank >= 3 (N, C, D1, ...)");
  Instances s;
  s.batch = x[0];
  s.channels = x[1];
  for (size_t d = 2; d < x.size(); ++d) s.inner *= x[d];
  s.scale = constant_floats(k, 1, "scale");
  s.bias = constant_floats(k, 2, "B");
  for (const auto* v : {&s.scale, &s.bias})
    if (static_cast<int64_t>(v->size()) != s.channels)
      throw graph::node_error(n, "scale and B must have ", s.channels,
                              " values (one per channel), got ", v->size());
  s.eps = n.attr_float("epsilon", 1e-5);
  return s;
}

Run compile_instance_normalization(const KernelInput& k) {
  const Instances s = instances(k);
  return [s](const std::vector<const float*>& in, const std::vector<float*>& out) {
    const int64_t count = s.batch * s.channels;
#pragma omp parallel for schedule(static) if (count > 1 && count * s.inner >= (int64_t{1} << 16))
    for (int64_t i = 0; i < count; ++i) {
      const float* x = in[0] + i * s.inner;
      double mean = 0.0, var = 0.0;
      instance_moments(x, s.inner, mean, var);
      const auto ch = static_cast<size_t>(i % s.channels);
      normalize_instance(x, out[0] + i * s.inner, s.inner, static_cast<float>(mean),
                         static_cast<float>(s.scale[ch] / std::sqrt(var + s.eps)), s.bias[ch]);
    }
  };
}

// The reference interpreter's InstanceNormalization (Family::reference): the definition as
// written, one instance after another in double, each output rounded once.
Run reference_instance_normalization(const KernelInput& k) {
  const Instances s = instances(k);
  return [s](const std::vector<const float*>& in, const std::vector<float*>& out) {
    for (int64_t b = 0; b < s.batch; ++b)
      for (int64_t c = 0; c < s.channels; ++c) {
        const int64_t at = (b * s.channels + c) * s.inner;
        double mean = 0.0;
        for (int64_t i = 0; i < s.inner; ++i) mean += in[0][at + i];
        mean /= static_cast<double>(s.inner);
        double var = 0.0;
        for (int64_t i = 0; i < s.inner; ++i)
          var += (in[0][at + i] - mean) * (in[0][at + i] - mean);
        var /= static_cast<double>(s.inner);
        const double sd = std::sqrt(var + s.eps);
        for (int64_t i = 0; i < s.inner; ++i)
          out[0][at + i] =
              static_cast<float>((in[0][at + i] - mean) / sd * s.scale[static_cast<size_t>(c)] +
                                 s.bias[static_cast<size_t>(c)]);
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

Infos instance_norm(const Ctx& c) {
  c.arity(3, 3, 1, 1);
  const Shape& x = c.shape(0);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, D1, ...), got ", shape_str(x));
  for (size_t i : {1, 2}) {
    const Shape& p = c.shape(i);
    if (p.size() != 1 || (x[1] >= 0 && p[0] >= 0 && p[0] != x[1])) {
      c.fail(i == 1 ? "scale" : "B", " has shape ", shape_str(p), ", expected ", x[1],
             " (the input's channels)");
    }
  }
  return {c.info(0)};
}

}  // namespace

std::vector<Family> normalization_family() {
  return {{.op = "BatchNormalization",
           .family = "batchnorm",
           .compile = compile_batch_normalization,
           .shape = batch_norm,
           .params = {1, 2},
           .fill = {F::Generic, F::One, F::Zero, F::Zero, F::One}},
          {.op = "InstanceNormalization",
           .family = "instance_norm",
           .compile = compile_instance_normalization,
           .reference = reference_instance_normalization,
           .shape = instance_norm,
           .params = {1, 2},
           .fill = {F::Generic, F::One, F::Zero}}};
}

}  // namespace hetcim::ops
