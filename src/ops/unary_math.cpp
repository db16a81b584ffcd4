// Elementwise math oneDNN has no eltwise algorithm for (Erf: the exact GELU's building block) or
// that exporters emit in decomposed normalisations (Sqrt); Neg and Abs of constants (shape
// subgraphs only).
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

Run compile_erf(const KernelInput& k) {
  return elementwise<erf_f>(k);
}
Run compile_sqrt(const KernelInput& k) {
  return elementwise<sqrt_f>(k);
}

// ---- shape rules and constant evaluators (ops/shape_rule.h)

using namespace shape_rules;

template <bool Neg>
Value fold_neg_or_abs(const Ctx& c, const TensorInfo&, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  ConstValue v = *x;
  for (int64_t& i : v.ints) {
    if (i == std::numeric_limits<int64_t>::min()) return std::nullopt;
    i = Neg ? -i : std::abs(i);
  }
  for (double& f : v.floats) f = Neg ? -f : std::abs(f);
  return v;
}

}  // namespace

std::vector<Family> unary_math_family() {
  return {{.op = "Erf", .family = "unary_math", .compile = compile_erf, .shape = unary},
          {.op = "Sqrt", .family = "unary_math", .compile = compile_sqrt, .shape = unary},
          {.op = "Neg",
           .family = "unary_math",
           .runs = false,
           .shape = unary,
           .fold = fold_neg_or_abs<true>},
          {.op = "Abs",
           .family = "unary_math",
           .runs = false,
           .shape = unary,
           .fold = fold_neg_or_abs<false>}};
}

}  // namespace hetcim::ops
