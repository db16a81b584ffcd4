// ONNX Resize / Upsample in modes linear and cubic (opset 7-18 attribute forms): the node's
// attributes and scales read and checked once (`parse`), the coordinate transform of the ONNX
// operator spec (`original_coordinate`, shared with the reference interpreter, which computes
// its own interpolation weights from it), and the oneDNN engine's kernel: per resized axis a
// table of input indices and weights (`axis_taps`), applied one axis at a time on a row-major
// float32 copy (`interpolate`; strided tensors in any dimension order, e.g. NHWC, and uint8/int8
// tensors, which are computed in float32 and rounded half to even with saturation, as a
// DequantizeLinear -> Resize -> QuantizeLinear with the same parameters would).
// Mode nearest stays on exec/op_params.h's resize_nearest_map (a pure gather).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::exec::resize {

enum class Mode { Nearest, Linear, Cubic };
enum class Transform { HalfPixel, PytorchHalfPixel, AlignCorners, Asymmetric, TfHalfPixelForNn };

struct Spec {
  Mode mode = Mode::Nearest;
  Transform transform = Transform::HalfPixel;
  double cubic_a = -0.75;        // cubic_coeff_a
  bool exclude_outside = false;  // cubic: weights of taps outside the input zeroed, renormalised
  // Per axis, the scale the coordinate transform divides by: the `scales` operand (attribute
  // for Upsample) or, when `sizes` decide the output, output length / input length.
  std::vector<double> scales;
};

// The node's mode, coordinate transform, cubic parameters and scales for input shape `x` and
// output shape `y` (as shape inference gave it), element type `dtype`. For linear and cubic every
// attribute is checked: an unsupported mode, coordinate transform (tf_crop_and_resize,
// half_pixel_symmetric), antialias=1, keep_aspect_ratio_policy other than stretch, or element
// type is a UserError naming the node. Mode nearest is returned without those checks
// (resize_nearest_map makes its own).
[[nodiscard]] Spec parse(const graph::Graph& g, const graph::Node& n, const graph::Shape& x,
                         const graph::Shape& y, graph::DType dtype);

// "nearest", "linear" or "cubic".
[[nodiscard]] const char* mode_name(Mode m);

// Where output index `o` of an axis of length `out_len` (input length `in_len`) lies in the input,
// by the ONNX spec's coordinate_transformation_mode formula.
[[nodiscard]] double original_coordinate(Transform t, int64_t o, double scale, int64_t in_len,
                                         int64_t out_len);

// One axis's interpolation: for output index o, inputs index[o * taps + t] (clamped into
// [0, in_len)) with weights weight[o * taps + t]. taps = 2 (linear) or 4 (cubic).
struct AxisTaps {
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<float> weight;
};
[[nodiscard]] AxisTaps axis_taps(const Spec& s, size_t axis, int64_t in_len, int64_t out_len);

// The engine's compiled form of one node: the axes that change (an axis whose every output index
// maps exactly onto the same input index is skipped) and their taps.
struct Plan {
  graph::Shape in, out;
  std::vector<size_t> axes;
  std::vector<AxisTaps> taps;  // one per entry of `axes`
};
[[nodiscard]] Plan make_plan(const Spec& s, const graph::Shape& x, const graph::Shape& y);

// Work buffers of one node, kept between runs.
struct Scratch {
  std::vector<float> a, b, in, out;
};

// y = Resize(x): x and y of element type `dtype` (float32, uint8 or int8) with element strides
// xst / yst over the logical (ONNX) dimension order of plan.in / plan.out.
void interpolate(const Plan& p, const void* x, graph::DType dtype, const std::vector<int64_t>& xst,
                 void* y, const std::vector<int64_t>& yst, Scratch& scratch);

}  // namespace hetcim::exec::resize
