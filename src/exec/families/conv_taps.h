// Kernel taps that read only padding. A float convolution whose kernel reaches past the input on
// every output (a dilated kernel on a small map, as DeepLabV3's ASPP at dilation 12-36 on 4x4; a
// 7x7 depthwise kernel on a 2x2 map, as ConvNeXt's last stage at small inputs) adds zeros through
// those taps; run on the taps that read the input, with the padding shifted to match, oneDNN
// takes its direct kernels instead of the im2col GEMM it picks for such windows (DeepLabV3-
// MobileNetV3 at 64x64: 1.5 ms -> 0.1 ms per ASPP branch, bench/README.md). Same sums, fewer
// zero terms: equal to the full kernel's result up to the order of float additions.
#pragma once

#include <string>

#include "exec/op_params.h"
#include "exec/tensor.h"

namespace hetcim::exec::native {

// Crops `w` (its kh, kw and pads) and the float weights `wt` ([OC, C/group, kh, kw]) to the taps
// some output reads the input through, when that drops taps and keeps every pad >= 0. Returns ""
// when nothing changes, else the note for the operator's impl ("taps 1x1 of 3x3").
std::string crop_dead_taps(Window2d& w, Tensor& wt);

}  // namespace hetcim::exec::native
