// The gemm and matmul families (and their QLinear forms QGemm, QLinearMatMul) as oneDNN
// matmuls: constant B reordered once into the primitive's layout, a Linear layer's bias Add
// joined as the product's bias, int8 exact without VNNI (int8_halves.h).
#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "exec/families/families.h"
#include "exec/families/int8_halves.h"
#include "exec/families/int8_one_pass.h"
#include "exec/kernels.h"
#include "ops/registry.h"

namespace hetcim::exec::native {
namespace {

// A float product Y[rows x N] = A[rows x K] B + bias with B constant, as a oneDNN 1x1 convolution
// over a rows x 1 image in channels-last layout (nhwc over {1, K, rows, 1} is A's row-major
// layout, and the same of Y's): oneDNN's direct 1x1 kernels read weights packed once here, at
// compile time, where its f32 matmul on AVX2 (gemm:jit, oneDNN 2.6) packs B again on every call.
// `b_nk`: B given as N x K (Gemm's transB), else K x N. Same products, another summation order
// (within float rounding of the matmul's). bench/README.md "Linear layers as 1x1 convolutions".
void float_product_as_conv(EngineContext& e, int64_t rows, int64_t K, int64_t N, const Tensor& b,
                           bool b_nk, const Tensor* bias, const dnnl::primitive_attr& attr,
                           const memory& src, const memory& dst) {
  const memory::desc s_md({1, K, rows, 1}, dt::f32, tag::nhwc);
  const memory::desc d_md({1, N, rows, 1}, dt::f32, tag::nhwc);
  const memory::desc w_any({N, K, 1, 1}, dt::f32, tag::any);
  const memory::desc w_user(
      {N, K, 1, 1}, dt::f32,
      b_nk ? memory::dims{K, 1, N * K, N * K} : memory::dims{1, N, N * K, N * K});
  const memory::desc bias_md({N}, dt::f32, tag::x);
  const auto desc =
      bias != nullptr ? dnnl::convolution_forward::desc(
                            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                            s_md, w_any, bias_md, d_md, {1, 1}, {0, 0}, {0, 0})
                      : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                        dnnl::algorithm::convolution_direct, s_md,
                                                        w_any, d_md, {1, 1}, {0, 0}, {0, 0});
  const dnnl::convolution_forward::primitive_desc pd(desc, attr, e.eng);
  std::unordered_map<int, memory> args;
  memory w = e.alloc(pd.weights_desc());
  e.reorder_now(e.const_memory(b, w_user), w);
  args[DNNL_ARG_WEIGHTS] = w;
  if (bias != nullptr) args[DNNL_ARG_BIAS] = e.const_memory(*bias, bias_md);
  args[DNNL_ARG_SRC] = memory(s_md, e.eng, src.get_data_handle());
  args[DNNL_ARG_DST] = memory(d_md, e.eng, dst.get_data_handle());
  e.add_primitive(dnnl::convolution_forward(pd), args, pd);
}

// The oneDNN post-op of node j when it is a float Gelu (ops/gelu.cpp: approximate "none" or
// "tanh") whose output has shape `ys`, the one reader of a product's output; none otherwise.
std::optional<dnnl::algorithm> sole_gelu(const EngineContext& e, int j, const Shape& ys) {
  const graph::Node* gn = e.later_host_node(j);
  const ops::Family* f = gn ? ops::find(gn->op_type) : nullptr;
  const graph::TensorInfo* out =
      gn && gn->outputs.size() == 1 ? e.g->info(gn->outputs[0]) : nullptr;
  if (!f || f->family != "gelu" || !out || out->dtype != DType::Float32 ||
      known_shape(*e.g, *gn, gn->outputs[0]) != ys)
    return std::nullopt;
  const std::string approximate = gn->attr_string("approximate", "none");
  if (approximate == "none") return dnnl::algorithm::eltwise_gelu_erf;
  if (approximate == "tanh") return dnnl::algorithm::eltwise_gelu_tanh;
  return std::nullopt;  // the Gelu kernel names the node and the attribute
}

// Gemm / QGemm as a oneDNN matmul: A (M x K, strided per transA), B constant reordered once.
void gemm(EngineContext& e, const graph::Node& n, bool q) {
  const std::string& a = n.inputs.at(0);
  const ops::QLinearOperands o = ops::weighted_operands(n.op_type).value();
  const std::string& bname = n.inputs.at(o.w);
  const std::string& y = n.outputs.at(0);
  const Shape& as = e.shape(a);
  const Shape& bs = e.shape(bname);
  if (as.size() != 2 || bs.size() != 2) fail(n, "A and B must be 2-D");
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const float alpha = static_cast<float>(n.attr_float("alpha", 1.0));
  const float beta = static_cast<float>(n.attr_float("beta", 1.0));
  const int64_t M = ta ? as[1] : as[0], K = ta ? as[0] : as[1], N = tb ? bs[0] : bs[1];
  if ((tb ? bs[1] : bs[0]) != K) fail(n, "inner dimensions of A and B differ");
  const size_t c_at = o.bias.value();
  Tensor bt = e.constant(bname);
  dnnl::primitive_attr attr = e.base_attr();
  dnnl::post_ops po;
  const Activation act = fused_activation(n);
  std::unordered_map<int, memory> args;
  DType atype = e.dtype(a), ytype = e.dtype(y);
  dt wdt = dt::f32, bias_dt = dt::f32;
  int32_t za = 0, zy = 0;
  bool halves = false, shift = false;  // int8_weight_halves()
  memory partial;
  if (q) {
    const float sa = e.scalar_f(*o.x_scale);
    za = e.scalar_zp(*o.x_zero_point);
    const auto sb = e.per_channel(*o.w_scale, N);
    const auto zb = e.per_channel_zp(*o.w_zero_point, N);
    const bool float_out = !has_input(n, *o.y_scale);
    const float sy = float_out ? 1.0f : e.scalar_f(*o.y_scale);
    zy = float_out ? 0 : e.scalar_zp(*o.y_zero_point);
    Tensor b8 = Tensor::zeros(DType::Int8, bt.shape);
    for (int64_t i = 0; i < bt.numel(); ++i) {
      const int64_t col = tb ? i / K : i % N;
      const int64_t v = static_cast<int64_t>(bt.at(i)) - zb[static_cast<size_t>(col)];
      if (v < -128 || v > 127) fail(n, "B minus its zero point does not fit int8");
      b8.data<int8_t>()[i] = static_cast<int8_t>(v);
    }
    bt = std::move(b8);
    wdt = dt::s8;
    bias_dt = dt::s32;
    std::vector<float> scales(static_cast<size_t>(N));
    for (size_t j = 0; j < scales.size(); ++j)
      scales[j] = float_out ? alpha * sa * sb[j] : (alpha * sa * sb[j]) / sy;
    // Without VNNI: hetcim's exact one-pass kernels (int8_one_pass.h) in place of the halves, for
    // a row-major A, an 8-bit output and a C of one value per column (or none).
    if (!ta && !float_out && int8_one_pass()) {
      Int8Product p;
      p.xtype = atype;
      p.ytype = ytype;
      p.zx = za;
      p.zy = zy;
      p.sy = sy;
      p.scales = scales;
      p.act = act;
      bool per_column = true;
      if (has_input(n, c_at) && beta != 0.0f) {
        const Tensor ct = e.constant(n.inputs[c_at]);
        const bool row = ct.shape.size() <= 1 || (ct.shape.size() == 2 && ct.shape[0] == 1);
        per_column = ct.dtype == DType::Int32 && row && alpha == 1.0f && beta == 1.0f &&
                     (ct.numel() == N || ct.numel() == 1);
        if (per_column)
          for (int64_t j = 0; j < N; ++j)
            p.bias.push_back(static_cast<int32_t>(ct.at(ct.numel() == 1 ? 0 : j)));
      }
      if (per_column) return gemm_one_pass(e, a, y, M, K, N, bt, tb ? 1 : N, tb ? K : 1, p);
    }
    halves = needs_halves(bt, K);
    shift = int8_weight_halves() && atype == DType::Int8;
    if (shift) {
      za += 128;
      atype = DType::UInt8;
    }
    if (halves) partial = e.node_temp(plain_md({M, N}, dt::s32));
    int8_scales(e, attr, po, args, scales, 1, 2, partial);
    if (za != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (zy != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    e.post_activation(po, act, sy);
    if (!float_out) e.post_round(po, zy);
  } else {
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    e.post_activation(po, act);
  }
  attr.set_post_ops(po);
  const dt adt = dnnl_type(atype, e.node);
  const memory::desc a_md(memory::dims{M, K}, adt, ta ? memory::dims{1, M} : memory::dims{K, 1});
  const memory::desc b_user(memory::dims{K, N}, wdt, tb ? memory::dims{1, K} : memory::dims{N, 1});
  const memory::desc b_any(memory::dims{K, N}, wdt, tag::any);
  const memory::desc y_md = plain_md({M, N}, dnnl_type(ytype, e.node));
  memory::desc c_md;
  Tensor ct;
  const bool has_c = has_input(n, c_at) && beta != 0.0f;
  if (has_c) {
    ct = e.constant(n.inputs[c_at]);
    Shape cs = ct.shape;
    while (cs.size() < 2) cs.insert(cs.begin(), 1);
    if ((cs[0] != 1 && cs[0] != M) || (cs[1] != 1 && cs[1] != N))
      fail(n, "C does not broadcast to M x N");
    if (q && ct.dtype != DType::Int32) fail(n, "C must be int32");
    if (!q) {
      // beta and alpha: matmul computes alpha * (A B + C'), so C' = beta * C / alpha.
      for (int64_t i = 0; i < ct.numel(); ++i)
        ct.data<float>()[i] = ct.data<float>()[i] * beta / alpha;
    } else if (alpha != 1.0f || beta != 1.0f) {
      fail(n, "QGemm with a bias needs alpha = beta = 1");
    }
    ct.shape = cs;
    c_md = plain_md(cs, bias_dt);
  }
  // A float Gemm with constant B, A not transposed, alpha 1 and a C of N values (or none): a
  // Linear layer, run as a 1x1 convolution (float_product_as_conv).
  if (!q && !ta && alpha == 1.0f && adt == dt::f32 && ytype == DType::Float32 &&
      (!has_c || (ct.shape[0] == 1 && ct.shape[1] == N))) {
    const memory src = e.get_plain(a);
    float_product_as_conv(e, M, K, N, bt, tb, has_c ? &ct : nullptr, attr, src,
                          e.output(y, y_md, ytype));
    return;
  }
  auto desc =
      has_c ? dnnl::matmul::desc(a_md, b_any, c_md, y_md) : dnnl::matmul::desc(a_md, b_any, y_md);
  dnnl::matmul::primitive_desc pd(desc, attr, e.eng);
  Tensor lo;
  if (halves) std::tie(lo, bt) = weight_halves(bt);
  memory buser = e.const_memory(bt, b_user);
  memory bmem = e.alloc(pd.weights_desc());
  e.reorder_now(buser, bmem);
  args[DNNL_ARG_WEIGHTS] = bmem;
  if (has_c) args[DNNL_ARG_BIAS] = e.const_memory(ct, c_md);
  // A: row-major input viewed with the transA strides.
  memory abuf = shift ? shifted_u8(e, e.get_plain(a)) : e.get_plain(a);
  args[DNNL_ARG_SRC] = memory(a_md, e.eng, abuf.get_data_handle());
  if (halves)
    add_lo_half<dnnl::matmul>(
        e, [&](const memory::desc& dmd) { return dnnl::matmul::desc(a_md, b_any, dmd); }, lo,
        b_user, args[DNNL_ARG_SRC], partial, za);
  args[DNNL_ARG_DST] = e.output(y, y_md, ytype);
  if (q && za != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = e.scalar_s32(za);
  if (q && zy != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = e.scalar_s32(zy);
  e.add_primitive(dnnl::matmul(pd), args, pd);
}

void matmul(EngineContext& e, const graph::Node& n, bool q) {
  const std::string& a = n.inputs.at(0);
  const ops::QLinearOperands o = ops::weighted_operands(n.op_type).value();
  const std::string& b = n.inputs.at(o.w);
  const std::string& y = n.outputs.at(0);
  Shape as = e.shape(a), bs = e.shape(b);
  const Shape ys = e.shape(y);
  if (as.size() < 2 || bs.size() < 2) fail(n, "MatMul operands of rank 1 are not supported");
  size_t r = std::max(as.size(), bs.size());
  while (as.size() < r) as.insert(as.begin(), 1);
  while (bs.size() < r) bs.insert(bs.begin(), 1);
  const int64_t N = bs.back();
  Shape ys_full = ys;
  while (ys_full.size() < r) ys_full.insert(ys_full.begin(), 1);
  // A float B without batch dimensions (a Linear layer on [..., M, K] activations): one 2-D
  // GEMM over every row of A (oneDNN runs a broadcast batch as a loop of small products).
  if (!q && r > 2 && std::all_of(bs.begin(), bs.end() - 2, [](int64_t d) { return d == 1; })) {
    const int64_t rows = graph::element_count(as) / as.back();
    as = {rows, as.back()};
    bs = {bs[r - 2], N};
    ys_full = {rows, N};
    r = 2;
  }
  dnnl::primitive_attr attr = e.base_attr();
  dnnl::post_ops po;
  std::unordered_map<int, memory> args;
  const DType ytype = e.dtype(y);
  int32_t za = 0, zy = 0, zb = 0;
  bool halves = false, shift = false;  // int8_weight_halves()
  memory partial;
  int bias_at = -1;  // the bias Add done by this product (matmul_bias)
  std::string bias;
  dt adt = dnnl_type(e.dtype(a), e.node);
  dt bdt = dnnl_type(e.dtype(b), e.node);
  const bool b_const = e.init(b) != nullptr;
  Tensor bt;
  if (b_const) bt = e.constant(b);
  if (q) {
    const float sa = e.scalar_f(*o.x_scale), sy = e.scalar_f(*o.y_scale);
    za = e.scalar_zp(*o.x_zero_point);
    zy = e.scalar_zp(*o.y_zero_point);
    const auto sb = e.per_channel(*o.w_scale, N);
    const auto zbs = e.per_channel_zp(*o.w_zero_point, N);
    if (b_const) {
      Tensor b8 = Tensor::zeros(DType::Int8, bt.shape);
      for (int64_t i = 0; i < bt.numel(); ++i) {
        const int64_t v = static_cast<int64_t>(bt.at(i)) - zbs[static_cast<size_t>(i % N)];
        if (v < -128 || v > 127) fail(n, "B minus its zero point does not fit int8");
        b8.data<int8_t>()[i] = static_cast<int8_t>(v);
      }
      bt = std::move(b8);
      bdt = dt::s8;
    } else {
      if (bdt != dt::s8) fail(n, "a non-constant B must be int8");
      zb = zbs[0];
      for (int32_t z : zbs)
        if (z != zb) fail(n, "per-column zero points of a non-constant B are not supported");
      if (zb != 0) attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {DNNL_RUNTIME_S32_VAL});
    }
    std::vector<float> scales(static_cast<size_t>(N));
    for (size_t j = 0; j < scales.size(); ++j) scales[j] = (sa * sb[j]) / sy;
    // Without VNNI: hetcim's exact one-pass kernels (int8_one_pass.h) in place of the halves, for
    // a constant B without batch dimensions (every row of A times B).
    if (b_const && int8_one_pass() &&
        std::all_of(bs.begin(), bs.end() - 2, [](int64_t d) { return d == 1; })) {
      Int8Product p;
      p.xtype = e.dtype(a);
      p.ytype = ytype;
      p.zx = za;
      p.zy = zy;
      p.sy = sy;
      p.scales = scales;
      p.act = fused_activation(n);
      const int64_t K = as.back();
      return gemm_one_pass(e, a, y, graph::element_count(as) / K, K, N, bt, N, 1, p);
    }
    // A non-constant B is split each run (its zero point stays with the hi half's kernel).
    halves = b_const ? needs_halves(bt, as.back()) : int8_weight_halves() && as.back() > 1;
    shift = int8_weight_halves() && adt == dt::s8;
    if (shift) {
      za += 128;
      adt = dt::u8;
    }
    if (halves) partial = e.node_temp(plain_md(ys_full, dt::s32));
    int8_scales(e, attr, po, args, scales, r - 1, r, partial);
    if (za != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (zy != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    e.post_activation(po, fused_activation(n), sy);
    e.post_round(po, zy);
  } else if (r == 2 && fused_activation(n).kind == Activation::None &&
             (bias_at = e.matmul_bias(y, N, bias)) >= 0) {
    e.post_activation(po, fused_activation(e.g->nodes[static_cast<size_t>(bias_at)]));
  } else {
    e.post_activation(po, fused_activation(n));
  }
  // A float Linear layer (constant B, one 2-D product): a 1x1 convolution (float_product_as_conv),
  // with the Gelu that alone reads its output (after the bias) as the convolution's post-op.
  if (!q && b_const && r == 2 && adt == dt::f32 && bdt == dt::f32 && ytype == DType::Float32) {
    Tensor bias_t;
    if (bias_at >= 0) {
      bias_t = e.constant(bias);
      const graph::Node& add = e.g->nodes[static_cast<size_t>(bias_at)];
      e.fused_away[bias_at] = {n.name, ""};
      e.cur->info.impl += "+bias(" + add.name + ")";
    }
    std::string y_out = bias_at >= 0 ? e.g->nodes[static_cast<size_t>(bias_at)].outputs[0] : y;
    const graph::Node& last = bias_at >= 0 ? e.g->nodes[static_cast<size_t>(bias_at)] : n;
    if (fused_activation(last).kind == Activation::None) {
      const int j = e.fusing() ? e.sole_reader(y_out) : -1;
      if (const auto gelu = sole_gelu(e, j, ys)) {
        po.append_eltwise(1.0f, *gelu, 0.0f, 0.0f);
        const graph::Node& gn = e.g->nodes[static_cast<size_t>(j)];
        e.fused_away[j] = {n.name, ""};
        e.cur->info.impl += "+gelu(" + gn.name + ")";
        y_out = gn.outputs[0];
      }
    }
    attr.set_post_ops(po);
    const memory src = e.get_plain(a);
    float_product_as_conv(e, as[0], as[1], N, bt, false, bias_at >= 0 ? &bias_t : nullptr, attr,
                          src, e.output(y_out, plain_md(ys, dt::f32), ytype));
    return;
  }
  attr.set_post_ops(po);
  const memory::desc a_md = plain_md(as, adt);
  const memory::desc b_md = plain_md(bs, bdt);
  const memory::desc y_md = plain_md(ys_full, dnnl_type(ytype, e.node));
  const memory::desc b_use = b_const ? memory::desc(dims_of(bs), bdt, tag::any) : b_md;
  const memory::desc bias_md({1, N}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(bias_at >= 0 ? dnnl::matmul::desc(a_md, b_use, bias_md, y_md)
                                               : dnnl::matmul::desc(a_md, b_use, y_md),
                                  attr, e.eng);
  if (bias_at >= 0) {
    args[DNNL_ARG_BIAS] = e.const_memory(e.constant(bias), bias_md);
    const graph::Node& add = e.g->nodes[static_cast<size_t>(bias_at)];
    e.fused_away[bias_at] = {n.name, ""};
    e.cur->info.impl += "+bias(" + add.name + ")";
  }
  Tensor lo;
  memory lo_runtime;
  if (b_const) {
    if (halves) std::tie(lo, bt) = weight_halves(bt);
    memory buser = e.const_memory(bt, b_md);
    memory bmem = e.alloc(pd.weights_desc());
    e.reorder_now(buser, bmem);
    args[DNNL_ARG_WEIGHTS] = bmem;
  } else if (halves) {
    memory bmem = memory(b_md, e.eng, e.get_plain(b).get_data_handle());
    lo_runtime = e.node_temp(b_md);
    memory hi = e.node_temp(b_md);
    const size_t count = b_md.get_size();
    e.cur->steps.push_back([bmem, lo_runtime, hi, count]() {
      kernels::int8_halves(static_cast<const int8_t*>(bmem.get_data_handle()),
                           static_cast<int8_t*>(lo_runtime.get_data_handle()),
                           static_cast<int8_t*>(hi.get_data_handle()), count);
    });
    args[DNNL_ARG_WEIGHTS] = hi;
  } else {
    args[DNNL_ARG_WEIGHTS] = memory(b_md, e.eng, e.get_plain(b).get_data_handle());
  }
  memory abuf = shift ? shifted_u8(e, e.get_plain(a)) : e.get_plain(a);
  args[DNNL_ARG_SRC] = memory(a_md, e.eng, abuf.get_data_handle());
  if (halves)
    add_lo_half<dnnl::matmul>(
        e, [&](const memory::desc& dmd) { return dnnl::matmul::desc(a_md, b_use, dmd); }, lo, b_md,
        args[DNNL_ARG_SRC], partial, za, lo_runtime);
  const std::string& y_out = bias_at >= 0 ? e.g->nodes[static_cast<size_t>(bias_at)].outputs[0] : y;
  memory& out = e.output(y_out, plain_md(ys, dnnl_type(ytype, e.node)), ytype);
  args[DNNL_ARG_DST] = memory(y_md, e.eng, out.get_data_handle());
  if (q && za != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = e.scalar_s32(za);
  if (q && zb != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS] = e.scalar_s32(zb);
  if (q && zy != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = e.scalar_s32(zy);
  e.add_primitive(dnnl::matmul(pd), args, pd);
}

// Float binary ops: oneDNN binary when the second operand broadcasts into the first (swapping
}  // namespace

void compile_gemm(EngineContext& e, const graph::Node& n) {
  gemm(e, n, false);
}

void compile_qgemm(EngineContext& e, const graph::Node& n) {
  gemm(e, n, true);
}

void compile_matmul(EngineContext& e, const graph::Node& n) {
  matmul(e, n, false);
}

void compile_qmatmul(EngineContext& e, const graph::Node& n) {
  matmul(e, n, true);
}

// K: A's columns (its rows when transposed).
int64_t gemm_macs_per_output(const graph::Graph& g, const graph::Node& n) {
  return n.inputs.empty() ? -1 : known_dim(g, n.inputs[0], n.attr_int("transA", 0) != 0 ? 0 : 1);
}

// K: A's last dimension.
int64_t matmul_macs_per_output(const graph::Graph& g, const graph::Node& n) {
  return n.inputs.empty() ? -1 : known_dim(g, n.inputs[0], -1);
}

}  // namespace hetcim::exec::native
