// Gelu (ONNX opset 20; passes::fuse_gelu makes it from the opset-13 decompositions torch exports):
// approximate "none": y = x/2 (1 + erf(x / sqrt 2)); "tanh": y = x/2 (1 + tanh(sqrt(2/pi) (x +
// 0.044715 x^3))). One vectorised pass. erf comes from erfc's Chebyshev fit (Numerical Recipes,
// 6.2: fractional error below 1.2e-7), 1 + erf(z) taken as 2 - erfc(z) for z >= 0 and erfc(-z)
// below, so nothing cancels for negative inputs; tanh's form is x * sigmoid(2u). exp is
// ops/vector_math.h's. Accuracy against the exact formula: about 1e-6 relative to |x|.
#include "graph/node_errors.h"
#include "ops/families.h"
#include "ops/vector_math.h"

namespace hetcim::ops {
namespace {

inline float one_plus_erf(float z) {
  const float a = z < 0.0f ? -z : z;
  const float t = 1.0f / (1.0f + 0.5f * a);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  const float erfc = t * exp_approx(-a * a + p);
  return z < 0.0f ? erfc : 2.0f - erfc;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void gelu_erf(const float* x, float* y,
                                                                           int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * one_plus_erf(x[i] * 0.70710678118654752f);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void gelu_tanh(const float* x,
                                                                            float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float u = 0.79788456080286536f * (v + 0.044715f * v * v * v);
    y[i] = v / (1.0f + exp_approx(-2.0f * u));
  }
}

Run compile_gelu(const KernelInput& k) {
  const graph::Node& n = k.node;
  const std::string approximate = n.attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    throw graph::node_error(n, "attribute approximate is '", approximate,
                            "', expected 'none' or 'tanh'");
  const int64_t count = graph::element_count(k.shapes.at(0));
  const bool tanh_form = approximate == "tanh";
  return [count, tanh_form](const std::vector<const float*>& in, const std::vector<float*>& out) {
    constexpr int64_t kChunk = int64_t{1} << 14;
    const int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 4)
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t s = c * kChunk, len = std::min(kChunk, count - s);
      (tanh_form ? gelu_tanh : gelu_erf)(in[0] + s, out[0] + s, len);
    }
  };
}

}  // namespace

std::vector<Family> gelu_family() {
  return {{.op = "Gelu", .family = "gelu", .compile = compile_gelu}};
}

}  // namespace hetcim::ops
