// Reference kernels of the weighted families: Conv, Gemm, MatMul and their int8 forms
// (QLinearConv, QGemm, QLinearMatMul). Float sums in double; int8 sums exact in int64, then
// requantized as exec/quantize.h says.
#include <algorithm>

#include "exec/reference/context.h"
#include "ops/registry.h"

namespace hetcim::exec::reference {
namespace {

using graph::DType;
using graph::Shape;

void conv(Context& c) {
  const graph::Node& n = c.node();
  const Window2d w = conv_window(c.graph(), n, n.inputs[0], n.inputs.at(1), n.outputs[0]);
  const Tensor& x = c.in(0);
  const Tensor& wt = c.in(1);
  std::vector<float> bias(static_cast<size_t>(w.oc), 0.0f);
  if (has_input(n, 2)) bias = c.in(2).floats();
  const Activation act = fused_activation(n);
  Tensor y = Tensor::zeros(DType::Float32, c.out_shape());
  const float* xp = x.data<float>();
  const float* wp = wt.data<float>();
  float* yp = y.data<float>();
  const int64_t icg = w.c / w.group, ocg = w.oc / w.group;
  std::vector<double> plane(static_cast<size_t>(w.oh * w.ow));
  for (int64_t b = 0; b < w.n; ++b)
    for (int64_t oc = 0; oc < w.oc; ++oc) {
      const int64_t g = oc / ocg;
      std::fill(plane.begin(), plane.end(), static_cast<double>(bias[static_cast<size_t>(oc)]));
      for (int64_t ic = 0; ic < icg; ++ic) {
        const float* xc = xp + ((b * w.c) + g * icg + ic) * w.h * w.w;
        for (int64_t kh = 0; kh < w.kh; ++kh)
          for (int64_t kw = 0; kw < w.kw; ++kw) {
            const double wv = wp[((oc * icg + ic) * w.kh + kh) * w.kw + kw];
            for (int64_t oh = 0; oh < w.oh; ++oh) {
              const int64_t ih = oh * w.sh - w.pt + kh * w.dh;
              if (ih < 0 || ih >= w.h) continue;
              for (int64_t ow = 0; ow < w.ow; ++ow) {
                const int64_t iw = ow * w.sw - w.pl + kw * w.dw;
                if (iw < 0 || iw >= w.w) continue;
                plane[static_cast<size_t>(oh * w.ow + ow)] += wv * xc[ih * w.w + iw];
              }
            }
          }
      }
      float* yc = yp + (b * w.oc + oc) * w.oh * w.ow;
      for (size_t i = 0; i < plane.size(); ++i) yc[i] = act.apply(static_cast<float>(plane[i]));
    }
  c.set(0, std::move(y));
}

void gemm(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& a = c.in(0);
  const Tensor& b = c.in(1);
  if (a.shape.size() != 2 || b.shape.size() != 2) c.fail("A and B must be 2-D");
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const double alpha = n.attr_float("alpha", 1.0), beta = n.attr_float("beta", 1.0);
  const int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  const int64_t N = tb ? b.shape[0] : b.shape[1];
  if ((tb ? b.shape[1] : b.shape[0]) != K) c.fail("inner dimensions of A and B differ");
  const Shape out = {M, N};
  Tensor y = Tensor::zeros(DType::Float32, out);
  std::vector<float> cv;
  std::vector<int64_t> cs;
  if (has_input(n, 2)) {
    cv = c.in(2).floats();
    cs = broadcast_strides(c.in(2).shape, out);
  }
  const Activation act = fused_activation(n);
  const float* ap = a.data<float>();
  const float* bp = b.data<float>();
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += static_cast<double>(ap[ta ? k * M + i : i * K + k]) * bp[tb ? j * K + k : k * N + j];
      acc *= alpha;
      if (!cv.empty()) acc += beta * cv[static_cast<size_t>(i * cs[0] + j * cs[1])];
      y.data<float>()[i * N + j] = act.apply(static_cast<float>(acc));
    }
  c.set(0, std::move(y));
}

// MatMul / QLinearMatMul with numpy batch broadcasting; operand positions from the registry.
void matmul(Context& c) {
  const graph::Node& n = c.node();
  const ops::QLinearOperands q = ops::weighted_operands(n.op_type).value();
  const bool quantized = q.quantized;
  const Tensor& a = c.in(q.x);
  const Tensor& b = c.in(q.w);
  Shape as = a.shape, bs = b.shape;
  if (as.empty() || bs.empty()) c.fail("MatMul operands must have rank >= 1");
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K)
    c.fail("inner dimensions differ: " + graph::shape_str(a.shape) + " x " +
           graph::shape_str(b.shape));
  Shape abatch(as.begin(), as.end() - 2), bbatch(bs.begin(), bs.end() - 2);
  const Shape y_shape = c.out_shape();
  Shape batch(y_shape.begin(),
              y_shape.end() - static_cast<std::ptrdiff_t>((a1 ? 0 : 1) + (b1 ? 0 : 1)));
  const auto sa = broadcast_strides(abatch, batch), sb = broadcast_strides(bbatch, batch);
  const int64_t nb = graph::element_count(batch);
  const Activation act = fused_activation(n);
  std::vector<float> sbv;
  std::vector<int32_t> zbv;
  float sa_ = 0, sy = 0;
  int32_t za = 0, zy = 0;
  QRange yr;
  if (quantized) {
    sa_ = c.scalar_f(*q.x_scale);
    za = c.scalar_zp(*q.x_zero_point);
    sbv = c.per_channel_f(*q.w_scale, N);
    zbv = c.per_channel_zp(*q.w_zero_point, N);
    sy = c.scalar_f(*q.y_scale);
    zy = c.scalar_zp(*q.y_zero_point);
    yr = qrange(c.out_dtype(0, DType::UInt8));
  }
  Tensor y = Tensor::zeros(quantized ? c.out_dtype(0, DType::UInt8) : DType::Float32, y_shape);
  std::vector<int64_t> idx(batch.size(), 0);
  for (int64_t bi = 0; bi < nb; ++bi) {
    int64_t offa = 0, offb = 0, rem = bi;
    for (size_t k = batch.size(); k-- > 0;) {
      const int64_t v = rem % batch[k];
      rem /= batch[k];
      offa += v * sa[k];
      offb += v * sb[k];
    }
    offa *= M * K;
    offb *= K * N;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        const int64_t o = (bi * M + i) * N + j;
        if (quantized) {
          int64_t acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += (static_cast<int64_t>(a.at(offa + i * K + k)) - za) *
                   (static_cast<int64_t>(b.at(offb + k * N + j)) - zbv[static_cast<size_t>(j)]);
          const float m = (sa_ * sbv[static_cast<size_t>(j)]) / sy;
          store_q(y, o, requantize(static_cast<int32_t>(acc), m, zy, yr));
        } else {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += static_cast<double>(a.data<float>()[offa + i * K + k]) *
                   b.data<float>()[offb + k * N + j];
          y.data<float>()[o] = act.apply(static_cast<float>(acc));
        }
      }
  }
  if (quantized) apply_qact(y, act, sy, zy, yr);
  c.set(0, std::move(y));
}

void qconv(Context& c) {
  const graph::Node& n = c.node();
  const ops::QLinearOperands q = ops::weighted_operands(n.op_type).value();
  const Window2d w = conv_window(c.graph(), n, n.inputs[q.x], n.inputs.at(q.w), n.outputs[0]);
  const Tensor& x = c.in(q.x);
  const Tensor& wt = c.in(q.w);
  const float sx = c.scalar_f(*q.x_scale);
  const int32_t zx = c.scalar_zp(*q.x_zero_point);
  const auto sw = c.per_channel_f(*q.w_scale, w.oc);
  const auto zw = c.per_channel_zp(*q.w_zero_point, w.oc);
  const float sy = c.scalar_f(*q.y_scale);
  const int32_t zy = c.scalar_zp(*q.y_zero_point);
  std::vector<int32_t> bias(static_cast<size_t>(w.oc), 0);
  if (has_input(n, *q.bias))
    for (int64_t k = 0; k < w.oc; ++k)
      bias[static_cast<size_t>(k)] = static_cast<int32_t>(c.in(*q.bias).at(k));
  const DType yt = c.out_dtype(0, DType::UInt8);
  const QRange r = qrange(yt);
  Tensor y = Tensor::zeros(yt, c.out_shape());
  const int64_t icg = w.c / w.group, ocg = w.oc / w.group;
  for (int64_t b = 0; b < w.n; ++b)
    for (int64_t oc = 0; oc < w.oc; ++oc) {
      const int64_t g = oc / ocg;
      const float m = (sx * sw[static_cast<size_t>(oc)]) / sy;
      for (int64_t oh = 0; oh < w.oh; ++oh)
        for (int64_t ow = 0; ow < w.ow; ++ow) {
          int64_t acc = bias[static_cast<size_t>(oc)];
          for (int64_t ic = 0; ic < icg; ++ic)
            for (int64_t kh = 0; kh < w.kh; ++kh)
              for (int64_t kw = 0; kw < w.kw; ++kw) {
                const int64_t ih = oh * w.sh - w.pt + kh * w.dh, iw = ow * w.sw - w.pl + kw * w.dw;
                if (ih < 0 || ih >= w.h || iw < 0 || iw >= w.w) continue;  // padding: x = zx
                const int64_t xv =
                    static_cast<int64_t>(x.at(((b * w.c + g * icg + ic) * w.h + ih) * w.w + iw)) -
                    zx;
                const int64_t wv =
                    static_cast<int64_t>(wt.at(((oc * icg + ic) * w.kh + kh) * w.kw + kw)) -
                    zw[static_cast<size_t>(oc)];
                acc += xv * wv;
              }
          store_q(y, ((b * w.oc + oc) * w.oh + oh) * w.ow + ow,
                  requantize(static_cast<int32_t>(acc), m, zy, r));
        }
    }
  apply_qact(y, fused_activation(n), sy, zy, r);
  c.set(0, std::move(y));
}

void qgemm(Context& c) {
  const graph::Node& n = c.node();
  const ops::QLinearOperands q = ops::weighted_operands(n.op_type).value();
  const Tensor& a = c.in(q.x);
  const Tensor& b = c.in(q.w);
  if (a.shape.size() != 2 || b.shape.size() != 2) c.fail("A and B must be 2-D");
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const float alpha = static_cast<float>(n.attr_float("alpha", 1.0));
  const int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  const int64_t N = tb ? b.shape[0] : b.shape[1];
  const float sa = c.scalar_f(*q.x_scale);
  const int32_t za = c.scalar_zp(*q.x_zero_point);
  const auto sb = c.per_channel_f(*q.w_scale, N);
  const auto zb = c.per_channel_zp(*q.w_zero_point, N);
  std::vector<int32_t> cv;
  std::vector<int64_t> cs;
  const Shape out = {M, N};
  if (has_input(n, *q.bias)) {
    const Tensor& ct = c.in(*q.bias);
    if (ct.dtype != DType::Int32) c.fail("C must be an int32 tensor");
    for (int64_t i = 0; i < ct.numel(); ++i) cv.push_back(static_cast<int32_t>(ct.at(i)));
    cs = broadcast_strides(ct.shape, out);
  }
  const bool float_out = !has_input(n, *q.y_scale);
  const float sy = float_out ? 1.0f : c.scalar_f(*q.y_scale);
  const int32_t zy = float_out ? 0 : c.scalar_zp(*q.y_zero_point);
  const DType yt = float_out ? DType::Float32 : c.out_dtype(0, DType::UInt8);
  const QRange r = qrange(yt);
  Tensor y = Tensor::zeros(yt, out);
  const Activation act = fused_activation(n);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int64_t acc = cv.empty() ? 0 : cv[static_cast<size_t>(i * cs[0] + j * cs[1])];
      for (int64_t k = 0; k < K; ++k)
        acc +=
            (static_cast<int64_t>(a.at(ta ? k * M + i : i * K + k)) - za) *
            (static_cast<int64_t>(b.at(tb ? j * K + k : k * N + j)) - zb[static_cast<size_t>(j)]);
      const float real = alpha * sa * sb[static_cast<size_t>(j)];
      if (float_out)
        y.data<float>()[i * N + j] = act.apply(static_cast<float>(acc) * real);
      else
        store_q(y, i * N + j, requantize(static_cast<int32_t>(acc), real / sy, zy, r));
    }
  if (!float_out) apply_qact(y, act, sy, zy, r);
  c.set(0, std::move(y));
}

}  // namespace

std::vector<KernelRow> matmul_conv_kernels() {
  return {{"Conv", conv},   {"QLinearConv", qconv}, {"Gemm", gemm},
          {"QGemm", qgemm}, {"MatMul", matmul},     {"QLinearMatMul", matmul}};
}

}  // namespace hetcim::exec::reference
