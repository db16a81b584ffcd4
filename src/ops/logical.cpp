// Comparisons and logic, the operators of shape subgraphs that decide between shapes (Equal, Less,
// Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor, Not, Where): no executor runs them; shape
// inference evaluates them on constants and passes::fold_constants folds them.
#include <type_traits>

#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

// Equal, Less, Greater, LessOrEqual, GreaterOrEqual (operands of one dtype) and And, Or, Xor (bool
// operands): a bool tensor of the broadcast shape.
Infos compare_rule(const Ctx& c, bool bool_operands) {
  c.arity(2, 2, 1, 1);
  if (c.dtype(0) != c.dtype(1)) {
    c.fail("input dtypes differ: ", dtype_name(c.dtype(0)), " and ", dtype_name(c.dtype(1)));
  }
  if (bool_operands && c.dtype(0) != DType::Bool)
    c.fail("inputs must be bool, got ", dtype_name(c.dtype(0)));
  return {{DType::Bool, broadcast(c, c.shape(0), c.shape(1))}};
}
Infos comparison(const Ctx& c) {
  return compare_rule(c, false);
}
Infos logical(const Ctx& c) {
  return compare_rule(c, true);
}

Infos logical_not(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  if (c.dtype(0) != DType::Bool) c.fail("input must be bool, got ", dtype_name(c.dtype(0)));
  return same_as_input(c);
}

// Where(condition, X, Y): the three shapes broadcast together, X's dtype.
Infos where(const Ctx& c) {
  c.arity(3, 3, 1, 1);
  if (c.dtype(0) != DType::Bool) c.fail("condition must be bool, got ", dtype_name(c.dtype(0)));
  if (c.dtype(1) != c.dtype(2)) {
    c.fail("X has dtype ", dtype_name(c.dtype(1)), ", Y has ", dtype_name(c.dtype(2)));
  }
  return {{c.dtype(1), broadcast(c, broadcast(c, c.shape(0), c.shape(1)), c.shape(2))}};
}

enum class Compare { Equal, Less, Greater, LessEq, GreaterEq, And, Or, Xor };

template <class T>
bool compare_values(Compare k, T x, T y) {
  switch (k) {
    case Compare::Equal:
      return x == y;
    case Compare::Less:
      return x < y;
    case Compare::Greater:
      return x > y;
    case Compare::LessEq:
      return x <= y;
    case Compare::GreaterEq:
      return x >= y;
    case Compare::And:
      return std::is_integral_v<T> && x != 0 && y != 0;
    case Compare::Or:
      return std::is_integral_v<T> && (x != 0 || y != 0);
    case Compare::Xor:
      return std::is_integral_v<T> && ((x != 0) != (y != 0));
  }
  return false;
}

// A comparison of two constants with numpy broadcasting: integers exactly, else as doubles.
template <Compare K>
Value fold_compare(const Ctx& c, const TensorInfo& out, int64_t) {
  const std::optional<ConstOperands> o = const_operands(c, out);
  if (!o) return std::nullopt;
  const auto& [a, b, ia, ib] = *o;
  ConstValue r = empty_like(out);
  const bool ints = a.is_int && b.is_int;
  for (size_t e = 0; e < ia.size(); ++e) {
    const bool v = ints ? compare_values(K, a.ints[ia[e]], b.ints[ib[e]])
                        : compare_values(K, as_double(a, ia[e]), as_double(b, ib[e]));
    r.ints.push_back(v ? 1 : 0);
  }
  return r;
}

Value fold_logical_not(const Ctx& c, const TensorInfo&, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  ConstValue v;
  for (size_t i = 0; i < size_of(*x); ++i) v.ints.push_back(as_double(*x, i) == 0.0 ? 1 : 0);
  return v;
}

Value fold_where(const Ctx& c, const TensorInfo& out, int64_t) {
  const ConstValue* x = c.value(0);
  if (!x) return std::nullopt;
  const ConstValue* a = c.value(1);
  const ConstValue* b = c.value(2);
  if (!a || !b || a->is_int != b->is_int) return std::nullopt;
  const Shape& os = *out.shape;
  const Index ic = broadcast_index(os, c.shape(0));
  const Index ia = broadcast_index(os, c.shape(1));
  const Index ib = broadcast_index(os, c.shape(2));
  ConstValue v;
  v.is_int = a->is_int;
  for (size_t e = 0; e < ic.size(); ++e) {
    const bool take_a = as_double(*x, ic[e]) != 0.0;
    if (v.is_int)
      v.ints.push_back(take_a ? a->ints[ia[e]] : b->ints[ib[e]]);
    else
      v.floats.push_back(take_a ? a->floats[ia[e]] : b->floats[ib[e]]);
  }
  return v;
}

}  // namespace

std::vector<Family> logical_family() {
  return {{.op = "Equal",
           .family = "logical",
           .runs = false,
           .shape = comparison,
           .fold = fold_compare<Compare::Equal>},
          {.op = "Less",
           .family = "logical",
           .runs = false,
           .shape = comparison,
           .fold = fold_compare<Compare::Less>},
          {.op = "Greater",
           .family = "logical",
           .runs = false,
           .shape = comparison,
           .fold = fold_compare<Compare::Greater>},
          {.op = "LessOrEqual",
           .family = "logical",
           .runs = false,
           .shape = comparison,
           .fold = fold_compare<Compare::LessEq>},
          {.op = "GreaterOrEqual",
           .family = "logical",
           .runs = false,
           .shape = comparison,
           .fold = fold_compare<Compare::GreaterEq>},
          {.op = "And",
           .family = "logical",
           .runs = false,
           .shape = logical,
           .fold = fold_compare<Compare::And>},
          {.op = "Or",
           .family = "logical",
           .runs = false,
           .shape = logical,
           .fold = fold_compare<Compare::Or>},
          {.op = "Xor",
           .family = "logical",
           .runs = false,
           .shape = logical,
           .fold = fold_compare<Compare::Xor>},
          {.op = "Not",
           .family = "logical",
           .runs = false,
           .shape = logical_not,
           .fold = fold_logical_not},
          {.op = "Where", .family = "logical", .runs = false, .shape = where, .fold = fold_where}};
}

}  // namespace hetcim::ops
