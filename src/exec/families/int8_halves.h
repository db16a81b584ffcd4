// Exact int8 products where oneDNN's int8 kernels are not exact (int8_weight_halves(), engine.h:
// no VNNI): weights split into halves within [-64, 64] run as two kernels, the first's int32 sum
// added by the second as a post-op, and s8 sources shifted to u8. The conv and matmul families
// (families/conv.cpp, families/matmul.cpp) call these where they build an int8 primitive.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exec/engine_context.h"

namespace hetcim::exec::native {

// Whether an int8 kernel over weights w8, adding k_per_output products per output, must run as
// halves here: some adjacent pair could overflow int16 (one product per output cannot).
bool needs_halves(const Tensor& w8, int64_t k_per_output);
// w8 = lo + hi, lo = floor(w / 2) in [-64, 63], hi = w - lo in [-64, 64].
std::pair<Tensor, Tensor> weight_halves(const Tensor& w8);
// The requantization scales of an int8 kernel, one per output channel along `axis` of a
// rank-`rank` output: oneDNN output scales (one value when all agree) or, for the hi half's
// kernel of a split one (`partial` given: the lo half's int32 sum), post-ops 0 and 1 that add
// partial and then multiply the scales (oneDNN applies output scales before post-ops, so they
// cannot stay output scales). With every sum below 2^24 the float value is the single kernel's.
void int8_scales(EngineContext& e, dnnl::primitive_attr& attr, dnnl::post_ops& po,
                 std::unordered_map<int, memory>& args, const std::vector<float>& scales,
                 size_t axis, size_t rank, const memory& partial);
// The lo half's kernel: the primitive `desc_of(partial's desc)` describes (no bias, no scales),
// its weights lo reordered once from `w_user`, writing the int32 sum into partial. Added before
// the hi half's kernel, which reads partial; the node's impl (the hi kernel's, prepended by
// add_primitive) ends in " x2 (int8 weight halves)". A non-constant lo (`lo_runtime`, refreshed
// by an earlier step) is read as it is.
template <class Prim, class DescOf>
void add_lo_half(EngineContext& e, DescOf desc_of, const Tensor& lo, const memory::desc& w_user,
                 const memory& src, const memory& partial, int32_t zx,
                 const memory& lo_runtime = memory()) {
  dnnl::primitive_attr a = e.base_attr();
  if (zx != 0) a.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  typename Prim::primitive_desc pd(desc_of(partial.get_desc()), a, e.eng);
  memory wm = lo_runtime;
  if (!wm) {
    wm = e.alloc(pd.weights_desc());
    e.reorder_now(e.const_memory(lo, w_user), wm);
  }
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, partial}};
  if (zx != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = e.scalar_s32(zx);
  e.add_scratchpad(pd, args);
  e.cur->steps.push_back([&e, p = Prim(pd), args]() { p.execute(e.strm, args); });
  e.cur->info.impl += " x2 (int8 weight halves)";
}

// An s8 source as u8 (x + 128: the sign bit flipped) in a node temp, refreshed by a step each
// run; the caller adds 128 to its zero point. Without VNNI oneDNN rounds the weights of
// s8-source kernels to even values; u8 sources keep them whole.
memory shifted_u8(EngineContext& e, const memory& s8);

}  // namespace hetcim::exec::native
