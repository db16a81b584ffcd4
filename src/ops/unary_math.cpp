// Elementwise math oneDNN has no eltwise algorithm for (Erf: the exact GELU's building block) or
// that exporters emit in decomposed normalisations (Sqrt).
#include <cmath>

#include "ops/families.h"

namespace hetcim::ops {
namespace {

template <float (*F)(float)>
Run elementwise(const KernelInput& k) {
  const int64_t count = graph::element_count(k.shapes.at(0));
  return [count](const std::vector<const float*>& in, const std::vector<float*>& out) {
    for (int64_t i = 0; i < count; ++i) out[0][i] = F(in[0][i]);
  };
}

float erf_f(float x) {
  return std::erf(x);
}
float sqrt_f(float x) {
  return std::sqrt(x);
}

}  // namespace

Run compile_erf(const KernelInput& k) {
  return elementwise<erf_f>(k);
}
Run compile_sqrt(const KernelInput& k) {
  return elementwise<sqrt_f>(k);
}

}  // namespace hetcim::ops
