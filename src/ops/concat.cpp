// Concat and its int8 form QLinearConcat (com.microsoft). Kernels: exec/families/concat.cpp; the
// shape rule and the constant evaluator (shape subgraphs concatenate shape vectors) are here.
#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

Infos concat(const Ctx& c) {
  if (c.node().inputs.empty()) c.fail("expected at least one input");
  c.arity(1, c.node().inputs.size(), 1, 1);
  if (!c.node().has_attr("axis")) c.fail("attribute 'axis' is required");
  const Shape& first = c.shape(0);
  const int64_t r = static_cast<int64_t>(first.size());
  const size_t a = static_cast<size_t>(c.axis(c.node().attr_int("axis", 0), r));
  Shape out = first;
  for (size_t i = 1; i < c.node().inputs.size(); ++i) {
    const Shape& s = c.shape(i);
    if (s.size() != first.size()) {
      c.fail("input ", i, " has shape ", shape_str(s), ", input 0 has ", shape_str(first),
             " (ranks differ)");
    }
    if (c.dtype(i) != c.dtype(0)) {
      c.fail("input ", i, " has dtype ", dtype_name(c.dtype(i)), ", input 0 has ",
             dtype_name(c.dtype(0)));
    }
    for (size_t d = 0; d < s.size(); ++d) {
      if (d == a) {
        out[d] = (out[d] < 0 || s[d] < 0) ? -1 : out[d] + s[d];
      } else if (s[d] >= 0 && out[d] >= 0 && s[d] != out[d]) {
        c.fail("input ", i, " has shape ", shape_str(s), ", input 0 has ", shape_str(first),
               ": they must agree except on axis ", a);
      } else if (out[d] < 0) {
        out[d] = s[d];
      }
    }
  }
  return {{c.dtype(0), out}};
}

std::optional<ConstValue> concat_values(const Ctx& c, const Shape& out) {
  const size_t a =
      static_cast<size_t>(c.axis(c.node().attr_int("axis", 0), static_cast<int64_t>(out.size())));
  int64_t outer = 1;
  for (size_t d = 0; d < a; ++d) outer *= out[d];
  std::vector<const ConstValue*> parts;
  std::vector<int64_t> runs;  // elements per outer index in each part
  for (size_t i = 0; i < c.node().inputs.size(); ++i) {
    const ConstValue* v = c.value(i);
    if (!v) return std::nullopt;
    if (!parts.empty() && v->is_int != parts[0]->is_int) return std::nullopt;
    parts.push_back(v);
    const Shape& s = c.shape(i);
    int64_t run = 1;
    for (size_t d = a; d < s.size(); ++d) run *= s[d];
    runs.push_back(run);
  }
  ConstValue r;
  r.is_int = parts[0]->is_int;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto b = static_cast<size_t>(o * runs[i]), e = static_cast<size_t>((o + 1) * runs[i]);
      if (r.is_int)
        r.ints.insert(r.ints.end(), parts[i]->ints.begin() + b, parts[i]->ints.begin() + e);
      else
        r.floats.insert(r.floats.end(), parts[i]->floats.begin() + b, parts[i]->floats.begin() + e);
    }
  }
  return r;
}

Value fold_concat(const Ctx& c, const TensorInfo& out, int64_t) {
  if (!c.value(0)) return std::nullopt;
  return concat_values(c, *out.shape);
}

}  // namespace

std::vector<Family> concat_family() {
  return {{.op = "Concat",
           .family = "concat",
           .shape = concat,
           .fold = fold_concat,
           .qform = "QLinearConcat",
           .qlayout = QLayout::Concat,
           .int8_runs = true,
           .nhwc = true},
          {.op = "QLinearConcat",
           .family = "qconcat",
           .domain = kMicrosoft,
           .qform = "Concat",
           .qlayout = QLayout::Concat,
           .quantized = true,
           .nhwc = true}};
}

}  // namespace hetcim::ops
