// The eltwise family (float Relu, LeakyRelu, Sigmoid, Tanh, Clip, HardSigmoid, HardSwish): oneDNN
// eltwise primitives, hand-written Sigmoid (and SiLU with its Mul) and HardSigmoid kernels.
#include <string>
#include <unordered_map>

#include "exec/families/families.h"
#include "exec/kernels.h"

namespace hetcim::exec::native {

void eltwise_with(EngineContext& e, const std::string& x, const std::string& y, dnnl::algorithm alg,
                  float alpha, float beta, const Activation& act) {
  const Buf& xb = e.buf(x);
  dnnl::primitive_attr attr = e.base_attr();
  dnnl::post_ops po;
  e.post_activation(po, act);
  attr.set_post_ops(po);
  dnnl::eltwise_forward::primitive_desc pd(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, xb.md, alpha, beta),
      attr, e.eng);
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = e.get(x, pd.src_desc());
  args[DNNL_ARG_DST] = e.output(y, pd.dst_desc(), DType::Float32);
  e.add_primitive(dnnl::eltwise_forward(pd), args, pd);
}

void compile_eltwise(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  if (e.dtype(x) != DType::Float32)
    fail(n, "expected a float32 input, got " + std::string(graph::dtype_name(e.dtype(x))) +
                " (a Relu/Clip on quantized data must be fused into its producer)");
  const std::string& op = n.op_type;
  using A = dnnl::algorithm;
  if (op == "Relu") return eltwise_with(e, x, y, A::eltwise_relu, 0.0f, 0.0f, {});
  if (op == "LeakyRelu")
    return eltwise_with(e, x, y, A::eltwise_relu, static_cast<float>(n.attr_float("alpha", 0.01)),
                        0.0f, {});
  if (op == "Sigmoid") {
    // Hand-written: about 4x faster than oneDNN 2.6's logistic on AVX-512 (YOLOv5n's SiLUs).
    // With the Mul(x, Sigmoid(x)) it alone feeds: one SiLU kernel writing the Mul's output.
    const Buf& xb = e.buf(x);
    memory xm = xb.mem;
    const int j = e.silu_mul(x, y, false);
    const bool silu = j >= 0;
    memory ym =
        e.output(silu ? e.g->nodes[static_cast<size_t>(j)].outputs[0] : y, xb.md, DType::Float32);
    const int64_t count = static_cast<int64_t>(xb.md.get_size() / sizeof(float));
    e.cur->info.impl =
        silu ? "hetcim:silu(" + e.g->nodes[static_cast<size_t>(j)].name + ")" : "hetcim:sigmoid";
    if (silu) e.fused_away[j] = {n.name, ""};
    e.cur->steps.push_back([xm, ym, count, silu]() {
      (silu ? kernels::silu_f32 : kernels::sigmoid_f32)(
          static_cast<const float*>(xm.get_data_handle()),
          static_cast<float*>(ym.get_data_handle()), count);
    });
    return;
  }
  if (op == "Tanh") return eltwise_with(e, x, y, A::eltwise_tanh, 0.0f, 0.0f, {});
  if (op == "Clip") {
    const Activation c = clip_bounds(*e.g, n);
    return eltwise_with(e, x, y, A::eltwise_clip, c.lo, c.hi, {});
  }
  if (op == "HardSwish") return eltwise_with(e, x, y, A::eltwise_hardswish, 0.0f, 0.0f, {});
  // HardSigmoid: clip(alpha x + beta, 0, 1). Hand-written on an unpadded buffer (oneDNN 2.6
  // runs linear + clip post-op with its reference implementation, 10x slower than a loop);
  // a padded blocked layout keeps oneDNN, which leaves the padding zero.
  const float alpha = static_cast<float>(n.attr_float("alpha", 0.2)),
              beta = static_cast<float>(n.attr_float("beta", 0.5));
  const Buf& xb = e.buf(x);
  const int64_t count = graph::element_count(e.shape(x));
  if (static_cast<int64_t>(xb.md.get_size()) == count * static_cast<int64_t>(sizeof(float))) {
    memory xm = xb.mem;
    memory ym = e.output(y, xb.md, DType::Float32);
    e.cur->info.impl = "hetcim:hardsigmoid";
    e.cur->steps.push_back([xm, ym, count, alpha, beta]() {
      kernels::hardsigmoid_f32(static_cast<const float*>(xm.get_data_handle()),
                               static_cast<float*>(ym.get_data_handle()), count, alpha, beta);
    });
    return;
  }
  Activation c;
  c.kind = Activation::Clip;
  c.lo = 0;
  c.hi = 1;
  eltwise_with(e, x, y, A::eltwise_linear, alpha, beta, c);
}

}  // namespace hetcim::exec::native
