// Internal to hetcim_train: seed 002's CNN as a libtorch module whose parameter names and shapes
// are exactly those of zoo::race_cnn (features.0.weight ... classifier.2.bias), so weights move
// between the module and a graph::Graph by name. The 4x4 pool is the zoo's AveragePool (kernel
// side - 3 * floor(side / 4), stride floor(side / 4)), so the trained network is the exported one.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "data/dataset.h"
#include "graph/graph.h"
#include "zoo/race_cnn.h"

namespace hetcim::train {

struct RaceCnnNetImpl : torch::nn::Module {
  explicit RaceCnnNetImpl(const zoo::RaceCnnInput& input);
  torch::Tensor features_of(const torch::Tensor& x);  // [N, 2048] after flatten
  torch::Tensor forward(const torch::Tensor& x);      // logits [N, classes]

  zoo::RaceCnnInput input;
  torch::nn::Sequential features{nullptr};
  torch::nn::Sequential classifier{nullptr};
};
TORCH_MODULE(RaceCnnNet);

// PyTorch's default initialization of Conv2d/Linear (weights and biases uniform in
// +/-1/sqrt(fan_in)) drawn from our own seeded generator, not torch's global one.
void init_parameters(RaceCnnNet& net, uint64_t seed);

// The zoo graph of the same input shape with the module's weights as initializers.
[[nodiscard]] graph::Graph to_graph(RaceCnnNet& net);

// A module with the weights of `model` (a race_cnn graph, e.g. imported from ONNX). UserError
// naming the parameter when one is missing, has no values or has the wrong shape; the input shape
// comes from the graph's input.
[[nodiscard]] RaceCnnNet from_graph(const graph::Graph& model);

// Images [begin, begin + n) of `d` as a float tensor N x C x H x W of pixels / 255.
[[nodiscard]] torch::Tensor images_tensor(const data::ImageDataset& d, int64_t begin, int64_t n);

// Checks that the module's input shape and classes fit the data set (UserError naming both).
void check_fits(const RaceCnnNet& net, const data::ImageDataset& d);

class NoiseInjector;  // noise_injection.h

// One analog Linear layer (no bias) of the hardware-aware forward pass: x (batch x in), w (out x
// in); the chip's effects injected by `injector` with straight-through gradients
// (noise_injection.h).
[[nodiscard]] torch::Tensor hardware_aware_linear(const torch::Tensor& x, const torch::Tensor& w,
                                                  NoiseInjector& injector);

// The network's logits with its classifier (both Linear layers, the analog layers of evaluation)
// through hardware_aware_linear; the convolutional front end, biases and ReLU digital.
[[nodiscard]] torch::Tensor hardware_aware_forward(RaceCnnNet& net, const torch::Tensor& x,
                                                   NoiseInjector& injector);

}  // namespace hetcim::train
