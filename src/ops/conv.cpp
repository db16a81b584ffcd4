// The convolution family: Conv, its int8 form QLinearConv and ConvTranspose (facts only: the
// workload and the weight filler know it, no executor runs it). Their kernels are oneDNN's
// (exec/families/conv.cpp, conv_taps.cpp, int8_one_pass.cpp); the shape rules are here.
#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

using F = Fill;

Infos conv(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, spatial...), got ", shape_str(x));
  if (w.size() != x.size()) {
    c.fail("weight ", shape_str(w), " must have the input's rank ", x.size());
  }
  if (c.dtype(1) != c.dtype(0)) {
    c.fail("weight dtype ", dtype_name(c.dtype(1)), " differs from input dtype ",
           dtype_name(c.dtype(0)));
  }
  const int64_t group = c.node().attr_int("group", 1);
  if (group < 1 || group > kMaxDim) c.fail("group must be in [1, 2^31], got ", group);
  if (w[1] >= 0 && x[1] >= 0 && w[1] * group != x[1]) {
    c.fail("weight expects ", w[1] * group, " input channels, input has ", x[1]);
  }
  const int64_t m = w[0];
  if (m >= 0 && m % group != 0) c.fail(m, " output channels are not divisible by group ", group);
  if (c.has(2) && c.shape(2) != Shape{m}) {
    c.fail("bias has shape ", shape_str(c.shape(2)), ", expected ", m, " (the output channels)");
  }
  const size_t spatial = x.size() - 2;
  const std::vector<int64_t> wk(w.begin() + 2, w.end());
  const std::vector<int64_t> kernel = c.node().attr_ints("kernel_shape", wk);
  if (kernel != wk) {
    c.fail("kernel_shape ", list_str(kernel), " disagrees with the weight's ", list_str(wk));
  }
  const Window win = read_window(c, spatial, kernel);
  Shape out = {x[0], m};
  for (size_t i = 0; i < spatial; ++i) out.push_back(window_out(c, win, i, x[i + 2]));
  return {{c.dtype(0), out}};
}

Infos conv_transpose(const Ctx& c) {
  c.arity(2, 3, 1, 1);
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, spatial...), got ", shape_str(x));
  if (w.size() != x.size())
    c.fail("weight ", shape_str(w), " must have the input's rank ", x.size());
  const int64_t group = c.node().attr_int("group", 1);
  if (group < 1 || group > kMaxDim) c.fail("group must be in [1, 2^31], got ", group);
  if (w[0] >= 0 && x[1] >= 0 && w[0] != x[1]) {
    c.fail("weight expects ", w[0], " input channels, input has ", x[1]);
  }
  const int64_t m = w[1] < 0 ? -1 : w[1] * group;
  if (c.has(2) && c.shape(2) != Shape{m}) {
    c.fail("bias has shape ", shape_str(c.shape(2)), ", expected ", m, " (the output channels)");
  }
  const size_t spatial = x.size() - 2;
  const std::vector<int64_t> kernel =
      c.node().attr_ints("kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  const Window win = read_window(c, spatial, kernel);
  const std::vector<int64_t> out_pad = spatial_attr(c, "output_padding", spatial, 0, false);
  Shape out = {x[0], m};
  if (c.node().has_attr("output_shape")) {
    std::vector<int64_t> os = c.node().attr_ints("output_shape", {});
    if (os.size() < spatial)
      c.fail("output_shape ", list_str(os), " has fewer than ", spatial, " dims");
    for (int64_t d : os) {
      if (d < 1 || d > kMaxDim) c.fail("output_shape ", list_str(os), " must be in [1, 2^31]");
    }
    out.insert(out.end(), os.end() - static_cast<std::ptrdiff_t>(spatial), os.end());
    return {{c.dtype(0), out}};
  }
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t in = x[i + 2];
    if (in < 0) {
      out.push_back(-1);
      continue;
    }
    const int64_t s = win.strides[i];
    if (win.auto_pad == "SAME_UPPER" || win.auto_pad == "SAME_LOWER") {
      out.push_back(in * s);
      continue;
    }
    const int64_t pads = win.auto_pad == "VALID" ? 0 : win.pads[i] + win.pads[i + spatial];
    const int64_t o = s * (in - 1) + out_pad[i] + (kernel[i] - 1) * win.dilations[i] + 1 - pads;
    if (o < 1) c.fail("spatial axis ", i, " would have length ", o);
    out.push_back(o);
  }
  return {{c.dtype(0), out}};
}

}  // namespace

std::vector<Family> conv_family() {
  return {{.op = "Conv",
           .family = "conv",
           .shape = conv,
           .operands = float_weighted(2),
           .gemm = GemmView::Conv,
           .params = {1, 2},
           .fill = {F::Generic, F::Weight, F::Zero},
           .qform = "QLinearConv",
           .qlayout = QLayout::Weighted,
           .takes_activation = true,
           .int8_runs = true,
           .nhwc = true},
          {.op = "QLinearConv",
           .family = "qconv",
           .operands = qlinear_weighted(8, 6),
           .gemm = GemmView::Conv,
           .params = {3, 8},
           .qform = "Conv",
           .qlayout = QLayout::Weighted,
           .quantized = true,
           .takes_activation = true,
           .nhwc = true},
          {.op = "ConvTranspose",
           .family = "conv_transpose",
           .runs = false,
           .shape = conv_transpose,
           .no_crossbar = "ConvTranspose is not mapped onto crossbars",
           .params = {1, 2},
           .fill = {F::Generic, F::Weight, F::Zero}}};
}

}  // namespace hetcim::ops
