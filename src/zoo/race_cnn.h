// The small CNN of seed 002 (Yousuf and Lueker-Boden, RACE-AIMC, Sec. V-A): Conv(C,32,3)-ReLU-
// MaxPool, Conv(32,64,3)-ReLU-MaxPool, Conv(64,128,3)-ReLU-adaptive-pool-to-4x4, then
// Linear(2048,256)-ReLU-Linear(256,10). Convolutions are 3x3 with padding 1 and a bias (no
// BatchNorm); max pools are 2x2 with stride 2. Module paths: features.0 ... features.8,
// flatten, classifier.0 ... classifier.2.
//
// The adaptive pool is exported the way torch.onnx.export writes AdaptiveAvgPool2d when the
// side is a multiple of 4: AveragePool with kernel = stride = side / 4 (3x32x32 input: 8x8 ->
// 4x4, kernel 2). Other sides have overlapping, unequal PyTorch bins (7x7: [0,2) [1,4) [3,6)
// [5,7)) with no ONNX equivalent (the exporter refuses them); for those we use the AveragePool
// with stride s = floor(side / 4) and kernel side - 3*s, four equal windows that cover the map
// (7x7, the 1x28x28 variant: kernel 4, stride 1). Output shape, parameters and MACs are those of
// the adaptive pool; only the pool's own averaging windows differ.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace hetcim::zoo {

struct RaceCnnInput {
  int64_t channels = 3;  // 3 (CIFAR-10, the paper's setup) or 1 (MNIST-like)
  int64_t height = 32;   // >= 4 after the two pools, i.e. >= 16
  int64_t width = 32;
  int64_t classes = 10;
};

[[nodiscard]] graph::Graph race_cnn(int64_t batch = 1, const RaceCnnInput& input = {});

}  // namespace hetcim::zoo
