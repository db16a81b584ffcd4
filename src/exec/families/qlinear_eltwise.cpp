// The qbinary and qunary families (QLinearAdd, QLinearMul; QLinearSigmoid, QLinearLeakyRelu):
// exact uint8 kernels, tables of 256 entries where the output depends on one byte.
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "exec/families/families.h"
#include "exec/kernels.h"
#include "exec/quantize.h"

namespace hetcim::exec::native {
namespace {

// Element strides with which an operand of logical shape s (physical layout md) is read when
// iterating the broadcast output shape `out`.
std::vector<int64_t> bstrides(const memory::desc& md, const Shape& s, const Shape& out) {
  const auto phys = s.empty() ? std::vector<int64_t>{} : md_strides(md);
  std::vector<int64_t> st(out.size(), 0);
  for (size_t k = 0; k < s.size(); ++k) {
    const size_t o = out.size() - s.size() + k;
    st[o] = s[k] == 1 ? 0 : phys[k];
  }
  return st;
}

// QLinearAdd / QLinearMul's arithmetic (kernels.h) from the node being compiled.
kernels::QBinary qbinary_params(const EngineContext& e) {
  kernels::QBinary p;
  p.sa = e.scalar_f(1);
  p.za = e.scalar_zp(2);
  p.sb = e.scalar_f(4);
  p.zb = e.scalar_zp(5);
  p.sy = e.scalar_f(6);
  p.zy = e.scalar_zp(7);
  p.mul = e.node->op_type == "QLinearMul";
  const Activation act = fused_activation(*e.node);
  if (act.kind == Activation::Relu) p.lo = p.zy;
  if (act.kind == Activation::Clip) {
    p.lo = quantize_value(act.lo, p.sy, p.zy, {0, 255});
    p.hi = quantize_value(act.hi, p.sy, p.zy, {0, 255});
  }
  return p;
}

void table_op(EngineContext& e, const std::string& x, const std::string& y,
              std::shared_ptr<std::array<uint8_t, 256>> table) {
  memory::desc md;
  memory xm = e.get_strided(x, &md);
  memory ym = e.output(y, md, DType::UInt8);
  const int64_t count = static_cast<int64_t>(md.get_size());
  e.cur->info.impl = "hetcim:table";
  e.cur->steps.push_back([xm, ym, count, table]() {
    kernels::table_u8(static_cast<const uint8_t*>(xm.get_data_handle()),
                      static_cast<uint8_t*>(ym.get_data_handle()), count, table->data());
  });
}

}  // namespace

void compile_qbinary(EngineContext& e, const graph::Node& n) {
  const std::string& a = n.inputs.at(0);
  const std::string& b = n.inputs.at(3);
  const std::string& y = n.outputs.at(0);
  if (e.dtype(a) != DType::UInt8 || e.dtype(b) != DType::UInt8 || e.dtype(y) != DType::UInt8)
    fail(n, "uint8 operands and output expected");
  const kernels::QBinary p = qbinary_params(e);
  const Shape ys = e.shape(y);
  const Shape as = e.shape(a), bs = e.shape(b);
  if (as == ys && bs == ys) {
    const Buf& ab = e.buf(a);
    const memory::desc md = is_strided(ab.md) ? ab.md : plain_md(ys, dt::u8);
    memory am = e.get(a, md), bm = e.get(b, md);
    memory ym = e.output(y, md, DType::UInt8);
    const int64_t count = static_cast<int64_t>(md.get_size());
    e.cur->info.impl = "hetcim:qlinear_binary";
    e.cur->steps.push_back([am, bm, ym, count, p]() {
      kernels::qbinary_u8(static_cast<const uint8_t*>(am.get_data_handle()),
                          static_cast<const uint8_t*>(bm.get_data_handle()),
                          static_cast<uint8_t*>(ym.get_data_handle()), count, p);
    });
    return;
  }
  // Broadcast: per element with strides; a single-valued operand becomes an exact table.
  const bool a_single = graph::element_count(as) == 1 && as != ys;
  const std::string& big = a_single ? b : a;
  const std::string& small = a_single ? a : b;
  if (graph::element_count(e.shape(small)) == 1 && e.shape(big) == ys) {
    kernels::QBinary pp = p;
    pp.a_broadcast = a_single;
    memory::desc md;
    memory bigm = e.get_strided(big, &md);
    memory sm = e.get_plain(small);
    memory ym = e.output(y, like_md(md, ys, dt::u8), DType::UInt8);
    const int64_t count = static_cast<int64_t>(md.get_size());
    e.cur->info.impl = "hetcim:qlinear_binary_table";
    e.cur->steps.push_back([bigm, sm, ym, count, pp]() {
      kernels::qbinary_u8_scalar(static_cast<const uint8_t*>(bigm.get_data_handle()),
                                 *static_cast<const uint8_t*>(sm.get_data_handle()),
                                 static_cast<uint8_t*>(ym.get_data_handle()), count, pp);
    });
    return;
  }
  memory::desc amd, bmd;
  memory am = e.get_strided(a, &amd), bm = e.get_strided(b, &bmd);
  const memory::desc ymd = plain_md(ys, dt::u8);
  memory ym = e.output(y, ymd, DType::UInt8);
  auto sa = bstrides(amd, as, ys), sb = bstrides(bmd, bs, ys), sy = row_major_strides(ys);
  e.cur->info.impl = "hetcim:qlinear_binary_strided";
  e.cur->steps.push_back([am, bm, ym, ys, sa, sb, sy, p]() {
    const uint8_t* ap = static_cast<const uint8_t*>(am.get_data_handle());
    const uint8_t* bp = static_cast<const uint8_t*>(bm.get_data_handle());
    uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
    kernels::for_each_run(
        ys, {sy, sa, sb}, [&](int64_t len, const int64_t* off, const int64_t* st) {
          // ONNX Runtime's operand order (kernels.h): a constant along the run, b not.
          kernels::QBinary q = p;
          q.a_broadcast = len > 1 && st[1] == 0 && st[2] != 0;
          for (int64_t i = 0; i < len; ++i) {
            const float v =
                kernels::qbinary_value(ap[off[1] + i * st[1]], bp[off[2] + i * st[2]], q);
            yp[off[0] + i * st[0]] = static_cast<uint8_t>(kernels::qbinary_round(v, q));
          }
        });
  });
}

// QLinearSigmoid / QLinearLeakyRelu: the output depends on one uint8 value, so a 256-entry
// table computed with reference semantics is exact.
void compile_qunary(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  if (e.dtype(x) != DType::UInt8 || e.dtype(y) != DType::UInt8)
    fail(n, "uint8 input and output expected");
  const float sx = e.scalar_f(1), sy = e.scalar_f(3);
  const int32_t zx = e.scalar_zp(2), zy = e.scalar_zp(4);
  const float alpha = static_cast<float>(n.attr_float("alpha", 0.01));
  const bool sig = n.op_type == "QLinearSigmoid";
  auto table = std::make_shared<std::array<uint8_t, 256>>();
  for (int i = 0; i < 256; ++i) {
    const float v = dequantize_value(i, sx, zx);
    const float f = sig ? 1.0f / (1.0f + std::exp(-v)) : (v >= 0 ? v : v * alpha);
    (*table)[static_cast<size_t>(i)] = static_cast<uint8_t>(quantize_value(f, sy, zy, {0, 255}));
  }
  // SiLU in int8: the Mul(x, sigmoid(x)) this sigmoid alone feeds, folded into the table.
  if (const int j = sig ? e.silu_mul(x, y, true) : -1; j >= 0) {
    const graph::Node& mul = e.g->nodes[static_cast<size_t>(j)];
    const graph::Node* self = e.node;
    e.node = &mul;
    const kernels::QBinary p = qbinary_params(e);
    e.node = self;
    const bool x_first = mul.inputs[0] == x;
    for (int i = 0; i < 256; ++i) {
      const int32_t s = (*table)[static_cast<size_t>(i)];
      const float v = x_first ? kernels::qbinary_value(i, s, p) : kernels::qbinary_value(s, i, p);
      (*table)[static_cast<size_t>(i)] = static_cast<uint8_t>(kernels::qbinary_round(v, p));
    }
    e.fused_away[j] = {n.name, ""};
    table_op(e, x, mul.outputs[0], table);
    e.cur->info.impl = "hetcim:table+mul(" + mul.name + ")";
    return;
  }
  table_op(e, x, y, table);
}

}  // namespace hetcim::exec::native
