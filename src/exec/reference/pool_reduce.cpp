// Reference kernels of the pooling and reduction families: MaxPool, AveragePool, GlobalAveragePool,
// GlobalMaxPool, their int8 forms QLinearAveragePool / QLinearGlobalAveragePool, and ReduceMean.
#include <algorithm>
#include <cmath>

#include "exec/reference/context.h"

namespace hetcim::exec::reference {
namespace {

using graph::DType;
using graph::Shape;

// MaxPool / GlobalMaxPool (Max) and AveragePool / GlobalAveragePool.
template <bool Max>
void pool(Context& c) {
  const graph::Node& n = c.node();
  const Window2d w = pool_window(c.graph(), n, n.inputs[0], n.outputs[0]);
  const Tensor& x = c.in(0);
  const bool is_max = Max;
  const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
  if (n.outputs.size() > 1 && !n.outputs[1].empty())
    c.fail("MaxPool's Indices output is not supported");
  if (is_max && x.dtype != DType::Float32 && x.dtype != DType::UInt8 && x.dtype != DType::Int8)
    c.fail("unsupported input dtype");
  if (!is_max && x.dtype != DType::Float32) c.fail("float32 input expected");
  Tensor y = Tensor::zeros(x.dtype, c.out_shape());
  for (int64_t b = 0; b < w.n; ++b)
    for (int64_t ch = 0; ch < w.c; ++ch)
      for (int64_t oh = 0; oh < w.oh; ++oh)
        for (int64_t ow = 0; ow < w.ow; ++ow) {
          double acc = is_max ? -INFINITY : 0.0;
          int64_t count = 0;
          for (int64_t kh = 0; kh < w.kh; ++kh)
            for (int64_t kw = 0; kw < w.kw; ++kw) {
              const int64_t ih = oh * w.sh - w.pt + kh * w.dh, iw = ow * w.sw - w.pl + kw * w.dw;
              const bool inside = ih >= 0 && ih < w.h && iw >= 0 && iw < w.w;
              // count_include_pad counts the declared pads, not ceil_mode's extension.
              const bool in_declared = ih >= -w.pt && ih < w.h + w.pb_declared && iw >= -w.pl &&
                                       iw < w.w + w.pr_declared;
              if (inside) {
                const double v = x.at(((b * w.c + ch) * w.h + ih) * w.w + iw);
                acc = is_max ? std::max(acc, v) : acc + v;
              }
              if (inside || (include_pad && in_declared)) ++count;
            }
          const int64_t o = ((b * w.c + ch) * w.oh + oh) * w.ow + ow;
          if (is_max)
            store_any(y, o, acc);
          else
            y.data<float>()[o] = static_cast<float>(acc / static_cast<double>(count));
        }
  c.set(0, std::move(y));
}

void qpool(Context& c) {
  const graph::Node& n = c.node();
  if (n.attr_int("channels_last", 0) != 0) c.fail("channels_last=1 is not supported");
  const Window2d w = pool_window(c.graph(), n, n.inputs[0], n.outputs[0]);
  const Tensor& x = c.in(0);
  const float sx = c.scalar_f(1), sy = c.scalar_f(3);
  const int32_t zx = c.scalar_zp(2), zy = c.scalar_zp(4);
  const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
  const DType yt = c.out_dtype(0, DType::UInt8);
  const QRange r = qrange(yt);
  Tensor y = Tensor::zeros(yt, c.out_shape());
  for (int64_t b = 0; b < w.n; ++b)
    for (int64_t ch = 0; ch < w.c; ++ch)
      for (int64_t oh = 0; oh < w.oh; ++oh)
        for (int64_t ow = 0; ow < w.ow; ++ow) {
          int64_t acc = 0, count = 0;
          for (int64_t kh = 0; kh < w.kh; ++kh)
            for (int64_t kw = 0; kw < w.kw; ++kw) {
              const int64_t ih = oh * w.sh - w.pt + kh * w.dh, iw = ow * w.sw - w.pl + kw * w.dw;
              const bool inside = ih >= 0 && ih < w.h && iw >= 0 && iw < w.w;
              const bool in_declared = ih >= -w.pt && ih < w.h + w.pb_declared && iw >= -w.pl &&
                                       iw < w.w + w.pr_declared;
              if (inside)
                acc += static_cast<int64_t>(x.at(((b * w.c + ch) * w.h + ih) * w.w + iw)) - zx;
              if (inside || (include_pad && in_declared)) ++count;
            }
          const float m = sx / (sy * static_cast<float>(count));
          store_q(y, ((b * w.c + ch) * w.oh + oh) * w.ow + ow,
                  requantize(static_cast<int32_t>(acc), m, zy, r));
        }
  c.set(0, std::move(y));
}

void reduce_mean(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& x = c.float_in(0);
  const auto r = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  if (has_input(n, 1)) axes = c.const_ints(1);
  std::vector<bool> red(x.shape.size(), axes.empty() && n.attr_int("noop_with_empty_axes", 0) == 0);
  for (int64_t a : axes) red[static_cast<size_t>(norm_axis(n, a, r))] = true;
  Shape kept = x.shape;
  for (size_t d = 0; d < kept.size(); ++d)
    if (red[d]) kept[d] = 1;
  std::vector<double> sum(static_cast<size_t>(graph::element_count(kept)), 0.0);
  const int64_t count = x.numel() / std::max<int64_t>(1, graph::element_count(kept));
  for (int64_t i = 0; i < x.numel(); ++i) {
    std::vector<int64_t> idx = unravel(i, x.shape);
    for (size_t d = 0; d < idx.size(); ++d)
      if (red[d]) idx[d] = 0;
    sum[static_cast<size_t>(ravel(idx, kept))] += x.data<float>()[i];
  }
  Shape out = kept;
  if (n.attr_int("keepdims", 1) == 0) {
    out.clear();
    for (size_t d = 0; d < kept.size(); ++d)
      if (!red[d]) out.push_back(kept[d]);
  }
  Tensor y = Tensor::zeros(DType::Float32, out);
  for (size_t j = 0; j < sum.size(); ++j)
    y.data<float>()[j] = static_cast<float>(sum[j] / static_cast<double>(count));
  c.set(0, std::move(y));
}

}  // namespace

std::vector<KernelRow> pool_reduce_kernels() {
  return {
      {"MaxPool", pool<true>},
      {"AveragePool", pool<false>},
      {"GlobalAveragePool", pool<false>},
      {"GlobalMaxPool", pool<true>},
      {"QLinearAveragePool", qpool},
      {"QLinearGlobalAveragePool", qpool},
      {"ReduceMean", reduce_mean, false},
  };
}

}  // namespace hetcim::exec::reference
