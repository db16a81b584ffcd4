#include "zoo/resnet.h"

#include <string>

#include "util/error.h"
#include "zoo/builder.h"

namespace hetcim::zoo {
namespace {

enum class Block { Basic, Bottleneck };

// Conv (no bias) followed by BatchNormalization: the torchvision pair (conv_name, bn_name).
std::string conv_bn(Builder& b, const std::string& conv_name, const std::string& bn_name,
                    const std::string& x, int64_t c_out, int64_t k, int64_t stride, int64_t pad) {
  return b.batch_norm(bn_name, b.conv(conv_name, x, c_out, k, stride, pad));
}

// torchvision BasicBlock (expansion 1) or Bottleneck (expansion 4) at module path `p`.
std::string block(Builder& b, Block kind, const std::string& p, const std::string& x,
                  int64_t planes, int64_t stride) {
  const int64_t expansion = kind == Block::Basic ? 1 : 4;
  std::string out;
  if (kind == Block::Basic) {
    out = conv_bn(b, p + ".conv1", p + ".bn1", x, planes, 3, stride, 1);
    out = b.relu(p + ".relu", out);
    out = conv_bn(b, p + ".conv2", p + ".bn2", out, planes, 3, 1, 1);
  } else {
    out = conv_bn(b, p + ".conv1", p + ".bn1", x, planes, 1, 1, 0);
    out = b.relu(p + ".relu", out);
    out = conv_bn(b, p + ".conv2", p + ".bn2", out, planes, 3, stride, 1);
    out = b.relu(p + ".relu", out);
    out = conv_bn(b, p + ".conv3", p + ".bn3", out, planes * expansion, 1, 1, 0);
  }
  std::string identity = x;
  if (stride != 1 || b.channels(x) != planes * expansion) {
    identity =
        conv_bn(b, p + ".downsample.0", p + ".downsample.1", x, planes * expansion, 1, stride, 0);
  }
  out = b.add_tensors(p + ".add", out, identity);
  return b.relu(p + ".relu", out);
}

graph::Graph resnet(const std::string& name, Block kind, const int64_t (&layers)[4],
                    int64_t batch) {
  if (batch < 1) throw user_error(name, ": batch must be >= 1, got ", batch);
  Builder b(name);
  std::string x = b.input("input", {batch, 3, 224, 224});
  x = conv_bn(b, "conv1", "bn1", x, 64, 7, 2, 3);
  x = b.relu("relu", x);
  x = b.max_pool("maxpool", x, 3, 2, 1);
  const int64_t planes[4] = {64, 128, 256, 512};
  for (int s = 0; s < 4; ++s) {
    for (int64_t i = 0; i < layers[s]; ++i) {
      const std::string p = "layer" + std::to_string(s + 1) + "." + std::to_string(i);
      x = block(b, kind, p, x, planes[s], (s > 0 && i == 0) ? 2 : 1);
    }
  }
  x = b.global_avg_pool("avgpool", x);
  x = b.flatten("flatten", x);
  x = b.linear("fc", x, 1000);
  b.output(x);
  return std::move(b).finish();
}

}  // namespace

graph::Graph resnet18(int64_t batch) {
  return resnet("resnet18", Block::Basic, {2, 2, 2, 2}, batch);
}

graph::Graph resnet50(int64_t batch) {
  return resnet("resnet50", Block::Bottleneck, {3, 4, 6, 3}, batch);
}

}  // namespace hetcim::zoo
