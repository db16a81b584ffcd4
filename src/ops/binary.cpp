// Add, Sub, Mul, Div and Pow on float32 with ONNX (numpy) broadcasting on either side, any rank:
// the operand strides are coalesced so the innermost run is as long as the shapes allow, and
// each run is one vectorised loop with each operand either streamed or held as a scalar. The
// fused activation passes::fuse_activation records (Relu, Clip) is applied on the way out. One
// IEEE rounding per element, like oneDNN's binary kernels, whose jit versions the engine still
// prefers when they take the node (same-shape and per-channel cases in its own layouts).
// The family's rows (with QLinearAdd / QLinearMul, whose kernels are exec/families/
// qlinear_eltwise.cpp, and Mod, which only shape subgraphs use), its shape rules and the constant
// evaluator of Add, Sub, Mul, Div, Pow and Mod follow the kernel.
#include <cmath>
#include <limits>

#include "graph/node_errors.h"
#include "ops/families.h"

namespace hetcim::ops {
namespace {

enum Kind { kAdd, kSub, kMul, kDiv, kPow };

// One run of `len` outputs; sa / sb are 1 (streamed) or 0 (a scalar held for the run).
__attribute__((target_clones("avx512f", "avx2", "default"))) void run_row(
    int kind, const float* a, int64_t sa, const float* b, int64_t sb, float* y, int64_t len) {
#define HETCIM_BINARY_LOOPS(EXPR)               \
  if (sa == 1 && sb == 1) {                     \
    for (int64_t i = 0; i < len; ++i) {         \
      const float u = a[i], v = b[i];           \
      y[i] = EXPR;                              \
    }                                           \
  } else if (sa == 1) {                         \
    const float v = b[0];                       \
    for (int64_t i = 0; i < len; ++i) {         \
      const float u = a[i];                     \
      y[i] = EXPR;                              \
    }                                           \
  } else if (sb == 1) {                         \
    const float u = a[0];                       \
    for (int64_t i = 0; i < len; ++i) {         \
      const float v = b[i];                     \
      y[i] = EXPR;                              \
    }                                           \
  } else {                                      \
    const float u = a[0], v = b[0];             \
    const float r = EXPR;                       \
    for (int64_t i = 0; i < len; ++i) y[i] = r; \
  }
  switch (kind) {
    case kAdd:
      HETCIM_BINARY_LOOPS(u + v) break;
    case kSub:
      HETCIM_BINARY_LOOPS(u - v) break;
    case kMul:
      HETCIM_BINARY_LOOPS(u * v) break;
    case kDiv:
      HETCIM_BINARY_LOOPS(u / v) break;
    default:
      HETCIM_BINARY_LOOPS(std::pow(u, v)) break;
  }
#undef HETCIM_BINARY_LOOPS
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void clamp_row(float* y, int64_t len,
                                                                            float lo, float hi) {
  for (int64_t i = 0; i < len; ++i) y[i] = y[i] < lo ? lo : (y[i] > hi ? hi : y[i]);
}

int kind_of(const graph::Node& n) {
  const std::string& op = n.op_type;
  if (op == "Add") return kAdd;
  if (op == "Sub") return kSub;
  if (op == "Mul") return kMul;
  if (op == "Div") return kDiv;
  if (op == "Pow") return kPow;
  throw graph::node_error(n, "not a binary arithmetic operator");
}

Run compile_binary(const KernelInput& k) {
  const graph::Node& n = k.node;
  const int kind = kind_of(n);
  const graph::Shape ys = k.out_shapes.at(0);
  const size_t r = ys.size();
  // Per output dimension: extent and each operand's element stride (0 where it broadcasts).
  std::vector<int64_t> dim(ys.begin(), ys.end());
  std::vector<int64_t> st[2] = {std::vector<int64_t>(r, 0), std::vector<int64_t>(r, 0)};
  for (int o = 0; o < 2; ++o) {
    const graph::Shape& s = k.shapes.at(static_cast<size_t>(o));
    if (s.size() > r)
      throw graph::node_error(n, "operand ", o, " has a higher rank than the output");
    int64_t stride = 1;
    for (size_t d = s.size(); d-- > 0;) {
      const size_t od = r - s.size() + d;
      if (s[d] != 1 && s[d] != ys[od])
        throw graph::node_error(n, "operand ", o, " of shape ", graph::shape_str(s),
                                " does not broadcast to ", graph::shape_str(ys));
      st[o][od] = s[d] == 1 ? 0 : stride;
      stride *= s[d];
    }
  }
  // Coalesce: drop extent-1 dimensions, merge a dimension into the next inner one when both
  // operands (and the row-major output) step through them as one.
  std::vector<int64_t> cd, ca, cb;
  for (size_t d = 0; d < r; ++d) {
    if (dim[d] == 1) continue;
    cd.push_back(dim[d]);
    ca.push_back(st[0][d]);
    cb.push_back(st[1][d]);
  }
  std::vector<int64_t> md, ma, mb;  // merged, outermost first
  for (size_t d = 0; d < cd.size(); ++d) {
    if (!md.empty() && ma.back() == ca[d] * cd[d] && mb.back() == cb[d] * cd[d]) {
      md.back() *= cd[d];
      ma.back() = ca[d];
      mb.back() = cb[d];
      continue;
    }
    md.push_back(cd[d]);
    ma.push_back(ca[d]);
    mb.push_back(cb[d]);
  }
  if (md.empty()) {
    md = {1};
    ma = {0};
    mb = {0};
  }
  // Fused activation (passes::fuse_activation on an Add).
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  const std::string act = n.attr_string("activation", "");
  if (act == "Relu") {
    lo = 0.0f;
  } else if (act == "Clip") {
    lo = static_cast<float>(n.attr_float("activation_min", -INFINITY));
    hi = static_cast<float>(n.attr_float("activation_max", INFINITY));
  } else if (!act.empty()) {
    throw graph::node_error(n, "unknown fused activation '", act, "'");
  }
  const bool clamp = !act.empty();
  const int64_t len = md.back(), sa = ma.back(), sb = mb.back();
  const size_t outer_rank = md.size() - 1;
  int64_t rows = 1;
  for (size_t d = 0; d < outer_rank; ++d) rows *= md[d];
  // The innermost stride of an operand is 0 (broadcast) or 1 (its own last dimension): run_row
  // relies on it.
  if ((sa != 0 && sa != 1) || (sb != 0 && sb != 1))
    throw graph::node_error(n, "internal: inner strides ", sa, ", ", sb);
  return [=](const std::vector<const float*>& in, const std::vector<float*>& out) {
    const float* a = in[0];
    const float* b = in[1];
    float* y = out[0];
#pragma omp parallel for schedule(static) if (rows > 1 && rows * len >= (int64_t{1} << 16))
    for (int64_t row = 0; row < rows; ++row) {
      int64_t oa = 0, ob = 0, rem = row;
      for (size_t d = outer_rank; d-- > 0;) {
        const int64_t i = rem % md[d];
        rem /= md[d];
        oa += i * ma[d];
        ob += i * mb[d];
      }
      float* yr = y + row * len;
      run_row(kind, a + oa, sa, b + ob, sb, yr, len);
      if (clamp) clamp_row(yr, len, lo, hi);
    }
  };
}

// ---- shape rules and constant evaluators (ops/shape_rule.h)

using namespace shape_rules;

// Add, Sub, Mul, Div, Mod: operands of one dtype; Pow: any two (numpy broadcasting).
Infos broadcast_binary(const Ctx& c, bool same_dtype) {
  c.arity(2, 2, 1, 1);
  if (same_dtype && c.dtype(0) != c.dtype(1)) {
    c.fail("input dtypes differ: ", dtype_name(c.dtype(0)), " and ", dtype_name(c.dtype(1)));
  }
  return {{c.dtype(0), broadcast(c, c.shape(0), c.shape(1))}};
}
Infos arithmetic(const Ctx& c) {
  return broadcast_binary(c, true);
}
Infos power(const Ctx& c) {
  return broadcast_binary(c, false);
}

enum class Arith { Add, Sub, Mul, Div, Mod, Pow };

// Integer floor modulo with the divisor's sign (ONNX Mod, fmod = 0).
int64_t floor_mod(int64_t x, int64_t y) {
  const int64_t r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}

// Arithmetic of two constants with numpy broadcasting: integers exactly (integer Div truncates,
// integer Mod takes the divisor's sign unless fmod = 1; nullopt on overflow; integer Pow is left to
// run time), floating point in double rounded to a float32 output (Pow: a transformer's attention
// scale, head_dim ** -0.5, as torch exports it).
template <Arith K>
Value fold_arithmetic(const Ctx& c, const TensorInfo& out, int64_t) {
  const std::optional<ConstOperands> o = const_operands(c, out);
  if (!o) return std::nullopt;
  const auto& [a, b, ia, ib] = *o;
  ConstValue r = empty_like(out);
  const bool ints = a.is_int && b.is_int;
  const bool fmod = c.node().attr_int("fmod", 0) != 0;
  for (size_t e = 0; e < ia.size(); ++e) {
    if (ints && r.is_int) {
      const int64_t x = a.ints[ia[e]], y = b.ints[ib[e]];
      int64_t v = 0;
      bool overflow = false;
      if constexpr (K == Arith::Pow) {
        return std::nullopt;
      } else if constexpr (K == Arith::Add) {
        overflow = __builtin_add_overflow(x, y, &v);
      } else if constexpr (K == Arith::Sub) {
        overflow = __builtin_sub_overflow(x, y, &v);
      } else if constexpr (K == Arith::Mul) {
        overflow = __builtin_mul_overflow(x, y, &v);
      } else {
        if (y == 0) c.fail("integer ", K == Arith::Div ? "division" : "modulo", " by zero");
        overflow = x == std::numeric_limits<int64_t>::min() && y == -1;
        if (!overflow) {
          if constexpr (K == Arith::Div)
            v = x / y;  // ONNX integer Div truncates toward zero, as C++ does
          else
            v = fmod ? x % y : floor_mod(x, y);
        }
      }
      if (overflow) return std::nullopt;
      r.ints.push_back(v);
      continue;
    }
    if (r.is_int) return std::nullopt;  // mixed kinds into an integer output: not ONNX
    const double x = as_double(a, ia[e]), y = as_double(b, ib[e]);
    double v = 0.0;
    if constexpr (K == Arith::Add) {
      v = x + y;
    } else if constexpr (K == Arith::Sub) {
      v = x - y;
    } else if constexpr (K == Arith::Mul) {
      v = x * y;
    } else if constexpr (K == Arith::Div) {
      v = x / y;
    } else if constexpr (K == Arith::Pow) {
      v = std::pow(x, y);
    } else {
      if (!fmod) c.fail("floating-point Mod requires fmod = 1");
      v = std::fmod(x, y);
    }
    // Rounded to the float32 result the operator would compute (exact for + - * / of floats;
    // Pow: the correctly rounded power, or one unit in the last place from it).
    r.floats.push_back(out.dtype == DType::Float32 ? static_cast<double>(static_cast<float>(v))
                                                   : v);
  }
  return r;
}

}  // namespace

std::vector<Family> binary_family() {
  return {{.op = "Add",
           .family = "binary",
           .compile = compile_binary,
           .activations = {0, 1},
           .shape = arithmetic,
           .fold = fold_arithmetic<Arith::Add>,
           .qform = "QLinearAdd",
           .qlayout = QLayout::Binary,
           .takes_activation = true,
           .int8_runs = true,
           .nhwc = true},
          {.op = "Sub",
           .family = "binary",
           .compile = compile_binary,
           .activations = {0, 1},
           .shape = arithmetic,
           .fold = fold_arithmetic<Arith::Sub>},
          {.op = "Mul",
           .family = "binary",
           .compile = compile_binary,
           .activations = {0, 1},
           .shape = arithmetic,
           .fold = fold_arithmetic<Arith::Mul>,
           .qform = "QLinearMul",
           .qlayout = QLayout::Binary,
           .int8_runs = true,
           .nhwc = true},
          {.op = "Div",
           .family = "binary",
           .compile = compile_binary,
           .activations = {0, 1},
           .shape = arithmetic,
           .fold = fold_arithmetic<Arith::Div>},
          {.op = "Pow",
           .family = "binary",
           .compile = compile_binary,
           .activations = {0, 1},
           .shape = power,
           .fold = fold_arithmetic<Arith::Pow>},
          {.op = "Mod",
           .family = "binary",
           .runs = false,
           .shape = arithmetic,
           .fold = fold_arithmetic<Arith::Mod>},
          {.op = "QLinearAdd",
           .family = "qbinary",
           .domain = kMicrosoft,
           .qform = "Add",
           .qlayout = QLayout::Binary,
           .quantized = true,
           .takes_activation = true,
           .nhwc = true},
          {.op = "QLinearMul",
           .family = "qbinary",
           .domain = kMicrosoft,
           .qform = "Mul",
           .qlayout = QLayout::Binary,
           .quantized = true,
           .nhwc = true}};
}

}  // namespace hetcim::ops
