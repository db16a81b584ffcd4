#include "zoo/race_cnn.h"

#include "util/error.h"
#include "zoo/builder.h"

namespace hetcim::zoo {
namespace {

// AdaptiveAvgPool2d((4, 4)) as exported: exact for sides divisible by 4, else four equal
// covering windows (see race_cnn.h).
std::string pool_to_4x4(Builder& b, const std::string& name, const std::string& x) {
  const int64_t h = b.shape(x)[2], w = b.shape(x)[3];
  if (h != w) {
    throw user_error("race_cnn: the feature map before the 4x4 pool must be square, got ", h, "x",
                     w);
  }
  const int64_t stride = h / 4;
  return b.avg_pool(name, x, h - 3 * stride, stride);
}

}  // namespace

graph::Graph race_cnn(int64_t batch, const RaceCnnInput& in) {
  if (batch < 1) throw user_error("race_cnn: batch must be >= 1, got ", batch);
  if (in.channels < 1 || in.classes < 1)
    throw user_error("race_cnn: channels and classes must be >= 1");
  if (in.height < 16 || in.width < 16) {
    throw user_error("race_cnn: input must be at least 16x16, got ", in.height, "x", in.width);
  }
  Builder b("race_cnn");
  std::string x = b.input("input", {batch, in.channels, in.height, in.width});
  x = b.conv("features.0", x, 32, 3, 1, 1, 1, true);
  x = b.relu("features.1", x);
  x = b.max_pool("features.2", x, 2, 2, 0);
  x = b.conv("features.3", x, 64, 3, 1, 1, 1, true);
  x = b.relu("features.4", x);
  x = b.max_pool("features.5", x, 2, 2, 0);
  x = b.conv("features.6", x, 128, 3, 1, 1, 1, true);
  x = b.relu("features.7", x);
  x = pool_to_4x4(b, "features.8", x);
  x = b.flatten("flatten", x);
  x = b.linear("classifier.0", x, 256);
  x = b.relu("classifier.1", x);
  x = b.linear("classifier.2", x, in.classes);
  b.output(x);
  return std::move(b).finish();
}

}  // namespace hetcim::zoo
