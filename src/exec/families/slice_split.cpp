// The slice_split family (Slice, Split): strided copies of the input's parts, each output in the
// input's dimension order.
#include <string>
#include <vector>

#include "exec/families/families.h"
#include "exec/kernels.h"

namespace hetcim::exec::native {

void compile_slice_split(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const Shape xs = e.shape(x);
  memory::desc xmd;
  memory xm = e.get_strided(x, &xmd);
  const auto xst = md_strides(xmd);
  const size_t es = graph::dtype_size(e.dtype(x));
  std::vector<SliceParams> parts;
  if (n.op_type == "Slice") {
    parts.push_back(slice_params(*e.g, n, xs));
  } else {
    const SplitParams sp = split_params(*e.g, n, xs);
    int64_t off = 0;
    for (int64_t s : sp.sizes) {
      SliceParams p;
      p.start.assign(xs.size(), 0);
      p.step.assign(xs.size(), 1);
      p.len = xs;
      p.start[static_cast<size_t>(sp.axis)] = off;
      p.len[static_cast<size_t>(sp.axis)] = s;
      off += s;
      parts.push_back(p);
    }
  }
  e.cur->info.impl = "hetcim:strided_copy";
  for (size_t i = 0; i < parts.size() && i < n.outputs.size(); ++i) {
    if (n.outputs[i].empty()) continue;
    const SliceParams& p = parts[i];
    const memory::desc ymd = like_md(xmd, p.len, xmd.data_type());
    memory ym = e.output(n.outputs[i], ymd, e.dtype(x));
    int64_t base = 0;
    std::vector<int64_t> sst(xs.size());
    for (size_t k = 0; k < xs.size(); ++k) {
      base += p.start[k] * xst[k];
      sst[k] = p.step[k] * xst[k];
    }
    const auto yst = md_strides(ymd);
    const Shape len = p.len;
    e.cur->steps.push_back([xm, ym, len, base, sst, yst, es]() {
      kernels::strided_copy(
          len, static_cast<const uint8_t*>(xm.get_data_handle()) + base * static_cast<int64_t>(es),
          sst, static_cast<uint8_t*>(ym.get_data_handle()), yst, es);
    });
  }
}

}  // namespace hetcim::exec::native
