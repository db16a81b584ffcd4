#include "zoo/zoo.h"

#include "util/error.h"
#include "zoo/mobilenetv2.h"
#include "zoo/race_cnn.h"
#include "zoo/resnet.h"
#include "zoo/yolov5.h"

namespace hetcim::zoo {
namespace {

using BuildFn = graph::Graph (*)(const ModelOptions&);

struct Entry {
  ModelInfo info;
  BuildFn build;
};

std::vector<Entry> entries() {
  const BottleneckShape bn;
  return {
      {{"resnet18",
        "ResNet-18, 1000 classes",
        {1, 3, 224, 224},
        "He et al., Deep Residual Learning for Image Recognition, CVPR 2016; "
        "torchvision.models.resnet18"},
       [](const ModelOptions& o) { return resnet18(o.batch); }},
      {{"resnet50",
        "ResNet-50 (v1.5, stride on the 3x3 conv), 1000 classes",
        {1, 3, 224, 224},
        "He et al., CVPR 2016; torchvision.models.resnet50"},
       [](const ModelOptions& o) { return resnet50(o.batch); }},
      {{"mobilenetv2",
        "MobileNetV2 width 1.0, 1000 classes",
        {1, 3, 224, 224},
        "Sandler et al., MobileNetV2: Inverted Residuals and Linear Bottlenecks, CVPR 2018; "
        "torchvision.models.mobilenet_v2"},
       [](const ModelOptions& o) { return mobilenet_v2(o.batch); }},
      {{"yolov5n",
        "YOLOv5n v6.0+ (80 classes, 3 detection levels), inference-mode Detect",
        {1, 3, 640, 640},
        "Ultralytics YOLOv5 v6.0+: models/yolov5n.yaml, models/common.py, models/yolo.py "
        "Detect.forward (export mode)"},
       [](const ModelOptions& o) { return yolov5n(o.batch); }},
      {{"bottleneck",
        "MobileNetV2 Bottleneck block of Garofalo et al. 2022 (16x16x120, t=5; parameterisable)",
        {1, bn.c_in, bn.height, bn.width},
        "Garofalo et al., A Heterogeneous In-Memory Computing Cluster..., JETCAS 2022, Sec. V-C; "
        "shape reconstructed from the text (zoo/bottleneck.h)"},
       [](const ModelOptions& o) { return bottleneck(o.batch, o.bottleneck); }},
      {{"race_cnn",
        "small CNN of RACE-AIMC on 3x32x32 (CIFAR-10), 10 classes",
        {1, 3, 32, 32},
        "Yousuf and Lueker-Boden, RACE-AIMC, 2026, Sec. V-A"},
       [](const ModelOptions& o) {
         return race_cnn(o.batch, RaceCnnInput{3, 32, 32, 10});
       }},
      {{"race_cnn_mnist",
        "small CNN of RACE-AIMC on 1x28x28 (Fashion-MNIST), 10 classes",
        {1, 1, 28, 28},
        "Yousuf and Lueker-Boden, RACE-AIMC, 2026, Sec. V-A (1-channel 28x28 variant)"},
       [](const ModelOptions& o) {
         return race_cnn(o.batch, RaceCnnInput{1, 28, 28, 10});
       }},
  };
}

}  // namespace

std::vector<ModelInfo> list_models() {
  std::vector<ModelInfo> out;
  for (Entry& e : entries()) out.push_back(std::move(e.info));
  return out;
}

graph::Graph build_model(std::string_view name, const ModelOptions& options) {
  if (options.batch < 1)
    throw user_error("model '", name, "': batch must be >= 1, got ", options.batch);
  std::string known;
  for (const Entry& e : entries()) {
    if (e.info.name == name) return e.build(options);
    known += (known.empty() ? "" : ", ") + e.info.name;
  }
  throw user_error("unknown model '", name, "'; the zoo has: ", known);
}

}  // namespace hetcim::zoo
