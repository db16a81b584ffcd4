#include "zoo/mobilenetv2.h"

#include "util/error.h"
#include "zoo/builder.h"

namespace hetcim::zoo {
namespace {

// torchvision Conv2dNormActivation(..., activation_layer=ReLU6) at path p: p.0 conv, p.1 BN, p.2.
std::string conv_bn_relu6(Builder& b, const std::string& p, const std::string& x, int64_t c_out,
                          int64_t k, int64_t stride, int64_t groups) {
  std::string y = b.conv(p + ".0", x, c_out, k, stride, (k - 1) / 2, groups);
  y = b.batch_norm(p + ".1", y);
  return b.relu6(p + ".2", y);
}

}  // namespace

std::string inverted_residual(Builder& b, const std::string& prefix, const std::string& x,
                              int64_t c_out, int64_t stride, int64_t expansion) {
  if (stride != 1 && stride != 2) {
    throw user_error("inverted residual '", prefix, "': stride must be 1 or 2, got ", stride);
  }
  if (expansion < 1 || c_out < 1) {
    throw user_error("inverted residual '", prefix,
                     "': expansion and output channels must be >= 1");
  }
  const int64_t c_in = b.channels(x);
  const int64_t hidden = c_in * expansion;
  const std::string p = join(prefix, "conv");
  int idx = 0;
  std::string y = x;
  if (expansion != 1) y = conv_bn_relu6(b, p + "." + std::to_string(idx++), y, hidden, 1, 1, 1);
  y = conv_bn_relu6(b, p + "." + std::to_string(idx++), y, hidden, 3, stride, hidden);
  y = b.conv(p + "." + std::to_string(idx++), y, c_out, 1);
  y = b.batch_norm(p + "." + std::to_string(idx++), y);
  if (stride == 1 && c_in == c_out) y = b.add_tensors(join(prefix, "add"), x, y);
  return y;
}

graph::Graph mobilenet_v2(int64_t batch) {
  if (batch < 1) throw user_error("mobilenetv2: batch must be >= 1, got ", batch);
  Builder b("mobilenetv2");
  std::string x = b.input("input", {batch, 3, 224, 224});
  x = conv_bn_relu6(b, "features.0", x, 32, 3, 2, 1);
  struct Stage {
    int64_t t, c, n, s;
  };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int feature = 1;
  for (const Stage& st : stages) {
    for (int64_t i = 0; i < st.n; ++i) {
      x = inverted_residual(b, "features." + std::to_string(feature++), x, st.c, i == 0 ? st.s : 1,
                            st.t);
    }
  }
  x = conv_bn_relu6(b, "features." + std::to_string(feature), x, 1280, 1, 1, 1);
  x = b.global_avg_pool("avgpool", x);
  x = b.flatten("flatten", x);
  x = b.linear("classifier.1", x, 1000);
  b.output(x);
  return std::move(b).finish();
}

}  // namespace hetcim::zoo
