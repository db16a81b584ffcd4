// Shape rules of element-wise operators: broadcasting binaries, unary and shape-preserving ops,
// Cast, ConstantOfShape, QuantizeLinear / DequantizeLinear.
#include <algorithm>
#include <string>
#include <string_view>

#include "graph/shape_rules.h"

namespace hetcim::graph::shape_rules {

// ---------------------------------------------------------------------------------------------
// Broadcasting

Shape broadcast(const Ctx& c, const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    int64_t d;
    if (da == db || db == 1) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else if (da < 0) {
      d = db;
    } else if (db < 0) {
      d = da;
    } else {
      c.fail("shapes ", shape_str(a), " and ", shape_str(b),
             " cannot be broadcast together (numpy rules)");
    }
    out[i] = d;
  }
  return out;
}

Infos binary_elementwise(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  const bool is_pow = c.node().op_type == "Pow";
  if (!is_pow && c.dtype(0) != c.dtype(1)) {
    c.fail("input dtypes differ: ", dtype_name(c.dtype(0)), " and ", dtype_name(c.dtype(1)));
  }
  return {{c.dtype(0), broadcast(c, c.shape(0), c.shape(1))}};
}

// ---------------------------------------------------------------------------------------------
// Unary and shape-preserving ops

Infos unary(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  return same_as_input(c);
}

Infos clip(const Ctx& c) {
  c.arity(1, 3, 1, 1);
  for (size_t i = 1; i < 3; ++i) {
    if (!c.has(i)) continue;
    if (count_elements(c.shape(i)) != 1) {
      c.fail(i == 1 ? "min" : "max", " must be a scalar, got shape ", shape_str(c.shape(i)));
    }
    if (c.dtype(i) != c.dtype(0)) {
      c.fail(i == 1 ? "min" : "max", " has dtype ", dtype_name(c.dtype(i)), ", input has ",
             dtype_name(c.dtype(0)));
    }
  }
  return same_as_input(c);
}

Infos dropout(const Ctx& c) {
  c.arity(1, 3, 1, 2);
  Infos out = same_as_input(c);
  if (c.node().outputs.size() == 2) out.push_back({DType::Bool, c.shape(0)});
  return out;
}

Infos softmax(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  const int64_t fallback = c.opset() >= 13 ? -1 : 1;
  (void)c.axis(c.node().attr_int("axis", fallback), c.rank(0));
  return same_as_input(c);
}

Infos cast(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  if (!c.node().has_attr("to")) c.fail("attribute 'to' is required");
  const int64_t code = c.node().attr_int("to", 0);
  auto t = dtype_from_onnx_code(code);
  if (!t) c.fail("cast to ONNX data type ", code, " is not supported");
  return {{*t, c.shape(0)}};
}

// ConstantOfShape: the importer turns the one-element `value` tensor into `value` and
// `value_dtype` (onnxio/import.cpp); the default is a float 0.
Infos constant_of_shape(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  const int64_t code = c.node().attr_int("value_dtype", 1);
  auto t = dtype_from_onnx_code(code);
  if (!t) c.fail("value of ONNX data type ", code, " is not supported");
  const std::vector<int64_t> dims = c.const_ints(0, "shape");
  for (int64_t d : dims) {
    if (d < 0) c.fail("shape operand has a negative dimension ", d);
  }
  return {{*t, Shape(dims.begin(), dims.end())}};
}

// Equal, Less, Greater, LessOrEqual, GreaterOrEqual (operands of one dtype) and And, Or, Xor (bool
// operands): a bool tensor of the broadcast shape.
Infos comparison(const Ctx& c) {
  c.arity(2, 2, 1, 1);
  if (c.dtype(0) != c.dtype(1)) {
    c.fail("input dtypes differ: ", dtype_name(c.dtype(0)), " and ", dtype_name(c.dtype(1)));
  }
  const std::string& op = c.node().op_type;
  if ((op == "And" || op == "Or" || op == "Xor") && c.dtype(0) != DType::Bool)
    c.fail("inputs must be bool, got ", dtype_name(c.dtype(0)));
  return {{DType::Bool, broadcast(c, c.shape(0), c.shape(1))}};
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

// Scale and zero point of QuantizeLinear/DequantizeLinear: a scalar (per tensor) or a 1-D tensor
// over `axis` (per channel); the zero point has the scale's shape.
void check_quant_params(const Ctx& c) {
  const Shape& x = c.shape(0);
  const Shape& scale = c.shape(1);
  if (scale.size() > 1) c.fail("scale must be a scalar or 1-D, got ", shape_str(scale));
  if (scale.size() == 1 && scale[0] != 1) {
    const size_t a =
        static_cast<size_t>(c.axis(c.node().attr_int("axis", 1), static_cast<int64_t>(x.size())));
    if (scale[0] >= 0 && x[a] >= 0 && scale[0] != x[a]) {
      c.fail("per-axis scale has ", scale[0], " values, axis ", a, " of the input has ", x[a]);
    }
  }
  if (c.has(2) && count_elements(c.shape(2)) != count_elements(scale)) {
    c.fail("zero point ", shape_str(c.shape(2)), " does not match scale ", shape_str(scale));
  }
}

Infos quantize_linear(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  check_quant_params(c);
  DType out = DType::UInt8;
  if (c.has(2)) {
    out = c.dtype(2);
  } else if (c.node().has_attr("output_dtype")) {
    auto t = dtype_from_onnx_code(c.node().attr_int("output_dtype", 2));
    if (!t) c.fail("unsupported output_dtype");
    out = *t;
  }
  if (!is_integer(out)) c.fail("quantized dtype must be an integer type, got ", dtype_name(out));
  return {{out, c.shape(0)}};
}

Infos dequantize_linear(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  check_quant_params(c);
  if (!is_integer(c.dtype(0)))
    c.fail("input must be an integer tensor, got ", dtype_name(c.dtype(0)));
  if (c.has(2) && c.dtype(2) != c.dtype(0)) {
    c.fail("zero point dtype ", dtype_name(c.dtype(2)), " differs from input dtype ",
           dtype_name(c.dtype(0)));
  }
  return {{c.dtype(1), c.shape(0)}};
}

}  // namespace hetcim::graph::shape_rules
