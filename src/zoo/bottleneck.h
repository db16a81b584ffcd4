// The MobileNetV2 Bottleneck (inverted residual) block that seed 001 (Garofalo et al., JETCAS
// 2022, Sec. V-C) benchmarks on its heterogeneous cluster, as a stand-alone model: 1x1 expansion
// Conv-BN-ReLU6, 3x3 depthwise Conv-BN-ReLU6, 1x1 projection Conv-BN, residual Add (torchvision
// InvertedResidual, module paths conv.0 ... conv.3 and add).
//
// The block's shape is in the paper's Fig. 8, which our copy of the paper lacks. The default
// below is the shape chosen so that it matches every figure the text does state about the block
// (a calibration of the unknown shape on those figures, not an independent reproduction):
//   * a residual connection exists -> stride 1 and C_in = C_out = C;
//   * weights W = C*E (expand) + 9*E (depthwise) + E*C (project), with E = t*C hidden channels;
//   * "cjob8 / cjob16 add 25 % / 54 % devices": mapping the depthwise layer as dense jobs of
//     c_job channels stores 9*c_job*E devices instead of 9*E, i.e. adds 9*E*(c_job - 1) / W
//     = 9*(c_job - 1) / (2*C + 9); 63 / 249 = 25.3 % and 135 / 249 = 54.2 % give C = 120 (it is
//     the only integer C for which both round to the stated percentages, besides 121);
//   * "depthwise weights ~4 % of the block": 9 / 249 = 3.6 %;
//   * "23x more crossbar locations than real weights" when the depthwise layer is mapped densely
//     (9*E^2 locations): (2*C*E + 9*E^2) / W = (2*C + 9*E) / 249 = 22.65 for E = 600, so t = 5;
//   * "all weights and activations fit the 512 kB TCDM": at int8, W = 149,400 B plus the
//     activations H*W*(C + E + E + C) = 1,440 B per pixel; 16x16 gives 518,040 B <= 524,288 B
//     (the largest square feature map that fits).
// So the default is a 16x16x120 input, expansion 5 (600 hidden channels), 120 outputs, stride 1.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace hetcim::zoo {

struct BottleneckShape {
  int64_t height = 16;    // input feature map, >= 1
  int64_t width = 16;     // >= 1
  int64_t c_in = 120;     // input channels, >= 1
  int64_t expansion = 5;  // t: hidden channels = t * c_in, >= 1 (t = 1 has no expansion layer)
  int64_t c_out = 120;    // output channels, >= 1; residual Add iff stride 1 and c_out == c_in
  int64_t stride = 1;     // of the depthwise convolution: 1 or 2
};

// Throws UserError naming the layer unless every size is >= 1, the stride is 1 or 2, and every
// tensor of the block (input, hidden, output activations and weights, times `batch`) has at most
// kMaxTensorElements elements (util/limits.h); then every MAC and cycle count fits in int64.
void check_bottleneck_shape(const BottleneckShape& shape, int64_t batch = 1);

[[nodiscard]] graph::Graph bottleneck(int64_t batch = 1, const BottleneckShape& shape = {});

}  // namespace hetcim::zoo
