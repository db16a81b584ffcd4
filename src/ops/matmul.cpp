// The dense products: Gemm and MatMul and their int8 forms QGemm (com.microsoft) and
// QLinearMatMul. Their kernels are oneDNN's (exec/families/matmul.cpp, int8_one_pass.cpp); the
// shape rules are here.
#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

using F = Fill;

Infos gemm(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  const Shape& a = c.shape(0);
  const Shape& b = c.shape(1);
  if (a.size() != 2) c.fail("A must be a matrix, got ", shape_str(a));
  if (b.size() != 2) c.fail("B must be a matrix, got ", shape_str(b));
  const bool ta = c.node().attr_int("transA", 0) != 0;
  const bool tb = c.node().attr_int("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (ka >= 0 && kb >= 0 && ka != kb) {
    c.fail("A ", shape_str(a), (ta ? " (transA=1)" : ""), " has K = ", ka, " but B ", shape_str(b),
           (tb ? " (transB=1)" : ""), " has K = ", kb);
  }
  const Shape out = {m, n};
  if (c.has(2)) {
    const Shape& bias = c.shape(2);
    if (bias.size() > 2) c.fail("C ", shape_str(bias), " has rank > 2");
    for (size_t i = 0; i < bias.size(); ++i) {
      const int64_t d = bias[i], o = out[2 - bias.size() + i];
      if (d != 1 && d >= 0 && o >= 0 && d != o) {
        c.fail("C ", shape_str(bias), " cannot be broadcast to the output ", shape_str(out));
      }
    }
  }
  return {{c.dtype(0), out}};
}

Infos matmul(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  Shape a = c.shape(0), b = c.shape(1);
  if (a.empty() || b.empty()) c.fail("inputs must have rank >= 1");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  const int64_t ka = a.back(), kb = b[b.size() - 2];
  if (ka >= 0 && kb >= 0 && ka != kb) {
    c.fail("inner dimensions differ: ", shape_str(c.shape(0)), " times ", shape_str(c.shape(1)));
  }
  Shape out = broadcast(c, Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return {{c.dtype(0), out}};
}

}  // namespace

std::vector<Family> matmul_family() {
  return {{.op = "Gemm",
           .family = "gemm",
           .shape = gemm,
           .operands = float_weighted(2),
           .gemm = GemmView::Gemm,
           .params = {1, 2},
           .fill = {F::Generic, F::Weight, F::Zero},
           .qform = "QGemm",
           .qlayout = QLayout::Weighted,
           .takes_activation = true,
           .int8_runs = true},
          {.op = "QGemm",
           .family = "qgemm",
           .domain = kMicrosoft,
           .operands = qlinear_weighted(6, 7),
           .gemm = GemmView::Gemm,
           .params = {3, 6},
           .qform = "Gemm",
           .qlayout = QLayout::Weighted,
           .quantized = true,
           .takes_activation = true},
          {.op = "MatMul",
           .family = "matmul",
           .shape = matmul,
           .operands = float_weighted(std::nullopt),
           .gemm = GemmView::MatMul,
           .params = {0, 1},
           .fill = {F::Generic, F::Weight},
           .qform = "QLinearMatMul",
           .qlayout = QLayout::Weighted,
           .takes_activation = true,
           .int8_runs = true},
          {.op = "QLinearMatMul",
           .family = "qmatmul",
           .operands = qlinear_weighted(std::nullopt, 6),
           .gemm = GemmView::MatMul,
           .params = {0, 3},
           .qform = "MatMul",
           .qlayout = QLayout::Weighted,
           .quantized = true,
           .takes_activation = true}};
}

}  // namespace hetcim::ops
