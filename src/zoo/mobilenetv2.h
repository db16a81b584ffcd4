// MobileNetV2 in torchvision's layout (Sandler et al., CVPR 2018; torchvision.models.mobilenet_v2,
// width 1.0): features.0 = 3x3/2 Conv-BN-ReLU6 to 32 channels; 17 inverted residual blocks with
// (expansion t, channels c, repeats n, first stride s) = (1,16,1,1) (6,24,2,2) (6,32,3,2)
// (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1); features.18 = 1x1 Conv-BN-ReLU6 to 1280;
// global average pool, flatten, classifier.1 = Linear(1280, 1000) (classifier.0, Dropout, is
// absent from the eval-mode export). ReLU6 is Clip(0, 6). Input 3x224x224.
#pragma once

#include <cstdint>
#include <string>

#include "graph/graph.h"

namespace hetcim::zoo {

class Builder;

[[nodiscard]] graph::Graph mobilenet_v2(int64_t batch = 1);

// One torchvision InvertedResidual at module path `prefix` ("features.2"): a 1x1 expansion
// Conv-BN-ReLU6 to expansion*C_in channels (absent when expansion == 1), a 3x3 depthwise
// Conv-BN-ReLU6 with `stride`, a 1x1 projection Conv-BN to c_out, and the residual Add when
// stride == 1 and C_in == c_out. Returns the block's output tensor.
std::string inverted_residual(Builder& b, const std::string& prefix, const std::string& x,
                              int64_t c_out, int64_t stride, int64_t expansion);

}  // namespace hetcim::zoo
