#include "zoo/bottleneck.h"

#include "util/error.h"
#include "zoo/builder.h"
#include "zoo/mobilenetv2.h"

namespace hetcim::zoo {

graph::Graph bottleneck(int64_t batch, const BottleneckShape& s) {
  if (batch < 1) throw user_error("bottleneck: batch must be >= 1, got ", batch);
  if (s.height < 1 || s.width < 1 || s.c_in < 1 || s.c_out < 1 || s.expansion < 1) {
    throw user_error("bottleneck: height, width, c_in, c_out and expansion must be >= 1");
  }
  Builder b("bottleneck");
  const std::string x = b.input("input", {batch, s.c_in, s.height, s.width});
  b.output(inverted_residual(b, "", x, s.c_out, s.stride, s.expansion));
  return std::move(b).finish();
}

}  // namespace hetcim::zoo
