// Reference kernels of the normalization families: BatchNormalization, LayerNormalization and
// Softmax, in double.
#include <algorithm>
#include <cmath>

#include "exec/reference/context.h"

namespace hetcim::exec::reference {
namespace {

using graph::DType;

void batch_normalization(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& x = c.float_in(0);
  const Tensor &scale = c.in(1), &b = c.in(2), &mean = c.in(3), &var = c.in(4);
  const double eps = n.attr_float("epsilon", 1e-5);
  const int64_t ch = x.shape.at(1);
  for (const Tensor* t : {&scale, &b, &mean, &var})
    if (t->numel() != ch) c.fail("statistics must have one value per channel");
  Tensor y = Tensor::zeros(DType::Float32, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t k = unravel(i, x.shape)[1];
    const double v = (x.data<float>()[i] - mean.at(k)) / std::sqrt(var.at(k) + eps);
    y.data<float>()[i] = static_cast<float>(v * scale.at(k) + b.at(k));
  }
  c.set(0, std::move(y));
}

void layer_normalization(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& x = c.float_in(0);
  const auto r = static_cast<int64_t>(x.shape.size());
  const int64_t axis = norm_axis(n, n.attr_int("axis", -1), r);
  int64_t inner = 1;
  for (int64_t d = axis; d < r; ++d) inner *= x.shape[static_cast<size_t>(d)];
  const Tensor& scale = c.in(1);
  const double eps = n.attr_float("epsilon", 1e-5);
  Tensor y = Tensor::zeros(DType::Float32, x.shape);
  for (int64_t o = 0; o < x.numel() / inner; ++o) {
    double mean = 0, sq = 0;
    for (int64_t i = 0; i < inner; ++i) mean += x.data<float>()[o * inner + i];
    mean /= static_cast<double>(inner);
    for (int64_t i = 0; i < inner; ++i) {
      const double d = x.data<float>()[o * inner + i] - mean;
      sq += d * d;
    }
    const double sd = std::sqrt(sq / static_cast<double>(inner) + eps);
    for (int64_t i = 0; i < inner; ++i) {
      const double g = scale.at(scale.numel() == 1 ? 0 : i);
      const double b = has_input(n, 2) ? c.in(2).at(c.in(2).numel() == 1 ? 0 : i) : 0.0;
      y.data<float>()[o * inner + i] =
          static_cast<float>((x.data<float>()[o * inner + i] - mean) / sd * g + b);
    }
  }
  c.set(0, std::move(y));
}

void softmax(Context& c) {
  const graph::Node& n = c.node();
  const int64_t opset = c.graph().opset;
  const Tensor& x = c.in(0);
  const int64_t r = static_cast<int64_t>(x.shape.size());
  const int64_t axis = norm_axis(n, n.attr_int("axis", opset >= 13 ? -1 : 1), r);
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t k = 0; k < r; ++k) {
    const int64_t d = x.shape[static_cast<size_t>(k)];
    if (opset >= 13) {
      if (k < axis)
        outer *= d;
      else if (k == axis)
        len = d;
      else
        inner *= d;
    } else {  // opset < 13: coerced to 2-D at axis
      if (k < axis)
        outer *= d;
      else
        len *= d;
    }
  }
  Tensor y = Tensor::zeros(DType::Float32, x.shape);
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < len; ++k) mx = std::max<double>(mx, xp[(o * len + k) * inner + i]);
      for (int64_t k = 0; k < len; ++k) sum += std::exp(xp[(o * len + k) * inner + i] - mx);
      for (int64_t k = 0; k < len; ++k)
        yp[(o * len + k) * inner + i] =
            static_cast<float>(std::exp(xp[(o * len + k) * inner + i] - mx) / sum);
    }
  c.set(0, std::move(y));
}

}  // namespace

std::vector<KernelRow> normalization_kernels() {
  return {
      {"Softmax", softmax},
      {"BatchNormalization", batch_normalization, false},
      {"LayerNormalization", layer_normalization, false},
  };
}

}  // namespace hetcim::exec::reference
