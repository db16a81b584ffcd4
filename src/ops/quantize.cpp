// Q/DQ arithmetic (ops/quantize.h) and the QuantizeLinear / DequantizeLinear rows and shape rules
// (their kernels: exec/families/quantize.cpp).
#include "ops/quantize.h"

#include <algorithm>

#include "ops/families.h"

namespace hetcim::ops {

QuantParams activation_params(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  QuantParams p;
  p.dtype = graph::DType::UInt8;
  if (!(hi > lo)) return p;
  p.scale = (hi - lo) / 255.0f;
  p.zero_point = saturate(round_half_even(-lo / p.scale), 0, 255);
  return p;
}

QuantParams weight_params(float max_abs) {
  QuantParams p;
  p.dtype = graph::DType::Int8;
  p.zero_point = 0;
  p.scale = max_abs > 0 ? max_abs / 127.0f : 1.0f;
  return p;
}

namespace {

using namespace shape_rules;
using F = Fill;

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

}  // namespace

std::vector<Family> quantize_family() {
  return {{.op = "QuantizeLinear",
           .family = "quantize",
           .shape = quantize_linear,
           .fill = {F::Generic, F::Scale, F::Zero},
           .qdq = Qdq::Quantize},
          {.op = "DequantizeLinear",
           .family = "dequantize",
           .shape = dequantize_linear,
           .fill = {F::Quantized, F::Scale, F::Zero},
           .qdq = Qdq::Dequantize}};
}

}  // namespace hetcim::ops
