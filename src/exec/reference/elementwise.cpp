// Reference kernels of the elementwise families: broadcasting binary (Add, Sub, Mul, Div, Pow),
// unary activations (Relu, LeakyRelu, Sigmoid, Tanh, Clip, HardSigmoid, HardSwish), Erf and Sqrt,
// Gelu, and the int8 forms QLinearAdd / QLinearMul / QLinearSigmoid / QLinearLeakyRelu.
#include <algorithm>
#include <cmath>

#include "exec/reference/context.h"

namespace hetcim::exec::reference {
namespace {

using graph::DType;
using graph::Shape;

// One kernel per operator: `F(a, b)` is the operator's float32 arithmetic.
template <float (*F)(float, float)>
void binary(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& a = c.in(0);
  const Tensor& b = c.in(1);
  if (a.dtype != DType::Float32 || b.dtype != DType::Float32)
    c.fail("float32 operands expected, got " + std::string(graph::dtype_name(a.dtype)) + " and " +
           std::string(graph::dtype_name(b.dtype)));
  const Shape out = c.out_shape();
  Tensor y = Tensor::zeros(DType::Float32, out);
  const Activation act = fused_activation(n);
  const float* ap = a.data<float>();
  const float* bp = b.data<float>();
  float* yp = y.data<float>();
  broadcast2(out, a.shape, b.shape,
             [&](int64_t o, int64_t i, int64_t j) { yp[o] = act.apply(F(ap[i], bp[j])); });
  c.set(0, std::move(y));
}
float add_f(float a, float b) {
  return a + b;
}
float sub_f(float a, float b) {
  return a - b;
}
float mul_f(float a, float b) {
  return a * b;
}
float div_f(float a, float b) {
  return a / b;
}
float pow_f(float a, float b) {
  return std::pow(a, b);
}

// Float32 unary activations: `make` builds the function from the node's attributes.
using UnaryFn = std::function<float(float)>;
template <UnaryFn (*Make)(const Context&)>
void unary(Context& c) {
  const Tensor& x = c.in(0);
  if (x.dtype != DType::Float32) {
    // Relu/Clip on a quantized tensor (int8 pass-through): needs the tensor's quantization,
    // which only a QLinear op carries.
    c.fail("expected a float32 input, got " + std::string(graph::dtype_name(x.dtype)));
  }
  auto f = Make(c);
  Tensor y = Tensor::zeros(DType::Float32, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) y.data<float>()[i] = f(x.data<float>()[i]);
  c.set(0, std::move(y));
}
UnaryFn relu(const Context&) {
  return [](float v) { return v > 0 ? v : 0.0f; };
}
UnaryFn sigmoid(const Context&) {
  return sigmoidf;
}
UnaryFn tanh_fn(const Context&) {
  return [](float v) { return std::tanh(v); };
}
UnaryFn leaky_relu(const Context& c) {
  const float alpha = static_cast<float>(c.node().attr_float("alpha", 0.01));
  return [alpha](float v) { return v >= 0 ? v : v * alpha; };
}
UnaryFn hard_sigmoid(const Context& c) {
  const float alpha = static_cast<float>(c.node().attr_float("alpha", 0.2)),
              beta = static_cast<float>(c.node().attr_float("beta", 0.5));
  return [alpha, beta](float v) { return std::clamp(alpha * v + beta, 0.0f, 1.0f); };
}
UnaryFn hard_swish(const Context&) {
  return [](float v) { return v * std::clamp(v / 6.0f + 0.5f, 0.0f, 1.0f); };
}
UnaryFn clip(const Context& c) {
  const Activation a = clip_bounds(c.graph(), c.node());
  return [a](float v) { return a.apply(v); };
}

// Erf / Sqrt in double.
template <double (*F)(double)>
void unary_math(Context& c) {
  const Tensor& x = c.float_in(0);
  Tensor y = Tensor::zeros(DType::Float32, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.data<float>()[i];
    y.data<float>()[i] = static_cast<float>(F(v));
  }
  c.set(0, std::move(y));
}
double erf_d(double v) {
  return std::erf(v);
}
double sqrt_d(double v) {
  return std::sqrt(v);
}

// Gelu (opset 20), in double: x/2 (1 + erf(x / sqrt 2)) or, approximate "tanh",
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void gelu(Context& c) {
  const Tensor& x = c.float_in(0);
  const std::string approximate = c.node().attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    c.fail("approximate must be 'none' or 'tanh'");
  Tensor y = Tensor::zeros(DType::Float32, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.data<float>()[i];
    const double inner = approximate == "tanh"
                             ? std::tanh(0.79788456080286536 * (v + 0.044715 * v * v * v))
                             : std::erf(v / std::sqrt(2.0));
    y.data<float>()[i] = static_cast<float>(0.5 * v * (1.0 + inner));
  }
  c.set(0, std::move(y));
}

// ONNX Runtime's x86 arithmetic (MLAS qladd_avx2.cpp / qlmul.cpp, ORT 1.30), the semantics
// hetcim adopts (exec/kernels.h states the decision): scale ratios in float32, the output zero
// point added before rounding half to even; Add's fused multiply-adds in ORT's operand order,
// which puts an operand that is constant along the innermost output axis (ORT's "input 0
// scalar" span) last.
template <bool Mul>
void qbinary(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& a = c.in(0);
  const Tensor& b = c.in(3);
  const float sa = c.scalar_f(1), sb = c.scalar_f(4), sy = c.scalar_f(6);
  const int32_t za = c.scalar_zp(2), zb = c.scalar_zp(5), zy = c.scalar_zp(7);
  const DType yt = c.out_dtype(0, DType::UInt8);
  const QRange r = qrange(yt);
  const Shape out = c.out_shape();
  Tensor y = Tensor::zeros(yt, out);
  const float fzy = static_cast<float>(zy);
  const float ratio_a = sa / sy, ratio_b = sb / sy, ratio_ab = (sa * sb) / sy;
  const float fixed =
      fzy - std::fma(ratio_a, static_cast<float>(za), ratio_b * static_cast<float>(zb));
  bool a_last = false;
  const auto bsa = broadcast_strides(a.shape, out), bsb = broadcast_strides(b.shape, out);
  for (size_t k = out.size(); k-- > 0;)
    if (out[k] > 1) {
      a_last = bsa[k] == 0 && bsb[k] != 0;
      break;
    }
  broadcast2(out, a.shape, b.shape, [&](int64_t o, int64_t i, int64_t j) {
    const auto qa = static_cast<int32_t>(a.at(i)), qb = static_cast<int32_t>(b.at(j));
    float v = 0.0f;
    if (Mul) {
      v = static_cast<float>((qa - za) * (qb - zb)) * ratio_ab + fzy;
    } else {
      const float fa = static_cast<float>(qa), fb = static_cast<float>(qb);
      v = a_last ? std::fma(fb, ratio_b, std::fma(fa, ratio_a, fixed))
                 : std::fma(fa, ratio_a, std::fma(fb, ratio_b, fixed));
    }
    const float rounded = std::isnan(v) ? static_cast<float>(r.lo) : std::nearbyint(v);
    store_q(y, o,
            static_cast<int32_t>(
                std::clamp(rounded, static_cast<float>(r.lo), static_cast<float>(r.hi))));
  });
  apply_qact(y, fused_activation(n), sy, zy, r);
  c.set(0, std::move(y));
}

// QLinearSigmoid (Sigmoid) / QLinearLeakyRelu (otherwise): dequantize, f in float, quantize.
template <bool Sigmoid>
void qunary(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& x = c.in(0);
  const float sx = c.scalar_f(1), sy = c.scalar_f(3);
  const int32_t zx = c.scalar_zp(2), zy = c.scalar_zp(4);
  const DType yt = c.out_dtype(0, DType::UInt8);
  const QRange r = qrange(yt);
  const float alpha = static_cast<float>(n.attr_float("alpha", 0.01));
  Tensor y = Tensor::zeros(yt, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = dequantize_value(static_cast<int32_t>(x.at(i)), sx, zx);
    store_q(y, i, quantize_value(Sigmoid ? sigmoidf(v) : (v >= 0 ? v : v * alpha), sy, zy, r));
  }
  c.set(0, std::move(y));
}

}  // namespace

std::vector<KernelRow> elementwise_kernels() {
  return {
      {"Add", binary<add_f>},
      {"Sub", binary<sub_f>},
      {"Mul", binary<mul_f>},
      {"Div", binary<div_f>},
      {"Pow", binary<pow_f>},
      {"QLinearAdd", qbinary<false>},
      {"QLinearMul", qbinary<true>},
      {"Relu", unary<relu>},
      {"LeakyRelu", unary<leaky_relu>},
      {"Sigmoid", unary<sigmoid>},
      {"Tanh", unary<tanh_fn>},
      {"Clip", unary<clip>},
      {"HardSigmoid", unary<hard_sigmoid>},
      {"HardSwish", unary<hard_swish>},
      {"QLinearSigmoid", qunary<true>},
      {"QLinearLeakyRelu", qunary<false>},
      {"Erf", unary_math<erf_d>, false},
      {"Sqrt", unary_math<sqrt_d>, false},
      {"Gelu", gelu, false},
  };
}

}  // namespace hetcim::exec::reference
