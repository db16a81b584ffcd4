#include "train/race_cnn_net.h"

#include <cmath>
#include <string>

#include "util/error.h"
#include "xbar/rng.h"

namespace hetcim::train {
namespace {

namespace nn = torch::nn;

int64_t pool_side(int64_t side) {
  return side / 2 / 2;
}  // after the two 2x2 max pools

}  // namespace

RaceCnnNetImpl::RaceCnnNetImpl(const zoo::RaceCnnInput& in) : input(in) {
  const int64_t side = pool_side(in.height);
  const int64_t stride = side / 4;
  const int64_t kernel = side - 3 * stride;
  features = register_module(
      "features", nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in.channels, 32, 3).padding(1)),
                                 nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)),
                                 nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)), nn::ReLU(),
                                 nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)),
                                 nn::Conv2d(nn::Conv2dOptions(64, 128, 3).padding(1)), nn::ReLU(),
                                 nn::AvgPool2d(nn::AvgPool2dOptions(kernel).stride(stride))));
  classifier = register_module(
      "classifier", nn::Sequential(nn::Linear(2048, 256), nn::ReLU(), nn::Linear(256, in.classes)));
}

torch::Tensor RaceCnnNetImpl::features_of(const torch::Tensor& x) {
  return features->forward(x).flatten(1);
}

torch::Tensor RaceCnnNetImpl::forward(const torch::Tensor& x) {
  return classifier->forward(features_of(x));
}

void init_parameters(RaceCnnNet& net, uint64_t seed) {
  torch::NoGradGuard no_grad;
  xbar::Rng rng(seed);
  for (auto& item : net->named_parameters()) {
    const std::string& name = item.key();
    torch::Tensor& p = item.value();
    // fan_in of the layer the parameter belongs to: the weight's size / output count.
    const std::string weight_name = name.substr(0, name.rfind('.')) + ".weight";
    const torch::Tensor w = net->named_parameters()[weight_name];
    const double fan_in = static_cast<double>(w.numel() / w.size(0));
    const double bound = 1.0 / std::sqrt(fan_in);
    std::vector<float> v(static_cast<size_t>(p.numel()));
    for (auto& x : v) x = static_cast<float>((2.0 * rng.uniform() - 1.0) * bound);
    p.copy_(torch::from_blob(v.data(), p.sizes(), torch::kFloat32));
  }
}

graph::Graph to_graph(RaceCnnNet& net) {
  graph::Graph g = zoo::race_cnn(1, net->input);
  for (const auto& item : net->named_parameters()) {
    auto it = g.initializers.find(item.key());
    HETCIM_ASSERT(it != g.initializers.end(), "zoo race_cnn lacks parameter ", item.key());
    const torch::Tensor p = item.value().detach().contiguous();
    HETCIM_ASSERT(p.numel() == graph::element_count(*it->second.info.shape), "shape of ",
                  item.key());
    std::vector<float> v(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
    it->second = graph::Initializer::from_floats(*it->second.info.shape, v);
  }
  return g;
}

RaceCnnNet from_graph(const graph::Graph& model) {
  if (model.inputs.size() != 1)
    throw user_error("model '", model.name, "': expected one input (an image batch), got ",
                     model.inputs.size());
  const graph::Shape& in = model.shape_of(model.inputs[0], "model input");
  if (in.size() != 4 || in[1] < 1 || in[2] < 16 || in[3] < 16)
    throw user_error("model '", model.name, "': input '", model.inputs[0],
                     "' must be N x C x H x W with H, W >= 16, got ", graph::shape_str(in));
  if (in[2] != in[3])
    throw user_error("model '", model.name, "': RACE-AIMC's CNN needs square images, got ",
                     graph::shape_str(in));
  zoo::RaceCnnInput input{in[1], in[2], in[3], 10};
  if (auto it = model.initializers.find("classifier.2.bias");
      it != model.initializers.end() && it->second.info.shape)
    input.classes = (*it->second.info.shape)[0];
  RaceCnnNet net(input);
  torch::NoGradGuard no_grad;
  for (auto& item : net->named_parameters()) {
    auto it = model.initializers.find(item.key());
    if (it == model.initializers.end())
      throw user_error("model '", model.name, "': no parameter '", item.key(),
                       "' (expected RACE-AIMC's CNN, zoo model race_cnn)");
    const graph::Initializer& init = it->second;
    const auto sizes = item.value().sizes();
    const graph::Shape want(sizes.begin(), sizes.end());
    if (!init.info.shape || *init.info.shape != want)
      throw user_error("model '", model.name, "': parameter '", item.key(), "' has shape ",
                       init.info.shape ? graph::shape_str(*init.info.shape) : "?", ", expected ",
                       graph::shape_str(want));
    if (!init.has_values())
      throw user_error("model '", model.name, "': parameter '", item.key(), "' carries no values");
    std::vector<float> v = init.floats();
    item.value().copy_(torch::from_blob(v.data(), item.value().sizes(), torch::kFloat32));
  }
  return net;
}

torch::Tensor images_tensor(const data::ImageDataset& d, int64_t begin, int64_t n) {
  const std::vector<float> px = data::normalized_pixels(
      d, begin, n, std::vector<float>(static_cast<size_t>(d.channels), 0.0f),
      std::vector<float>(static_cast<size_t>(d.channels), 1.0f));
  return torch::from_blob(const_cast<float*>(px.data()), {n, d.channels, d.height, d.width},
                          torch::kFloat32)
      .clone();
}

void check_fits(const RaceCnnNet& net, const data::ImageDataset& d) {
  const zoo::RaceCnnInput& in = net->input;
  if (in.channels != d.channels || in.height != d.height || in.width != d.width ||
      in.classes != d.classes)
    throw user_error("the model takes ", in.channels, "x", in.height, "x", in.width,
                     " images with ", in.classes, " classes, but data set '", d.name, "' has ",
                     d.channels, "x", d.height, "x", d.width, " images with ", d.classes,
                     " classes");
}

}  // namespace hetcim::train
