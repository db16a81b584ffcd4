// YOLOv5n as Ultralytics defines it from v6.0 on (models/yolov5n.yaml: depth 0.33, width 0.25,
// nc = 80, three anchors per level; models/common.py Conv, C3, Bottleneck, SPPF; models/yolo.py
// Detect) and as export.py writes it to ONNX (fp32, eval, Detect in export mode, inplace = False):
//
//   backbone  0 Conv(16, 6x6/2, p2)  1 Conv(32, 3/2)  2 C3(32) x1  3 Conv(64, 3/2)  4 C3(64) x2
//             5 Conv(128, 3/2)  6 C3(128) x3  7 Conv(256, 3/2)  8 C3(256) x1  9 SPPF(256, k5)
//   head     10 Conv(128, 1)  11 Upsample x2 nearest  12 Concat(11, 6)  13 C3(128, no shortcut)
//            14 Conv(64, 1)  15 Upsample  16 Concat(15, 4)  17 C3(64, no shortcut)
//            18 Conv(64, 3/2)  19 Concat(18, 14)  20 C3(128, no shortcut)
//            21 Conv(128, 3/2)  22 Concat(21, 10)  23 C3(256, no shortcut)  24 Detect(17, 20, 23)
//
// Conv = Conv2d (no bias) + BatchNorm2d (eps 1e-3) + SiLU, exported as Sigmoid and Mul. Detect per
// level (stride 8, 16, 32): Conv2d(C, 255, 1) with bias -> Reshape (bs, 3, 85, ny, nx) ->
// Transpose (0, 1, 3, 4, 2) -> Sigmoid -> Split (2, 2, 81) on the last axis -> xy = (xy * 2 +
// grid) * stride, wh = (wh * 2) ^ 2 * anchor_grid (v7.0 form; grid holds the -0.5 offset) ->
// Concat -> Reshape (bs, -1, 85); the three levels are concatenated to (bs, 25200, 85) at 640x640.
// grid / anchor_grid are initializers with their values (shape 1x3xnyxnxx2), as the exporter
// folds them.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace hetcim::zoo {

// image_size: square input side, a multiple of 32.
[[nodiscard]] graph::Graph yolov5n(int64_t batch = 1, int64_t image_size = 640);

}  // namespace hetcim::zoo
