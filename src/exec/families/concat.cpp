// The concat and qconcat families: Concat as a oneDNN concat, or hand-written copies for
// channel-blocked and strided inputs (channels-last output for DenseNet's channel concats);
// QLinearConcat with an exact requantization table per input.
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/families/families.h"
#include "exec/kernels.h"
#include "exec/quantize.h"

namespace hetcim::exec::native {
namespace {

// A channel Concat of inputs in one channel-blocked layout (aBcd8b, ...) whose channel counts
// are whole blocks: per image, each input is one contiguous slab of the output, so the Concat is
// one memcpy per input and image (oneDNN 2.6's simple concat moved YOLOv5n's 8-channel blocks
// at about 2 GB/s on Zen 3). False (nothing added) for anything else.
bool concat_blocked(EngineContext& e, const graph::Node& n, DType t) {
  const std::string& y = n.outputs.at(0);
  const memory::desc& first = e.buf(n.inputs[0]).md;
  const auto ymd = channel_blocked_like(first, e.shape(y), first.data_type());
  if (!ymd) return false;
  const int64_t block = first.data.format_desc.blocking.inner_blks[0];
  const int64_t images = e.shape(y)[0];
  std::vector<memory> ins;
  std::vector<int64_t> offsets, slabs;  // per input: its bytes' offset in an output image, size
  int64_t offset = 0;
  for (const std::string& x : n.inputs) {
    const Buf& xb = e.buf(x);
    if (xb.md != channel_blocked_like(first, e.shape(x), first.data_type()) ||
        e.shape(x)[1] % block != 0)
      return false;
    ins.push_back(xb.mem);
    offsets.push_back(offset);
    slabs.push_back(static_cast<int64_t>(xb.md.get_size()) / images);
    offset += slabs.back();
  }
  memory ym = e.output(y, *ymd, t);
  const int64_t image_bytes = offset;  // whole blocks: the output has no padding
  e.cur->info.impl = "hetcim:concat_blocked";
  e.cur->steps.push_back([ins, offsets, slabs, ym, images, image_bytes]() {
    auto* yp = static_cast<uint8_t*>(ym.get_data_handle());
    const auto parts = static_cast<int64_t>(ins.size());
#pragma omp parallel for collapse(2) schedule(static) if (images * image_bytes >= (1 << 20))
    for (int64_t im = 0; im < images; ++im)
      for (int64_t i = 0; i < parts; ++i) {
        const auto k = static_cast<size_t>(i);
        std::memcpy(yp + im * image_bytes + offsets[k],
                    static_cast<const uint8_t*>(ins[k].get_data_handle()) + im * slabs[k],
                    static_cast<size_t>(slabs[k]));
      }
  });
  return true;
}

// Concat of tensors in strided layouts (or in a mix of layouts, converted to strided): one
// strided copy per input into its slab of the output, in the first input's dimension order.
// A 4-D channel concat with any channels-last input is written channels-last (DenseNet: its
// BatchNorms and 1x1 convolutions then read it without a reorder); inputs in another layout are
// converted once (the converted copy serves every later Concat that reads the same tensor).
void concat_strided(EngineContext& e, const graph::Node& n, int64_t axis, DType t) {
  const std::string& y = n.outputs.at(0);
  bool channels_last = false;
  if (e.shape(y).size() == 4 && axis == 1)
    for (const std::string& x : n.inputs) {
      const Buf& xb = e.buf(x);
      channels_last = channels_last || xb.md == nhwc_md(xb.shape, xb.md.data_type());
    }
  auto fetch = [&](const std::string& x, memory::desc* md) {
    if (!channels_last) return e.get_strided(x, md);
    const Buf& xb = e.buf(x);
    *md = nhwc_md(xb.shape, xb.md.data_type());
    return e.get(x, *md);
  };
  memory::desc first;
  (void)fetch(n.inputs.at(0), &first);
  const memory::desc ymd = like_md(first, e.shape(y), first.data_type());
  memory ym = e.output(y, ymd, t);
  const auto yst = md_strides(ymd);
  const size_t es = graph::dtype_size(t);
  // Channels-last concat on the channel axis (every tensor dense with the concat axis
  // innermost): one pass over the pixels, each writing its output row once.
  auto axis_innermost = [&](const Shape& s, const std::vector<int64_t>& st) {
    if (st[static_cast<size_t>(axis)] != 1) return false;
    int64_t expect = s[static_cast<size_t>(axis)];
    for (size_t k = s.size(); k-- > 0;) {
      if (static_cast<int64_t>(k) == axis) continue;
      if (s[k] != 1 && st[k] != expect) return false;
      expect *= s[k];
    }
    return true;
  };
  bool rows = axis_innermost(e.shape(y), yst);
  std::vector<memory> ins;
  std::vector<int64_t> widths;
  for (const std::string& x : n.inputs) {
    memory::desc md;
    ins.push_back(fetch(x, &md));
    widths.push_back(e.shape(x)[static_cast<size_t>(axis)]);
    rows = rows && axis_innermost(e.shape(x), md_strides(md));
  }
  if (rows) {
    const int64_t total = e.shape(y)[static_cast<size_t>(axis)];
    const int64_t outer = graph::element_count(e.shape(y)) / std::max<int64_t>(total, 1);
    e.cur->info.impl = "hetcim:concat_rows";
    e.cur->steps.push_back([ins, widths, ym, total, outer, es]() {
      uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
      const int64_t eb = static_cast<int64_t>(es);
#pragma omp parallel for schedule(static) if (outer * total >= 65536)
      for (int64_t o = 0; o < outer; ++o) {
        int64_t off = 0;
        for (size_t i = 0; i < ins.size(); ++i) {
          std::memcpy(yp + (o * total + off) * eb,
                      static_cast<const uint8_t*>(ins[i].get_data_handle()) + o * widths[i] * eb,
                      static_cast<size_t>(widths[i] * eb));
          off += widths[i];
        }
      }
    });
    return;
  }
  int64_t offset = 0;
  e.cur->info.impl = "hetcim:concat";
  for (const std::string& x : n.inputs) {
    memory::desc md;
    memory xm = fetch(x, &md);
    const Shape xs = e.shape(x);
    const auto xst = md_strides(md);
    const int64_t base = offset * yst[static_cast<size_t>(axis)] * static_cast<int64_t>(es);
    e.cur->steps.push_back([xm, ym, xs, xst, yst, base, es]() {
      kernels::strided_copy(xs, static_cast<const uint8_t*>(xm.get_data_handle()), xst,
                            static_cast<uint8_t*>(ym.get_data_handle()) + base, yst, es);
    });
    offset += xs[static_cast<size_t>(axis)];
  }
}

}  // namespace

void compile_concat(EngineContext& e, const graph::Node& n) {
  const std::string& y = n.outputs.at(0);
  const int64_t axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(e.shape(y).size()));
  std::vector<memory::desc> mds;
  const DType t = e.dtype(n.inputs.at(0));
  for (const std::string& x : n.inputs) {
    if (e.dtype(x) != t) fail(n, "inputs of different dtypes");
    mds.push_back(e.buf(x).md);
  }
  bool same_format = true;
  for (const memory::desc& md : mds)
    same_format = same_format && is_strided(md) == is_strided(mds[0]);
  if (!same_format || is_strided(mds[0])) return concat_strided(e, n, axis, t);
  if (axis == 1 && concat_blocked(e, n, t)) return;
  dnnl::concat::primitive_desc pd(static_cast<int>(axis), mds, e.eng, e.base_attr());
  std::unordered_map<int, memory> args;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] =
        e.get(n.inputs[i], pd.src_desc(static_cast<int>(i)));
  args[DNNL_ARG_DST] = e.output(y, pd.dst_desc(), t);
  e.add_primitive(dnnl::concat(pd), args, pd);
}

void compile_qconcat(EngineContext& e, const graph::Node& n) {
  const std::string& y = n.outputs.at(0);
  const Shape ys = e.shape(y);
  const int64_t axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(ys.size()));
  const float sy = e.scalar_f(0);
  const int32_t zy = e.scalar_zp(1);
  if ((n.inputs.size() - 2) % 3 != 0 || n.inputs.size() < 5)
    fail(n, "inputs must be Y_scale, Y_zp, then (X, scale, zp) triples");
  memory::desc first_md;
  (void)e.get_strided(n.inputs[2], &first_md);
  const memory::desc ymd = like_md(first_md, ys, dt::u8);
  memory ym = e.output(y, ymd, DType::UInt8);
  const auto yst = md_strides(ymd);
  int64_t offset = 0;
  struct Part {
    memory m;
    Shape shape;
    std::vector<int64_t> strides;
    int64_t offset;
    std::array<uint8_t, 256> table;
    bool identity;
  };
  auto parts = std::make_shared<std::vector<Part>>();
  for (size_t i = 2; i + 2 < n.inputs.size(); i += 3) {
    const std::string& x = n.inputs[i];
    if (e.dtype(x) != DType::UInt8) fail(n, "uint8 inputs expected");
    const float sx = e.scalar_f(i + 1);
    const int32_t zx = e.scalar_zp(i + 2);
    memory::desc md;
    Part p;
    p.m = e.get_strided(x, &md);
    p.shape = e.shape(x);
    p.strides = md_strides(md);
    p.offset = offset;
    p.identity = sx == sy && zx == zy;
    for (int v = 0; v < 256; ++v)
      p.table[static_cast<size_t>(v)] =
          static_cast<uint8_t>(quantize_value(dequantize_value(v, sx, zx), sy, zy, {0, 255}));
    offset += p.shape[static_cast<size_t>(axis)];
    parts->push_back(std::move(p));
  }
  e.cur->info.impl = "hetcim:qlinear_concat";
  e.cur->steps.push_back([ym, yst, axis, parts]() {
    uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
    for (const Part& p : *parts) {
      uint8_t* base = yp + p.offset * yst[static_cast<size_t>(axis)];
      const uint8_t* xp = static_cast<const uint8_t*>(p.m.get_data_handle());
      if (p.identity) {
        kernels::strided_copy(p.shape, xp, p.strides, base, yst, 1);
        continue;
      }
      const uint8_t* t = p.table.data();
      kernels::for_each_rows(
          p.shape, {yst, p.strides},
          [&](int64_t rows, int64_t len, const int64_t* off, const int64_t* st,
              const int64_t* row) {
            if (st[0] == 1 && st[1] == 1)  // contiguous runs: the vector table, row by row
              return kernels::copy_rows_u8(rows, len, xp + off[1], row[1], base + off[0], row[0],
                                           t);
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t i = 0; i < len; ++i)
                base[off[0] + r * row[0] + i * st[0]] = t[xp[off[1] + r * row[1] + i * st[1]]];
          });
    }
  });
}

}  // namespace hetcim::exec::native
