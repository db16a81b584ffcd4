// Reference kernels of QuantizeLinear and DequantizeLinear (per tensor or per axis), as
// exec/quantize.h defines them.
#include <algorithm>

#include "exec/reference/context.h"

namespace hetcim::exec::reference {
namespace {

using graph::DType;

int axis_of(Context& c, const Tensor& x) {
  return static_cast<int>(norm_axis(c.node(), c.node().attr_int("axis", 1),
                                    std::max<int64_t>(1, static_cast<int64_t>(x.shape.size()))));
}

void quantize_linear(Context& c) {
  const Tensor& x = c.in(0);
  const Tensor& s = c.in(1);
  DType t = DType::UInt8;
  if (has_input(c.node(), 2)) t = c.in(2).dtype;
  Tensor y = Tensor::zeros(t, x.shape);
  const QRange r = qrange(t);
  const int64_t ax = s.numel() == 1 || x.shape.empty() ? -1 : axis_of(c, x);
  const int64_t ch = ax < 0 ? 1 : x.shape[static_cast<size_t>(ax)];
  const auto sc = c.per_channel_f(1, ch);
  const auto zp = c.per_channel_zp(2, ch);
  int64_t inner = 1;
  if (ax >= 0)
    for (size_t k = static_cast<size_t>(ax) + 1; k < x.shape.size(); ++k) inner *= x.shape[k];
  for (int64_t i = 0; i < x.numel(); ++i) {
    const size_t k = ax < 0 ? 0 : static_cast<size_t>((i / inner) % ch);
    store_q(y, i, quantize_value(static_cast<float>(x.at(i)), sc[k], zp[k], r));
  }
  c.set(0, std::move(y));
}

void dequantize_linear(Context& c) {
  const Tensor& x = c.in(0);
  const Tensor& s = c.in(1);
  Tensor y = Tensor::zeros(DType::Float32, x.shape);
  const int64_t ax = s.numel() == 1 || x.shape.empty() ? -1 : axis_of(c, x);
  const int64_t ch = ax < 0 ? 1 : x.shape[static_cast<size_t>(ax)];
  const auto sc = c.per_channel_f(1, ch);
  const auto zp = c.per_channel_zp(2, ch);
  int64_t inner = 1;
  if (ax >= 0)
    for (size_t k = static_cast<size_t>(ax) + 1; k < x.shape.size(); ++k) inner *= x.shape[k];
  for (int64_t i = 0; i < x.numel(); ++i) {
    const size_t k = ax < 0 ? 0 : static_cast<size_t>((i / inner) % ch);
    y.data<float>()[i] = dequantize_value(static_cast<int32_t>(x.at(i)), sc[k], zp[k]);
  }
  c.set(0, std::move(y));
}

}  // namespace

std::vector<KernelRow> quantize_kernels() {
  return {{"QuantizeLinear", quantize_linear}, {"DequantizeLinear", dequantize_linear}};
}

}  // namespace hetcim::exec::reference
