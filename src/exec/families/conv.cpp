// The conv and qconv families: Conv and QLinearConv as oneDNN convolutions (weights reordered
// once into the primitive's layout, a residual Add joined as a sum post-op), float 3x3 stride-1
// convolutions by Winograd where it measured faster (exec/winograd.h), int8 exact without VNNI
// (int8_halves.h).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "exec/families/conv_taps.h"
#include "exec/families/families.h"
#include "exec/families/int8_halves.h"
#include "exec/families/int8_one_pass.h"
#include "exec/winograd.h"
#include "ops/registry.h"

namespace hetcim::exec::native {
namespace {

// The output tile of hetcim's Winograd kernel (exec/winograd.h) for a float 3x3 stride-1
// convolution that oneDNN runs with kernel `impl`, or 0 to keep that kernel. Measured per layer
// with `hetcim profile` at 1 thread (bench/README.md, exec, sessions 14 and 16):
// - oneDNN's AVX2 direct kernel (2.6 has Winograd kernels for AVX-512 only). F(4x4) when it has
//   at least 32 tiles, F(2x2) below: per layer of ResNet-18 (oneDNN capped at AVX2 on a Zen 5),
//   F(4x4) took 0.81 / 0.66 ms at 56x56x64 / 28x28x128 against F(2x2)'s 1.33 / 1.12, and
//   F(2x2) 1.10 / 2.02 ms at 14x14x256 / 7x7x512 against F(4x4)'s 1.23 / 2.45 (direct: 2.2,
//   2.3, 2.4, 3.1).
// - oneDNN's own AVX-512 Winograd kernels (jit_fp32_wino_2x3, jit_wino_4x3) on maps of at
//   least 32 F(2x2) tiles, with the same tile rule. On a Zen 5: ResNet-50's six 56x56 and
//   28x28 layers (F(4x4)) 4.87 -> 3.57 ms, its five 14x14 ones (F(2x2)) 4.14 -> 3.63,
//   ResNet-18's ten 5.15 + 2.48 -> 3.62 + 2.07, VGG-11's 16x16x128 0.35 -> 0.18 ms. At
//   7x7x512 (16 tiles) hetcim's took 2.1-3.2 ms against oneDNN's 1.2-1.4 (16 MB of transformed
//   weights for 16 tiles), so smaller maps keep oneDNN's.
int winograd_tile(const Window2d& w, const std::string& impl) {
  if (!winograd::available() || w.c % 8 != 0 || w.oc % 8 != 0) return 0;
  const int64_t tiles_f2 = w.n * ((w.oh + 1) / 2) * ((w.ow + 1) / 2);
  const bool onednn_winograd =
      impl.rfind("jit_fp32_wino", 0) == 0 || impl.rfind("jit_wino", 0) == 0;
  if (onednn_winograd) {
    if (tiles_f2 < 32) return 0;
  } else {
    if (impl.rfind("jit:avx2", 0) != 0) return 0;
    // Fewer than 16 F(2x2) tiles (outputs below about 7x7): its transformed weights (16 / 9 of
    // the direct kernel's, read once per call) cost more than the tiles save. Measured at 1
    // thread (bench/README.md, exec, session 23): VGG-11's 4x4 layers 256 -> 512 1.35 -> 0.90 ms
    // and 512 -> 512 2.6 -> 1.7 ms direct, a lone 512 -> 512 at 6x6 (9 tiles) 4.0 -> 3.3, at
    // 8x8 (16) 4.9 (Winograd) against 6.2 (direct); ResNet-18's 7x7x512 (16) 2.02 against 3.1.
    if (tiles_f2 < 16) return 0;
    // Fewer than 64 channels in or out (where oneDNN is not asked for Winograd): only from 16
    // and on maps of >= 64 F(2x2) tiles. Measured as above: YOLOv5n's 32-channel layers at
    // 80x80 0.98 -> 0.52 ms, its 16-channel one at 160x160 1.40 -> 1.26; DenseNet-121's 128 ->
    // 32 layers 0.18 -> 0.15 ms at 16x16 (64 tiles), even at 8x8 (16), 0.022 -> 0.028 at 4x4 (4).
    if ((w.c < 64 || w.oc < 64) && (w.c < 16 || w.oc < 16 || tiles_f2 < 64)) return 0;
  }
  return w.n * ((w.oh + 3) / 4) * ((w.ow + 3) / 4) >= 32 ? 4 : 2;
}

// A float 3x3 stride-1 convolution by Winograd F(m x m, 3 x 3) on aBcd8b tensors: per block of
// nb tiles, the input transform, one batched oneDNN matmul (positions x nb x C times
// positions x C x OC), the output transform with the bias, the fused residual Add (as the
// primitive path's sum post-op) and the activation.
void conv_winograd(EngineContext& e, const graph::Node& n, const Window2d& w, int m,
                   const Activation& act, int add_at, const std::string& sum_of, size_t bias_at) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  const winograd::Conv cv{w.n, w.c, w.h, w.w, w.oc, w.oh, w.ow, w.pt, w.pl, m};
  const Tensor wt = e.constant(n.inputs.at(1));
  if (wt.dtype != DType::Float32) fail(n, "the weights must be float32");
  std::vector<float> u = winograd::transform_weights(cv, wt.data<float>());
  // Blocks of tiles whose transformed input and products (positions x nb x (C + OC) floats)
  // take at most 8 MB: the larger the matmul's M, the faster it ran (ResNet-18 at 56x56x64,
  // F(4x4): 1.06 ms in blocks of 24 tiles, 0.85 in 98, 0.81 in one of 196).
  const int64_t positions = cv.positions(), tiles = cv.tiles();
  const int64_t nb_max = std::max<int64_t>(
      16, (int64_t{8} << 20) / (positions * (w.c + w.oc) * int64_t{sizeof(float)}));
  const int64_t blocks = (tiles + nb_max - 1) / nb_max, nb = (tiles + blocks - 1) / blocks;
  const memory::desc vmd({positions, nb, w.c}, dt::f32, tag::abc);
  const memory::desc mmd({positions, nb, w.oc}, dt::f32, tag::abc);
  const memory::desc umd({positions, w.c, w.oc}, dt::f32, tag::any);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(vmd, umd, mmd), e.base_attr(), e.eng);
  memory umem = e.alloc(pd.weights_desc());
  e.reorder_now(memory({{positions, w.c, w.oc}, dt::f32, tag::abc}, e.eng, u.data()), umem);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, e.node_temp(vmd)}, {DNNL_ARG_WEIGHTS, umem}, {DNNL_ARG_DST, e.node_temp(mmd)}};
  e.add_scratchpad(pd, args);
  auto bias = std::make_shared<std::vector<float>>();
  if (bias_at > 0) {
    const Tensor b = e.constant(n.inputs[bias_at]);
    if (b.dtype != DType::Float32) fail(n, "the bias must be float32");
    bias->assign(b.data<float>(), b.data<float>() + b.numel());
  }
  const memory xm = e.get(x, memory::desc(dims_of(e.shape(x)), dt::f32, tag::aBcd8b));
  const memory::desc ymd(dims_of(e.shape(y)), dt::f32, tag::aBcd8b);
  const bool sum_into = add_at >= 0 && e.buf(sum_of).md == ymd;
  winograd::Epilogue ep;
  ep.sum = sum_into;
  ep.act = sum_into ? fused_activation(e.g->nodes[static_cast<size_t>(add_at)]) : act;
  const memory ym = sum_into ? e.bufs.at(sum_of).mem : e.output(y, ymd, DType::Float32);
  const dnnl::matmul product(pd);
  e.cur->steps.push_back([&e, cv, product, args, xm, ym, bias, ep, blocks, nb, tiles]() mutable {
    const auto* xp = static_cast<const float*>(xm.get_data_handle());
    auto* yp = static_cast<float*>(ym.get_data_handle());
    auto* vp = static_cast<float*>(args.at(DNNL_ARG_SRC).get_data_handle());
    const auto* mp = static_cast<const float*>(args.at(DNNL_ARG_DST).get_data_handle());
    ep.bias = bias->empty() ? nullptr : bias->data();
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t t0 = b * nb, nt = std::min(nb, tiles - t0);
      winograd::transform_input(cv, xp, t0, nt, nb, vp);
      product.execute(e.strm, args);
      winograd::transform_output(cv, mp, t0, nt, nb, ep, yp);
    }
  });
  e.cur->info.impl = "hetcim:winograd_f" + std::to_string(m) + "x" + std::to_string(m) + "(" +
                     pd.impl_info_str() + ")" + e.cur->info.impl;
  if (sum_into) {
    const std::string& add = e.g->nodes[static_cast<size_t>(add_at)].name;
    e.cur->info.impl += "+sum(" + add + ")";
    e.fused_away[add_at] = {n.name, sum_of};
  }
}

// A float 1x1 convolution (stride 1, no padding, no activation) whose only reader is an
// AveragePool without padding (DenseNet's transitions; 2-D only) runs after the pool, on the pooled
// map: both are linear and act on different axes, so the mean of W x + b over a window is W (the
// mean of x) + b, at 1 / (kh kw) of the multiply-adds (rounding differs as for any reordered
// sum). The pool's output is the convolution's; the AveragePool node runs inside it (fused
// away). Returns false, compiling nothing, where the pattern does not hold.
bool conv_after_pool(EngineContext& e, const graph::Node& n, const Window2d& w,
                     const Activation& act, bool has_bias, size_t bias_at) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  if (!e.fusing() || e.shape(x).size() != 4 || act.kind != Activation::None || w.group != 1 ||
      w.kh != 1 || w.kw != 1 || w.sh != 1 || w.sw != 1 || w.pt != 0 || w.pl != 0 || w.pb != 0 ||
      w.pr != 0)
    return false;
  const int j = e.sole_reader(y);
  const graph::Node* pool = e.later_host_node(j);
  if (!pool || pool->op_type != "AveragePool" || pool->outputs.size() != 1 ||
      pool->inputs.at(0) != y || !pool->attr_string("activation", "").empty())
    return false;
  const std::string& z = pool->outputs[0];
  const Window2d pw = pool_window(*e.g, *pool, y, z);
  if (pw.pt != 0 || pw.pl != 0 || pw.pb != 0 || pw.pr != 0 || pw.dh != 1 || pw.dw != 1 ||
      e.dtype(z) != DType::Float32)
    return false;
  // The pool writes the layout it reads (oneDNN's jit pooling needs that; asking for the
  // convolution's preferred source instead gave its reference kernel, 2.5 ms per transition),
  // and reads a plain x reordered to 8-channel blocks as the direct convolution would have (on
  // the plain layout it ran oneDNN's simple_nchw kernel); the 1x1 convolution reads the result.
  const bool include = pool->attr_int("count_include_pad", 0) != 0;
  const Buf& xb = e.buf(x);
  const memory::desc xmd = is_plain(xb.md, xb.shape) && w.c % 8 == 0
                               ? memory::desc(dims_of(xb.shape), dt::f32, tag::aBcd8b)
                               : xb.md;
  const dnnl::pooling_forward::primitive_desc ppd(
      dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference,
                                  include ? dnnl::algorithm::pooling_avg_include_padding
                                          : dnnl::algorithm::pooling_avg_exclude_padding,
                                  xmd, memory::desc({w.n, w.c, pw.oh, pw.ow}, dt::f32, tag::any),
                                  {pw.sh, pw.sw}, {pw.kh, pw.kw}, {0, 0}, {0, 0}),
      e.base_attr(), e.eng);
  const memory::dims strides{1, 1}, zero{0, 0};
  const memory::desc bias_md({w.oc}, dt::f32, tag::x);
  const memory::desc wany({w.oc, w.c, 1, 1}, dt::f32, tag::any);
  const memory::desc z_any(dims_of(e.shape(z)), dt::f32, tag::any);
  const auto cd = has_bias
                      ? dnnl::convolution_forward::desc(
                            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                            ppd.dst_desc(), wany, bias_md, z_any, strides, zero, zero, zero)
                      : dnnl::convolution_forward::desc(
                            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                            ppd.dst_desc(), wany, z_any, strides, zero, zero, zero);
  const dnnl::convolution_forward::primitive_desc cpd(cd, e.base_attr(), e.eng);
  const std::string impl = e.cur->info.impl;
  const memory pooled = e.node_temp(ppd.dst_desc());
  e.add_primitive(dnnl::pooling_forward(ppd),
                  {{DNNL_ARG_SRC, e.get(x, ppd.src_desc())}, {DNNL_ARG_DST, pooled}}, ppd);
  std::unordered_map<int, memory> args;
  memory wmem = e.alloc(cpd.weights_desc());
  e.reorder_now(e.const_memory(e.constant(n.inputs.at(1)),
                               memory::desc({w.oc, w.c, 1, 1}, dt::f32, tag::oihw)),
                wmem);
  args[DNNL_ARG_WEIGHTS] = wmem;
  if (has_bias) {
    const Tensor b = e.constant(n.inputs[bias_at]);
    if (b.dtype != DType::Float32) fail(n, "the bias must be float32");
    args[DNNL_ARG_BIAS] = e.const_memory(b, bias_md);
  }
  args[DNNL_ARG_SRC] = pooled;
  args[DNNL_ARG_DST] = e.output(z, cpd.dst_desc(), DType::Float32);
  e.add_primitive(dnnl::convolution_forward(cpd), args, cpd);
  e.cur->info.impl = std::string(cpd.impl_info_str()) + " after " + ppd.impl_info_str() +
                     " (the pool of '" + pool->name + "' first)" + impl;
  e.fused_away[j] = {n.name, ""};
  return true;
}

void conv(EngineContext& e, const graph::Node& n, bool q) {
  const std::string& x = n.inputs.at(0);
  const ops::QLinearOperands o = ops::weighted_operands(n.op_type).value();
  const std::string& wname = n.inputs.at(o.w);
  const std::string& y = n.outputs.at(0);
  Window2d w = conv_window(*e.g, n, x, wname, y);
  if (w.pb < 0 || w.pr < 0) fail(n, "negative padding");
  Tensor wt = e.constant(wname);
  const std::string taps = q ? std::string() : crop_dead_taps(w, wt);  // conv_taps.h
  const Activation act = fused_activation(n);
  const bool grouped = w.group > 1;
  memory::dims wd = grouped ? memory::dims{w.group, w.oc / w.group, w.c / w.group, w.kh, w.kw}
                            : memory::dims{w.oc, w.c, w.kh, w.kw};
  const memory::dims strides{w.sh, w.sw}, dil{w.dh - 1, w.dw - 1}, pl{w.pt, w.pl}, pr{w.pb, w.pr};
  const size_t bias_at = o.bias.value();
  const bool has_bias = has_input(n, bias_at);
  dnnl::primitive_attr attr = e.base_attr();
  dnnl::post_ops po;
  std::unordered_map<int, memory> args;
  memory::desc src_md, dst_md, bias_md;
  std::string sum_of;  // the other operand of the residual Add this convolution joins
  int add_at = -1;
  dt wdt = dt::f32;
  DType ytype = DType::Float32;
  int32_t zx = 0, zy = 0;
  bool halves = false, shift = false;  // int8_weight_halves()
  memory partial;
  if (q) {
    const float sx = e.scalar_f(*o.x_scale), sy = e.scalar_f(*o.y_scale);
    zx = e.scalar_zp(*o.x_zero_point);
    zy = e.scalar_zp(*o.y_zero_point);
    const auto sw = e.per_channel(*o.w_scale, w.oc);
    const auto zw = e.per_channel_zp(*o.w_zero_point, w.oc);
    const DType xtype = e.dtype(x);
    ytype = e.dtype(y);
    if ((xtype != DType::UInt8 && xtype != DType::Int8) ||
        (ytype != DType::UInt8 && ytype != DType::Int8))
      fail(n, "8-bit input and output expected");
    // Weights as s8 with zero point 0: w - zw must fit.
    Tensor w8 = Tensor::zeros(DType::Int8, wt.shape);
    const int64_t per_oc = wt.numel() / w.oc;
    for (int64_t i = 0; i < wt.numel(); ++i) {
      const int64_t v = static_cast<int64_t>(wt.at(i)) - zw[static_cast<size_t>(i / per_oc)];
      if (v < -128 || v > 127)
        fail(n,
             "weights minus their zero point do not fit int8; hetcim executes symmetric int8 "
             "weights");
      w8.data<int8_t>()[i] = static_cast<int8_t>(v);
    }
    wt = std::move(w8);
    wdt = dt::s8;
    std::vector<float> scales(static_cast<size_t>(w.oc));
    for (size_t c = 0; c < scales.size(); ++c) scales[c] = (sx * sw[c]) / sy;
    // Depthwise kernels multiply in int32 (one product per pair): exact without halves.
    const bool depthwise = w.c == w.group && w.oc == w.group;
    // Without VNNI: hetcim's exact one-pass kernels (int8_one_pass.h) in place of the halves.
    if (!depthwise && int8_one_pass()) {
      Int8Product p;
      p.xtype = xtype;
      p.ytype = ytype;
      p.zx = zx;
      p.zy = zy;
      p.sy = sy;
      p.scales = scales;
      p.act = act;
      if (has_bias) {
        const Tensor b = e.constant(n.inputs[bias_at]);
        if (b.dtype != DType::Int32 || b.numel() != w.oc)
          fail(n, "the bias must be int32 with one value per output channel");
        p.bias.assign(b.data<int32_t>(), b.data<int32_t>() + b.numel());
      }
      return conv_one_pass(e, n, w, wt, p);
    }
    halves = needs_halves(wt, depthwise ? 1 : (w.c / w.group) * w.kh * w.kw);
    shift = int8_weight_halves() && xtype == DType::Int8;
    if (shift) zx += 128;
    if (halves) partial = e.node_temp(nhwc_md(e.shape(y), dt::s32));
    int8_scales(e, attr, po, args, scales, 1, 4, partial);
    if (zx != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (zy != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    e.post_activation(po, act, sy);
    e.post_round(po, zy);
    src_md = nhwc_md(e.shape(x), shift ? dt::u8 : dnnl_type(xtype));
    dst_md = nhwc_md(e.shape(y), dnnl_type(ytype));
    bias_md = memory::desc({w.oc}, dt::s32, tag::x);
  } else {
    if (conv_after_pool(e, n, w, act, has_bias, bias_at)) return;
    if (act.kind == Activation::None) add_at = e.residual_add(y, sum_of);
    e.post_activation(po, act);
    const Buf& xb = e.buf(x);
    // Take the producer's layout when it is oneDNN's choice; let the primitive pick otherwise
    // (also after a Winograd convolution's blocked output: the direct kernels are faster in
    // their own channels-last layout, reorder included).
    src_md = is_plain(xb.md, xb.shape) || !is_strided(xb.md)
                 ? memory::desc(dims_of(e.shape(x)), dt::f32, tag::any)
                 : xb.md;
    dst_md = memory::desc(dims_of(e.shape(y)), dt::f32, tag::any);
    bias_md = memory::desc({w.oc}, dt::f32, tag::x);
  }
  attr.set_post_ops(po);
  const memory::desc wany(wd, wdt, tag::any);
  // Float 3x3 stride-1 convolutions of >= 64 channels in and out and outputs of at least 4x4:
  // oneDNN's Winograd kernels (F(2x2,3x3) / F(4x4,3x3)) when it has them for the shape, 1.1x
  // to 2.3x faster than its direct brgconv from 4x4 to 56x56 (1 thread, AVX-512; 2x slower at
  // 2x2); their transforms round differently from a direct sum (about 1e-5 relative per layer,
  // measured). hetcim's own (conv_winograd) where oneDNN has none (2.6: below AVX-512) and would
  // run its AVX2 direct kernel, and in place of oneDNN's on larger maps (winograd_tile). Direct
  // otherwise.
  dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
  const bool winograd_shape = !q && taps.empty() && w.kh == 3 && w.kw == 3 && w.sh == 1 &&
                              w.sw == 1 && w.dh == 1 && w.dw == 1 && !grouped && w.oh >= 4 &&
                              w.ow >= 4;
  if (winograd_shape && w.c >= 64 && w.oc >= 64) alg = dnnl::algorithm::convolution_winograd;
  auto make_desc = [&](const memory::desc& dmd, dnnl::algorithm a) {
    // Winograd kernels take their own (blocked) source layout.
    const memory::desc smd = a == dnnl::algorithm::convolution_winograd
                                 ? memory::desc(dims_of(e.shape(x)), dt::f32, tag::any)
                                 : src_md;
    return has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, a, smd,
                                                      wany, bias_md, dmd, strides, dil, pl, pr)
                    : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, a, smd,
                                                      wany, dmd, strides, dil, pl, pr);
  };
  auto make_pd = [&](const memory::desc& dmd, const dnnl::primitive_attr& at, bool fallback) {
    try {
      return dnnl::convolution_forward::primitive_desc(make_desc(dmd, alg), at, e.eng);
    } catch (const dnnl::error&) {
      if (!fallback || alg == dnnl::algorithm::convolution_direct) throw;
      alg = dnnl::algorithm::convolution_direct;
      return dnnl::convolution_forward::primitive_desc(make_desc(dmd, alg), at, e.eng);
    }
  };
  dnnl::convolution_forward::primitive_desc pd = make_pd(dst_md, attr, true);
  // hetcim's own Winograd kernel where it measured faster than the kernel oneDNN picked (its
  // AVX2 direct one, or on AVX-512 its own Winograd on larger maps): winograd_tile.
  if (winograd_shape) {
    const int m = winograd_tile(w, pd.impl_info_str());
    if (m > 0) return conv_winograd(e, n, w, m, act, add_at, sum_of, has_bias ? bias_at : 0);
  }
  // The residual Add as a sum post-op (EngineOptions::fuse), when the other operand's buffer
  // has the layout the convolution picks for its output: dst = conv + bias + s, then the Add's
  // activation.
  bool sum_into = add_at >= 0 && pd.dst_desc() == e.buf(sum_of).md;
  if (sum_into) {
    dnnl::post_ops spo;
    spo.append_sum(1.0f);
    e.post_activation(spo, fused_activation(e.g->nodes[static_cast<size_t>(add_at)]));
    dnnl::primitive_attr sattr = e.base_attr();
    sattr.set_post_ops(spo);
    try {
      pd = make_pd(e.buf(sum_of).md, sattr, false);
    } catch (const dnnl::error&) {
      sum_into = false;  // the kernel takes no sum post-op: the Add runs on its own
    }
  }
  // Weights: reorder once into the primitive's layout.
  const memory::desc wplain(wd, wdt, grouped ? tag::goihw : tag::oihw);
  Tensor lo;
  if (halves) std::tie(lo, wt) = weight_halves(wt);
  memory wuser = e.const_memory(wt, wplain);
  memory wmem = e.alloc(pd.weights_desc());
  e.reorder_now(wuser, wmem);
  args[DNNL_ARG_WEIGHTS] = wmem;
  if (has_bias) {
    Tensor b = e.constant(n.inputs[bias_at]);
    if (q && b.dtype != DType::Int32) fail(n, "the bias must be int32");
    if (!q && b.dtype != DType::Float32) fail(n, "the bias must be float32");
    args[DNNL_ARG_BIAS] = e.const_memory(b, bias_md);
  }
  args[DNNL_ARG_SRC] =
      shift ? shifted_u8(e, e.get(x, nhwc_md(e.shape(x), dt::s8))) : e.get(x, pd.src_desc());
  if (halves)
    add_lo_half<dnnl::convolution_forward>(
        e,
        [&](const memory::desc& dmd) {
          return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg,
                                                 pd.src_desc(), wany, dmd, strides, dil, pl, pr);
        },
        lo, wplain, args[DNNL_ARG_SRC], partial, zx);
  args[DNNL_ARG_DST] = sum_into ? e.bufs.at(sum_of).mem : e.output(y, pd.dst_desc(), ytype);
  if (!taps.empty()) e.cur->info.impl += " (" + taps + ")";
  if (q && zx != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = e.scalar_s32(zx);
  if (q && zy != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = e.scalar_s32(zy);
  e.add_primitive(dnnl::convolution_forward(pd), args, pd);
  if (sum_into) {
    const std::string& add = e.g->nodes[static_cast<size_t>(add_at)].name;
    e.cur->info.impl += "+sum(" + add + ")";
    e.fused_away[add_at] = {n.name, sum_of};
  }
}

}  // namespace

void compile_conv(EngineContext& e, const graph::Node& n) {
  conv(e, n, false);
}

void compile_qconv(EngineContext& e, const graph::Node& n) {
  conv(e, n, true);
}

// C/group x kernel taps.
int64_t conv_macs_per_output(const graph::Graph& g, const graph::Node& n) {
  const auto o = ops::weighted_operands(n.op_type);
  if (!o || n.inputs.size() <= o->w) return 16;
  const int64_t wn = known_count(g, n.inputs[o->w]), oc = known_dim(g, n.inputs[o->w], 0);
  return wn > 0 && oc > 0 ? wn / oc : -1;
}

}  // namespace hetcim::exec::native
