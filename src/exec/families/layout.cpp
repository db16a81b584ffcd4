// The reshape and transpose families: reshape-like operators (Reshape, Flatten, Squeeze,
// Unsqueeze, Identity, Dropout) alias their input where its bytes allow; transposes and layout
// changes by oneDNN reorders or strided copies, or as aliases when every reader reads strides.
#include <string>
#include <vector>

#include "exec/families/families.h"
#include "exec/kernels.h"

namespace hetcim::exec::native {

// Reshape-like ops: a row-major input is aliased (no copy, no time); a tensor held in another
// layout is reordered into a row-major output first.
void compile_reshape(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  const DType t = e.dtype(x);
  const dt d = dnnl_type(t, e.node);
  const Buf& xb = e.buf(x);
  if (graph::element_count(e.shape(y)) != graph::element_count(xb.shape))
    fail(n, "element count changes");
  if (is_plain(xb.md, xb.shape)) {
    e.output_alias(y, plain_md(e.shape(y), d), t, xb.mem.get_data_handle());
    e.cur->info.impl = "hetcim:alias";
    return;
  }
  if (is_strided(xb.md) && e.readers_take_strided(y) && n.op_type == "Reshape")
    if (auto st = reshape_strides(xb.shape, md_strides(xb.md), e.shape(y))) {
      const memory::desc view(dims_of(e.shape(y)), d, memory::dims(st->begin(), st->end()));
      e.output_alias(y, view, t, xb.mem.get_data_handle());
      e.cur->info.impl = "hetcim:alias";
      return;
    }
  memory src = xb.mem;
  memory& dst = e.output(y, plain_md(e.shape(y), d), t);
  memory dst_view(plain_md(xb.shape, d), e.eng, dst.get_data_handle());
  dnnl::reorder r(src, dst_view);
  e.cur->steps.push_back([&e, r, src, dst_view]() mutable { r.execute(e.strm, src, dst_view); });
  e.cur->info.impl = "reorder";
}

void compile_transpose(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  const DType t = e.dtype(x);
  const dt d = dnnl_type(t, e.node);
  const Shape xs = e.shape(x);
  const Buf& xb = e.buf(x);
  if (n.attr_int("layout_only", 0) != 0) {
    // Layout change of the same logical tensor: to NHWC or back to row-major NCHW.
    const auto perm = n.attr_ints("perm", {});
    const bool to_nhwc = perm == std::vector<int64_t>{0, 2, 3, 1};
    const memory::desc want = to_nhwc && xs.size() == 4 ? nhwc_md(xs, d) : plain_md(xs, d);
    if (xb.md == want || (!to_nhwc && is_strided(xb.md) && e.readers_take_strided(y))) {
      e.output_alias(y, xb.md, t, xb.mem.get_data_handle());
      e.cur->info.impl = "hetcim:alias";
      return;
    }
    memory src = xb.mem;
    memory dst = e.output(y, want, t);
    dnnl::reorder r(src, dst);
    e.cur->steps.push_back([&e, r, src, dst]() mutable { r.execute(e.strm, src, dst); });
    e.cur->info.impl = "reorder";
    return;
  }
  std::vector<int64_t> perm = n.attr_ints("perm", {});
  if (perm.empty())
    for (size_t k = xs.size(); k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  if (perm.size() != xs.size()) fail(n, "perm has the wrong length");
  const Shape ys = e.shape(y);
  memory::desc xmd;
  memory xm = e.get_strided(x, &xmd);
  const auto xst = md_strides(xmd);
  std::vector<int64_t> sst(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) sst[k] = xst[static_cast<size_t>(perm[k])];
  // The output's last dimension contiguous in the input too (a channels-last tensor's channel
  // groups, perm (0,2,1,3) of attention heads): rows of runs by strided_copy. Otherwise oneDNN's
  // reorder from the input viewed with permuted axes: its transposition kernels are faster than
  // an element-wise strided copy.
  const bool runs = !sst.empty() && sst.back() == 1 && ys.back() > 1;
  if (xs.size() >= 2 && xs.size() <= 6 && !runs) {
    std::vector<int> p(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) p[static_cast<size_t>(perm[k])] = static_cast<int>(k);
    const memory::desc view = xmd.permute_axes(p);
    memory src(view, e.eng, xm.get_data_handle());
    memory dst = e.output(y, plain_md(ys, d), t);
    dnnl::reorder r(src, dst);
    e.cur->steps.push_back([&e, r, src, dst]() mutable { r.execute(e.strm, src, dst); });
    e.cur->info.impl = "reorder";
    return;
  }
  const memory::desc ymd = plain_md(ys, d);
  memory ym = e.output(y, ymd, t);
  const auto yst = row_major_strides(ys);
  const size_t es = graph::dtype_size(t);
  e.cur->info.impl = "hetcim:transpose";
  e.cur->steps.push_back([xm, ym, ys, sst, yst, es]() {
    kernels::strided_copy(ys, static_cast<const uint8_t*>(xm.get_data_handle()), sst,
                          static_cast<uint8_t*>(ym.get_data_handle()), yst, es);
  });
}

bool reshape_reads_strided(const graph::Node& n) {
  return n.op_type == "Reshape";
}

bool transpose_reads_strided(const graph::Node& n) {
  return n.attr_int("layout_only", 0) == 0;
}

}  // namespace hetcim::exec::native
