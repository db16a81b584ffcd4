// ResNet-18 and ResNet-50 in torchvision's layout (He et al., CVPR 2016;
// torchvision.models.resnet): 7x7/2 stem + BN + ReLU + 3x3/2 max pool, four stages of BasicBlocks
// [2, 2, 2, 2] (ResNet-18) or Bottlenecks [3, 4, 6, 3] with the stride on the 3x3 convolution
// (ResNet-50, "v1.5"), 1x1 downsample convolution + BN where the shape changes, global average
// pool, flatten, a 1000-class Linear. Convolutions carry no bias (each is followed by
// BatchNormalization). Input 3x224x224.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace hetcim::zoo {

[[nodiscard]] graph::Graph resnet18(int64_t batch = 1);
[[nodiscard]] graph::Graph resnet50(int64_t batch = 1);

}  // namespace hetcim::zoo
