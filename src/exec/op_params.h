// Attribute and constant-operand decoding shared by the reference interpreter and the oneDNN
// engine, so both read a node the same way. Every function throws a UserError naming the node when
// the node is outside what hetcim executes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::exec {

// A 2-D convolution or pooling window on an N x C x H x W input (explicit pads, auto_pad and
// ceil_mode resolved against the output shape the graph records).
struct Window2d {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input
  int64_t oc = 0, oh = 0, ow = 0;      // output channels and size
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;    // pads: top, left, bottom, right (bottom/right may
                                             // include the extra rows ceil_mode adds)
  int64_t pb_declared = 0, pr_declared = 0;  // pads as declared (without the ceil_mode extension)
  int64_t group = 1;
};

// Conv / QLinearConv: `x`, `w`, `y` name the data input, the weight and the output tensors.
[[nodiscard]] Window2d conv_window(const graph::Graph& g, const graph::Node& n,
                                   const std::string& x, const std::string& w,
                                   const std::string& y);
// MaxPool / AveragePool / QLinearAveragePool (kernel_shape attribute) and the global pools
// (kernel = whole input).
[[nodiscard]] Window2d pool_window(const graph::Graph& g, const graph::Node& n,
                                   const std::string& x, const std::string& y);

// Values of a constant operand (an initializer with values); UserError naming the node otherwise.
[[nodiscard]] std::vector<int64_t> const_ints(const graph::Graph& g, const graph::Node& n,
                                              size_t input, const char* what);
[[nodiscard]] std::vector<float> const_floats(const graph::Graph& g, const graph::Node& n,
                                              size_t input, const char* what);
[[nodiscard]] bool has_input(const graph::Node& n, size_t i);

// Fused activation recorded by passes::fuse_activation: none, Relu, or Clip(lo, hi).
struct Activation {
  enum Kind { None, Relu, Clip } kind = None;
  float lo = 0, hi = 0;
  [[nodiscard]] float apply(float v) const {
    if (kind == Relu) return v > 0 ? v : 0;
    if (kind == Clip) return v < lo ? lo : (v > hi ? hi : v);
    return v;
  }
};
[[nodiscard]] Activation fused_activation(const graph::Node& n);
// Clip's bounds (attributes before opset 11, constant inputs after; absent = +-infinity).
[[nodiscard]] Activation clip_bounds(const graph::Graph& g, const graph::Node& n);

// Slice: per axis of the input, start, step and output length (axes not sliced: 0, 1, dim).
struct SliceParams {
  std::vector<int64_t> start, step, len;
};
[[nodiscard]] SliceParams slice_params(const graph::Graph& g, const graph::Node& n,
                                       const graph::Shape& x);

// Split: the axis and the size of each output along it.
struct SplitParams {
  int64_t axis = 0;
  std::vector<int64_t> sizes;
};
[[nodiscard]] SplitParams split_params(const graph::Graph& g, const graph::Node& n,
                                       const graph::Shape& x);

// Resize / Upsample in nearest mode: for each output index along each axis, the input index.
// Supported: mode "nearest" with coordinate_transformation_mode half_pixel, asymmetric,
// align_corners, pytorch_half_pixel, tf_half_pixel_for_nn, and every nearest_mode.
[[nodiscard]] std::vector<std::vector<int64_t>> resize_nearest_map(const graph::Graph& g,
                                                                   const graph::Node& n,
                                                                   const graph::Shape& x,
                                                                   const graph::Shape& y);

// Normalized axis in [0, rank).
[[nodiscard]] int64_t norm_axis(const graph::Node& n, int64_t axis, int64_t rank);

// numpy broadcasting: the strides (in elements) with which an operand of shape `s` is read when
// iterating an output of shape `out` in row-major order (0 on broadcast axes).
[[nodiscard]] std::vector<int64_t> broadcast_strides(const graph::Shape& s,
                                                     const graph::Shape& out);

// Shape of a tensor; UserError naming the node when unknown.
[[nodiscard]] const graph::Shape& known_shape(const graph::Graph& g, const graph::Node& n,
                                              const std::string& t);

}  // namespace hetcim::exec
