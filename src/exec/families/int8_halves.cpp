#include "exec/families/int8_halves.h"

#include <algorithm>
#include <cstring>

#include "exec/kernels.h"

namespace hetcim::exec::native {

// Whether an int8 kernel over weights w8, adding k_per_output products per output, must run as
// halves here: some adjacent pair could overflow int16 (one product per output cannot).
bool needs_halves(const Tensor& w8, int64_t k_per_output) {
  if (!int8_weight_halves() || k_per_output < 2) return false;
  const int8_t* w = w8.data<int8_t>();
  return std::any_of(w, w + w8.numel(), [](int8_t v) { return v < -64 || v > 64; });
}

// w8 = lo + hi, lo = floor(w / 2) in [-64, 63], hi = w - lo in [-64, 64].
std::pair<Tensor, Tensor> weight_halves(const Tensor& w8) {
  std::pair<Tensor, Tensor> h{Tensor::zeros(DType::Int8, w8.shape),
                              Tensor::zeros(DType::Int8, w8.shape)};
  kernels::int8_halves(w8.data<int8_t>(), h.first.data<int8_t>(), h.second.data<int8_t>(),
                       static_cast<size_t>(w8.numel()));
  return h;
}

// The requantization scales of an int8 kernel, one per output channel along `axis` of a
// rank-`rank` output: oneDNN output scales (one value when all agree) or, for the hi half's
// kernel of a split one (`partial` given: the lo half's int32 sum), post-ops 0 and 1 that add
// partial and then multiply the scales (oneDNN applies output scales before post-ops, so they
// cannot stay output scales). With every sum below 2^24 the float value is the single kernel's.
void int8_scales(EngineContext& e, dnnl::primitive_attr& attr, dnnl::post_ops& po,
                 std::unordered_map<int, memory>& args, const std::vector<float>& scales,
                 size_t axis, size_t rank, const memory& partial) {
  if (!partial) {
    const bool same =
        std::all_of(scales.begin(), scales.end(), [&](float v) { return v == scales.front(); });
    if (same)
      attr.set_output_scales(0, {scales.front()});
    else
      attr.set_output_scales(1 << axis, scales);
    return;
  }
  Shape scale_shape(rank, 1);
  scale_shape[axis] = static_cast<int64_t>(scales.size());
  // In partial's dimension order (the same bytes as row-major for a per-channel vector): on
  // AVX2 oneDNN 2.6 takes a channels-last convolution over a 1x1 map (a squeeze-excitation
  // gate's) with its reference kernel when the two post-op operands' orders differ.
  memory sm = e.alloc(like_md(partial.get_desc(), scale_shape, dt::f32));
  std::memcpy(sm.get_data_handle(), scales.data(), scales.size() * sizeof(float));
  po.append_binary(dnnl::algorithm::binary_add, partial.get_desc());
  po.append_binary(dnnl::algorithm::binary_mul, sm.get_desc());
  args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = partial;
  args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1] = sm;
}

// An s8 source as u8 (x + 128: the sign bit flipped) in a node temp, refreshed by a step each
// run; the caller adds 128 to its zero point. Without VNNI oneDNN rounds the weights of
// s8-source kernels to even values; u8 sources keep them whole.
memory shifted_u8(EngineContext& e, const memory& s8) {
  memory::desc md = s8.get_desc();
  md.data.data_type = dnnl_u8;
  memory u8 = e.node_temp(md);
  const size_t bytes = md.get_size();
  e.cur->steps.push_back([s8, u8, bytes]() {
    kernels::flip_sign_bits(static_cast<const uint8_t*>(s8.get_data_handle()),
                            static_cast<uint8_t*>(u8.get_data_handle()), bytes);
  });
  return u8;
}

}  // namespace hetcim::exec::native
