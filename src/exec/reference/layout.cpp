// Reference kernels of the layout and data-movement families: Concat / QLinearConcat, Split,
// Slice, Reshape (Flatten, Squeeze, Unsqueeze, Identity, Dropout), Transpose (layout_only=1: an
// identity on the logical layout), Pad (constant) and Gather.
#include <cstring>

#include "exec/reference/context.h"

namespace hetcim::exec::reference {
namespace {

using graph::DType;
using graph::Shape;

void pad(Context& c) {
  const graph::Node& n = c.node();
  if (n.attr_string("mode", "constant") != "constant") c.fail("only mode 'constant' is supported");
  const Tensor& x = c.float_in(0);
  const auto r = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> pads = has_input(n, 1) ? c.const_ints(1) : n.attr_ints("pads", {});
  const double value = has_input(n, 2) ? c.in(2).at(0) : n.attr_float("value", 0.0);
  std::vector<int64_t> axes;
  if (has_input(n, 3)) {
    for (int64_t a : c.const_ints(3)) axes.push_back(norm_axis(n, a, r));
  } else {
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size()) c.fail("pads has the wrong length");
  std::vector<int64_t> lo(x.shape.size(), 0), hi(x.shape.size(), 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    lo[static_cast<size_t>(axes[k])] = pads[k];
    hi[static_cast<size_t>(axes[k])] = pads[k + axes.size()];
  }
  Shape ys = x.shape;
  for (size_t d = 0; d < ys.size(); ++d) ys[d] += lo[d] + hi[d];
  Tensor y = Tensor::zeros(DType::Float32, ys);
  for (int64_t o = 0; o < y.numel(); ++o) {
    std::vector<int64_t> idx = unravel(o, ys);
    bool inside = true;
    for (size_t d = 0; d < idx.size(); ++d) {
      idx[d] -= lo[d];
      inside = inside && idx[d] >= 0 && idx[d] < x.shape[d];
    }
    y.data<float>()[o] = inside ? x.data<float>()[ravel(idx, x.shape)] : static_cast<float>(value);
  }
  c.set(0, std::move(y));
}

void gather(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& x = c.float_in(0);
  const Tensor& ind = c.in(1);
  const auto r = static_cast<int64_t>(x.shape.size());
  const auto axis = static_cast<size_t>(norm_axis(n, n.attr_int("axis", 0), r));
  Shape ys(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  ys.insert(ys.end(), ind.shape.begin(), ind.shape.end());
  ys.insert(ys.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape.end());
  Tensor y = Tensor::zeros(DType::Float32, ys);
  for (int64_t o = 0; o < y.numel(); ++o) {
    const std::vector<int64_t> oi = unravel(o, ys);
    std::vector<int64_t> ii = unravel(0, ind.shape);
    for (size_t d = 0; d < ind.shape.size(); ++d) ii[d] = oi[axis + d];
    int64_t k = static_cast<int64_t>(ind.at(ravel(ii, ind.shape)));
    if (k < -x.shape[axis] || k >= x.shape[axis]) c.fail("index out of range");
    if (k < 0) k += x.shape[axis];
    std::vector<int64_t> xi(oi.begin(), oi.begin() + static_cast<std::ptrdiff_t>(axis));
    xi.push_back(k);
    xi.insert(xi.end(), oi.begin() + static_cast<std::ptrdiff_t>(axis + ind.shape.size()),
              oi.end());
    y.data<float>()[o] = x.data<float>()[ravel(xi, x.shape)];
  }
  c.set(0, std::move(y));
}

void concat(Context& c) {
  const graph::Node& n = c.node();
  const Shape out = c.out_shape();
  const int64_t axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(out.size()));
  std::vector<const Tensor*> parts;
  for (size_t i = 0; i < n.inputs.size(); ++i) parts.push_back(&c.in(i));
  Tensor y = Tensor::zeros(parts[0]->dtype, out);
  const size_t es = graph::dtype_size(y.dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= out[static_cast<size_t>(k)];
  for (size_t k = static_cast<size_t>(axis) + 1; k < out.size(); ++k) inner *= out[k];
  int64_t offset = 0;
  for (const Tensor* p : parts) {
    if (p->dtype != y.dtype) c.fail("inputs of different dtypes");
    const int64_t len = p->shape[static_cast<size_t>(axis)];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y.bytes.data() + ((o * out[static_cast<size_t>(axis)] + offset) * inner) * es,
                  p->bytes.data() + (o * len * inner) * es, static_cast<size_t>(len * inner) * es);
    offset += len;
  }
  c.set(0, std::move(y));
}

void qconcat(Context& c) {
  const graph::Node& n = c.node();
  const float sy = c.scalar_f(0);
  const int32_t zy = c.scalar_zp(1);
  const Shape out = c.out_shape();
  const int64_t axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(out.size()));
  const DType yt = c.out_dtype(0, DType::UInt8);
  const QRange r = qrange(yt);
  Tensor y = Tensor::zeros(yt, out);
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= out[static_cast<size_t>(k)];
  for (size_t k = static_cast<size_t>(axis) + 1; k < out.size(); ++k) inner *= out[k];
  if ((n.inputs.size() - 2) % 3 != 0)
    c.fail("inputs must be (Y_scale, Y_zp, then (X, scale, zp) triples)");
  int64_t offset = 0;
  for (size_t i = 2; i + 2 < n.inputs.size(); i += 3) {
    const Tensor& x = c.in(i);
    const float sx = c.scalar_f(i + 1);
    const int32_t zx = c.scalar_zp(i + 2);
    const int64_t len = x.shape[static_cast<size_t>(axis)];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < len * inner; ++k) {
        const float v = dequantize_value(static_cast<int32_t>(x.at(o * len * inner + k)), sx, zx);
        store_q(y, (o * out[static_cast<size_t>(axis)] + offset) * inner + k,
                quantize_value(v, sy, zy, r));
      }
    offset += len;
  }
  c.set(0, std::move(y));
}

Tensor strided_copy(const Tensor& x, const SliceParams& p) {
  Tensor y = Tensor::zeros(x.dtype, p.len);
  const size_t es = graph::dtype_size(x.dtype);
  const auto xs = strides_of(x.shape);
  const int64_t total = y.numel();
  for (int64_t i = 0; i < total; ++i) {
    int64_t src = 0, rem = i;
    for (size_t k = p.len.size(); k-- > 0;) {
      const int64_t v = rem % p.len[k];
      rem /= p.len[k];
      src += (p.start[k] + v * p.step[k]) * xs[k];
    }
    std::memcpy(y.bytes.data() + static_cast<size_t>(i) * es,
                x.bytes.data() + static_cast<size_t>(src) * es, es);
  }
  return y;
}

void split(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& x = c.in(0);
  const SplitParams p = split_params(c.graph(), n, x.shape);
  int64_t offset = 0;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    SliceParams sp;
    sp.start.assign(x.shape.size(), 0);
    sp.step.assign(x.shape.size(), 1);
    sp.len = x.shape;
    sp.start[static_cast<size_t>(p.axis)] = offset;
    sp.len[static_cast<size_t>(p.axis)] = p.sizes[i];
    offset += p.sizes[i];
    if (!n.outputs[i].empty()) c.set(i, strided_copy(x, sp));
  }
}

void slice(Context& c) {
  const Tensor& x = c.in(0);
  c.set(0, strided_copy(x, slice_params(c.graph(), c.node(), x.shape)));
}

void reshape(Context& c) {
  Tensor y = c.in(0);
  y.shape = c.out_shape();
  if (y.numel() != c.in(0).numel()) c.fail("element count changes");
  c.set(0, std::move(y));
}

void transpose(Context& c) {
  const graph::Node& n = c.node();
  const Tensor& x = c.in(0);
  if (n.attr_int("layout_only", 0) != 0) {  // identity on the logical layout
    c.set(0, x);
    return;
  }
  std::vector<int64_t> perm = n.attr_ints("perm", {});
  if (perm.empty())
    for (size_t k = x.shape.size(); k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  if (perm.size() != x.shape.size()) c.fail("perm has the wrong length");
  Shape out(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) out[k] = x.shape[static_cast<size_t>(perm[k])];
  const auto xs = strides_of(x.shape);
  Tensor y = Tensor::zeros(x.dtype, out);
  const size_t es = graph::dtype_size(x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t src = 0, rem = i;
    for (size_t k = out.size(); k-- > 0;) {
      const int64_t v = rem % out[k];
      rem /= out[k];
      src += v * xs[static_cast<size_t>(perm[k])];
    }
    std::memcpy(y.bytes.data() + static_cast<size_t>(i) * es,
                x.bytes.data() + static_cast<size_t>(src) * es, es);
  }
  c.set(0, std::move(y));
}

}  // namespace

std::vector<KernelRow> layout_kernels() {
  return {
      {"Concat", concat},        {"QLinearConcat", qconcat}, {"Split", split},
      {"Slice", slice},          {"Reshape", reshape},       {"Flatten", reshape},
      {"Squeeze", reshape},      {"Unsqueeze", reshape},     {"Identity", reshape},
      {"Dropout", reshape},      {"Transpose", transpose},   {"Pad", pad, false},
      {"Gather", gather, false},
  };
}

}  // namespace hetcim::exec::reference
