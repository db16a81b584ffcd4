#include "zoo/bottleneck.h"

#include <vector>

#include "util/error.h"
#include "util/limits.h"
#include "zoo/builder.h"
#include "zoo/mobilenetv2.h"

namespace hetcim::zoo {

void check_bottleneck_shape(const BottleneckShape& s, int64_t batch) {
  if (batch < 1) throw user_error("bottleneck: batch must be >= 1, got ", batch);
  if (s.height < 1 || s.width < 1 || s.c_in < 1 || s.c_out < 1 || s.expansion < 1) {
    throw user_error("bottleneck: height, width, c_in, c_out and expansion must be >= 1");
  }
  if (s.stride != 1 && s.stride != 2)
    throw user_error("bottleneck: stride must be 1 or 2, got ", s.stride);
  const int64_t hidden = checked_elements(std::vector<int64_t>{s.c_in, s.expansion},
                                          kMaxTensorElements, "bottleneck: hidden channels");
  const int64_t lim = kMaxTensorElements;
  (void)checked_elements(std::vector<int64_t>{batch, s.c_in, s.height, s.width}, lim,
                         "bottleneck: input");
  (void)checked_elements(std::vector<int64_t>{batch, hidden, s.height, s.width}, lim,
                         "bottleneck: hidden activation");
  (void)checked_elements(std::vector<int64_t>{batch, s.c_out, s.height, s.width}, lim,
                         "bottleneck: output");
  (void)checked_elements(std::vector<int64_t>{s.c_in, hidden}, lim, "bottleneck: expand weights");
  (void)checked_elements(std::vector<int64_t>{hidden, s.c_out}, lim, "bottleneck: project weights");
}

graph::Graph bottleneck(int64_t batch, const BottleneckShape& s) {
  check_bottleneck_shape(s, batch);
  Builder b("bottleneck");
  const std::string x = b.input("input", {batch, s.c_in, s.height, s.width});
  b.output(inverted_residual(b, "", x, s.c_out, s.stride, s.expansion));
  return std::move(b).finish();
}

}  // namespace hetcim::zoo
