// The pool, qgap and qavgpool families: MaxPool, AveragePool and the global pools as oneDNN
// pooling primitives; QLinearGlobalAveragePool and QLinearAveragePool exact in integers.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/families/families.h"
#include "exec/kernels.h"
#include "exec/quantize.h"

namespace hetcim::exec::native {

void compile_pool(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  if (n.outputs.size() > 1 && !n.outputs[1].empty())
    fail(n, "MaxPool's Indices output is not supported");
  const Window2d w = pool_window(*e.g, n, x, y);
  if (w.dh != 1 || w.dw != 1) fail(n, "dilated pooling is not supported");
  const bool is_max = n.op_type == "MaxPool" || n.op_type == "GlobalMaxPool";
  const bool include = n.attr_int("count_include_pad", 0) != 0;
  if (!is_max && include && (w.pb != w.pb_declared || w.pr != w.pr_declared))
    fail(n, "AveragePool with count_include_pad=1 and ceil_mode padding is not supported");
  const DType xt = e.dtype(x);
  if (!is_max && xt != DType::Float32) fail(n, "float32 input expected");
  const dnnl::algorithm alg = is_max    ? dnnl::algorithm::pooling_max
                              : include ? dnnl::algorithm::pooling_avg_include_padding
                                        : dnnl::algorithm::pooling_avg_exclude_padding;
  const Buf& xb = e.buf(x);
  dnnl::pooling_forward::primitive_desc pd(
      dnnl::pooling_forward::desc(
          dnnl::prop_kind::forward_inference, alg, xb.md,
          memory::desc(dims_of(e.shape(y)), dnnl_type(xt, e.node), tag::any), {w.sh, w.sw},
          {w.kh, w.kw}, {w.pt, w.pl}, {w.pb, w.pr}),
      e.base_attr(), e.eng);
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = e.get(x, pd.src_desc());
  args[DNNL_ARG_DST] = e.output(y, pd.dst_desc(), xt);
  e.add_primitive(dnnl::pooling_forward(pd), args, pd);
}

void compile_qgap(EngineContext& e, const graph::Node& n) {
  if (n.attr_int("channels_last", 0) != 0) fail(n, "channels_last=1 is not supported");
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  const Shape xs = e.shape(x);
  if (xs.size() != 4) fail(n, "4-D input expected");
  if (e.dtype(x) != DType::UInt8 || e.dtype(y) != DType::UInt8)
    fail(n, "uint8 input and output expected");
  const float sx = e.scalar_f(1), sy = e.scalar_f(3);
  const int32_t zx = e.scalar_zp(2), zy = e.scalar_zp(4);
  const Buf& xb = e.buf(x);
  const bool cl = xb.md == nhwc_md(xs, dt::u8);
  memory xm = e.get(x, cl ? nhwc_md(xs, dt::u8) : plain_md(xs, dt::u8));
  const Shape ys = e.shape(y);
  memory ym = e.output(y, cl ? nhwc_md(ys, dt::u8) : plain_md(ys, dt::u8), DType::UInt8);
  const int64_t N = xs[0], C = xs[1], HW = xs[2] * xs[3];
  const float m = sx / (sy * static_cast<float>(HW));
  auto acc = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(N * C));
  e.cur->info.impl = "hetcim:qlinear_global_average_pool";
  e.cur->steps.push_back([xm, ym, cl, N, C, HW, zx, zy, m, acc]() {
    kernels::channel_sums_u8(static_cast<const uint8_t*>(xm.get_data_handle()), cl, N, C, HW, zx,
                             acc->data());
    uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
    for (int64_t k = 0; k < N * C; ++k)
      yp[k] = static_cast<uint8_t>(requantize((*acc)[static_cast<size_t>(k)], m, zy, {0, 255}));
  });
}

void compile_qavgpool(EngineContext& e, const graph::Node& n) {
  if (n.attr_int("channels_last", 0) != 0) fail(n, "channels_last=1 is not supported");
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  const Window2d w = pool_window(*e.g, n, x, y);
  if (e.dtype(x) != DType::UInt8 || e.dtype(y) != DType::UInt8)
    fail(n, "uint8 input and output expected");
  const float sx = e.scalar_f(1), sy = e.scalar_f(3);
  const int32_t zx = e.scalar_zp(2), zy = e.scalar_zp(4);
  const bool include = n.attr_int("count_include_pad", 0) != 0;
  memory::desc xmd;
  memory xm = e.get_strided(x, &xmd);
  const memory::desc ymd = like_md(xmd, e.shape(y), dt::u8);
  memory ym = e.output(y, ymd, DType::UInt8);
  const auto xst = md_strides(xmd), yst = md_strides(ymd);
  e.cur->info.impl = "hetcim:qlinear_average_pool";
  e.cur->steps.push_back([xm, ym, w, xst, yst, sx, sy, zx, zy, include]() {
    const uint8_t* xp = static_cast<const uint8_t*>(xm.get_data_handle());
    uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t b = 0; b < w.n; ++b)
      for (int64_t c = 0; c < w.c; ++c)
        for (int64_t oh = 0; oh < w.oh; ++oh)
          for (int64_t ow = 0; ow < w.ow; ++ow) {
            int32_t acc = 0, count = 0;
            for (int64_t kh = 0; kh < w.kh; ++kh)
              for (int64_t kw = 0; kw < w.kw; ++kw) {
                const int64_t ih = oh * w.sh - w.pt + kh * w.dh, iw = ow * w.sw - w.pl + kw * w.dw;
                const bool inside = ih >= 0 && ih < w.h && iw >= 0 && iw < w.w;
                const bool in_declared = ih >= -w.pt && ih < w.h + w.pb_declared && iw >= -w.pl &&
                                         iw < w.w + w.pr_declared;
                if (inside)
                  acc += static_cast<int32_t>(
                             xp[b * xst[0] + c * xst[1] + ih * xst[2] + iw * xst[3]]) -
                         zx;
                if (inside || (include && in_declared)) ++count;
              }
            const float m = sx / (sy * static_cast<float>(count));
            yp[b * yst[0] + c * yst[1] + oh * yst[2] + ow * yst[3]] =
                static_cast<uint8_t>(requantize(acc, m, zy, {0, 255}));
          }
  });
}

}  // namespace hetcim::exec::native
