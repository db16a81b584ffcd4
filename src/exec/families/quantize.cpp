// The quantize and dequantize families (QuantizeLinear, DequantizeLinear): per-tensor and
// per-axis scales, exact in the rounding of exec/quantize.h, in the input's strided layout.
#include "exec/quantize.h"

#include <string>
#include <vector>

#include "exec/families/families.h"
#include "exec/kernels.h"

namespace hetcim::exec::native {
namespace {

// Per-axis parameters of QuantizeLinear/DequantizeLinear (scale with more than one value).
bool per_axis(const EngineContext& e, int64_t& axis, std::vector<float>& s, std::vector<int32_t>& z,
              const Shape& xs) {
  const Tensor st = e.constant(e.node->inputs.at(1));
  if (st.numel() == 1) return false;
  axis = norm_axis(*e.node, e.node->attr_int("axis", 1), static_cast<int64_t>(xs.size()));
  s = e.per_channel(1, xs[static_cast<size_t>(axis)]);
  z = e.per_channel_zp(2, xs[static_cast<size_t>(axis)]);
  return true;
}

}  // namespace

void compile_quantize(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  if (e.dtype(x) != DType::Float32) fail(n, "float32 input expected");
  DType yt = has_input(n, 2) ? e.constant(n.inputs[2]).dtype : DType::UInt8;
  if (yt != DType::UInt8 && yt != DType::Int8) fail(n, "uint8 or int8 output expected");
  const bool s8 = yt == DType::Int8;
  memory::desc xmd;
  memory xm = e.get_strided(x, &xmd);
  const Shape xs = e.shape(x);
  const memory::desc ymd = like_md(xmd, xs, s8 ? dt::s8 : dt::u8);
  memory ym = e.output(y, ymd, yt);
  int64_t axis = 0;
  std::vector<float> sv;
  std::vector<int32_t> zv;
  const QRange r = qrange(yt);
  if (!per_axis(e, axis, sv, zv, xs)) {
    const float s = e.scalar_f(1);
    const int32_t z = e.scalar_zp(2);
    const int64_t count = graph::element_count(xs);
    const bool dense = xmd.get_size() == static_cast<size_t>(count) * 4;
    if (!dense) fail(n, "input layout is not dense");
    e.cur->info.impl = "hetcim:quantize";
    e.cur->steps.push_back([xm, ym, count, s, z, s8]() {
      kernels::quantize_f32(static_cast<const float*>(xm.get_data_handle()), ym.get_data_handle(),
                            s8, count, s, z);
    });
    return;
  }
  const auto xst = md_strides(xmd), yst = md_strides(ymd);
  e.cur->info.impl = "hetcim:quantize_per_axis";
  e.cur->steps.push_back([xm, ym, xs, xst, yst, axis, sv, zv, r, s8]() {
    const float* xp = static_cast<const float*>(xm.get_data_handle());
    std::vector<int64_t> xst2 = xst, yst2 = yst;
    const int64_t total = graph::element_count(xs);
    for (int64_t i = 0; i < total; ++i) {
      int64_t rem = i, xo = 0, yo = 0, c = 0;
      for (size_t k = xs.size(); k-- > 0;) {
        const int64_t v = rem % xs[k];
        rem /= xs[k];
        xo += v * xst2[k];
        yo += v * yst2[k];
        if (static_cast<int64_t>(k) == axis) c = v;
      }
      const int32_t q =
          quantize_value(xp[xo], sv[static_cast<size_t>(c)], zv[static_cast<size_t>(c)], r);
      if (s8)
        static_cast<int8_t*>(ym.get_data_handle())[yo] = static_cast<int8_t>(q);
      else
        static_cast<uint8_t*>(ym.get_data_handle())[yo] = static_cast<uint8_t>(q);
    }
  });
}

void compile_dequantize(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  const DType xt = e.dtype(x);
  if (xt != DType::UInt8 && xt != DType::Int8 && xt != DType::Int32)
    fail(n, "8-bit or int32 input expected");
  memory::desc xmd;
  memory xm = e.get_strided(x, &xmd);
  const Shape xs = e.shape(x);
  const memory::desc ymd = like_md(xmd, xs, dt::f32);
  memory ym = e.output(y, ymd, DType::Float32);
  int64_t axis = -1;
  std::vector<float> sv;
  std::vector<int32_t> zv;
  const int64_t count = graph::element_count(xs);
  if (!per_axis(e, axis, sv, zv, xs) && xt != DType::Int32) {
    const float s = e.scalar_f(1);
    const int32_t z = e.scalar_zp(2);
    const bool s8 = xt == DType::Int8;
    e.cur->info.impl = "hetcim:dequantize";
    e.cur->steps.push_back([xm, ym, count, s, z, s8]() {
      kernels::dequantize_x8(xm.get_data_handle(), s8, static_cast<float*>(ym.get_data_handle()),
                             count, s, z);
    });
    return;
  }
  if (axis < 0) {
    axis = 0;
    sv.assign(static_cast<size_t>(xs.empty() ? 1 : xs[0]), e.scalar_f(1));
    zv.assign(sv.size(), e.scalar_zp(2));
  }
  const auto xst = md_strides(xmd), yst = md_strides(ymd);
  e.cur->info.impl = "hetcim:dequantize_per_axis";
  e.cur->steps.push_back([xm, ym, xs, xst, yst, axis, sv, zv, xt]() {
    float* yp = static_cast<float*>(ym.get_data_handle());
    const int64_t total = graph::element_count(xs);
    for (int64_t i = 0; i < total; ++i) {
      int64_t rem = i, xo = 0, yo = 0, c = 0;
      for (size_t k = xs.size(); k-- > 0;) {
        const int64_t v = rem % xs[k];
        rem /= xs[k];
        xo += v * xst[k];
        yo += v * yst[k];
        if (static_cast<int64_t>(k) == axis) c = v;
      }
      int32_t q;
      if (xt == DType::Int8)
        q = static_cast<const int8_t*>(xm.get_data_handle())[xo];
      else if (xt == DType::UInt8)
        q = static_cast<const uint8_t*>(xm.get_data_handle())[xo];
      else
        q = static_cast<const int32_t*>(xm.get_data_handle())[xo];
      yp[yo] = dequantize_value(q, sv[static_cast<size_t>(c)], zv[static_cast<size_t>(c)]);
    }
  });
}

}  // namespace hetcim::exec::native
