// Softmax (opset 13: over one axis; before 13: over the input coerced to 2-D at `axis`). The last
// axis (every transformer's attention) runs row by row: max, exp(x - max) and their sum in one
// vectorised pass, then one scaling pass; another axis vectorises over the dimensions inside it.
// exp is ops/vector_math.h's (within 2 ulp of expf); the sum is float in 16 lanes.
#include "graph/node_errors.h"
#include "ops/families.h"
#include "ops/vector_math.h"

namespace hetcim::ops {
namespace {

__attribute__((target_clones("avx512f", "avx2", "default"))) void softmax_row(const float* x,
                                                                              float* y, int64_t n) {
  constexpr int L = 16;
  float mx[L];
  for (float& m : mx) m = -3.402823466e38f;
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int l = 0; l < L; ++l) mx[l] = x[i + l] > mx[l] ? x[i + l] : mx[l];
  float m = -3.402823466e38f;
  for (float v : mx) m = v > m ? v : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  float part[L] = {};
  i = 0;
  for (; i + L <= n; i += L)
    for (int l = 0; l < L; ++l) {
      const float e = exp_approx(x[i + l] - m);
      y[i + l] = e;
      part[l] += e;
    }
  float sum = 0.0f;
  for (float p : part) sum += p;
  for (; i < n; ++i) {
    y[i] = exp_approx(x[i] - m);
    sum += y[i];
  }
  const float inv = 1.0f / sum;
  for (i = 0; i < n; ++i) y[i] *= inv;
}

// Softmax over the middle extent n of x[n][inner] (inner > 1): vectorised across inner.
__attribute__((target_clones("avx512f", "avx2", "default"))) void softmax_strided(
    const float* x, float* y, int64_t n, int64_t inner, float* mx, float* sum) {
  for (int64_t j = 0; j < inner; ++j) mx[j] = x[j];
  for (int64_t a = 1; a < n; ++a)
    for (int64_t j = 0; j < inner; ++j) mx[j] = x[a * inner + j] > mx[j] ? x[a * inner + j] : mx[j];
  for (int64_t j = 0; j < inner; ++j) sum[j] = 0.0f;
  for (int64_t a = 0; a < n; ++a)
    for (int64_t j = 0; j < inner; ++j) {
      const float e = exp_approx(x[a * inner + j] - mx[j]);
      y[a * inner + j] = e;
      sum[j] += e;
    }
  for (int64_t j = 0; j < inner; ++j) sum[j] = 1.0f / sum[j];
  for (int64_t a = 0; a < n; ++a)
    for (int64_t j = 0; j < inner; ++j) y[a * inner + j] *= sum[j];
}

Run compile_softmax(const KernelInput& k) {
  const graph::Node& n = k.node;
  const graph::Shape xs = k.shapes.at(0);
  const auto r = static_cast<int64_t>(xs.size());
  const int64_t axis = graph::normalize_axis(n, n.attr_int("axis", k.opset >= 13 ? -1 : 1), r);
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t d = 0; d < r; ++d) {
    const int64_t e = xs[static_cast<size_t>(d)];
    if (d < axis) {
      outer *= e;
    } else if (d == axis || k.opset < 13) {  // before 13: everything from axis on is one row
      len *= e;
    } else {
      inner *= e;
    }
  }
  if (inner == 1)
    return [outer, len](const std::vector<const float*>& in, const std::vector<float*>& out) {
#pragma omp parallel for schedule(static) if (outer > 1 && outer * len >= (int64_t{1} << 16))
      for (int64_t o = 0; o < outer; ++o) softmax_row(in[0] + o * len, out[0] + o * len, len);
    };
  return [outer, len, inner](const std::vector<const float*>& in, const std::vector<float*>& out) {
    std::vector<float> mx(static_cast<size_t>(inner)), sum(static_cast<size_t>(inner));
    for (int64_t o = 0; o < outer; ++o)
      softmax_strided(in[0] + o * len * inner, out[0] + o * len * inner, len, inner, mx.data(),
                      sum.data());
  };
}

// ---- shape rules and constant evaluators (ops/shape_rule.h)

using namespace shape_rules;

Infos softmax(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  const int64_t fallback = c.opset() >= 13 ? -1 : 1;
  (void)c.axis(c.node().attr_int("axis", fallback), c.rank(0));
  return same_as_input(c);
}

}  // namespace

std::vector<Family> softmax_family() {
  return {{.op = "Softmax", .family = "softmax", .compile = compile_softmax, .shape = softmax}};
}

}  // namespace hetcim::ops
