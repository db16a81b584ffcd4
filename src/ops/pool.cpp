// Pooling: MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool and the int8 forms
// QLinearAveragePool and QLinearGlobalAveragePool (com.microsoft). Their kernels are oneDNN's
// (exec/families/pool.cpp, qlinear_eltwise.cpp); the shape rules are here.
#include <algorithm>

#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

Infos pool(const Ctx& c, bool is_max) {
  c.arity(1, 1, 1, is_max ? 2 : 1);
  const Shape& x = c.shape(0);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, spatial...), got ", shape_str(x));
  const size_t spatial = x.size() - 2;
  if (!c.node().has_attr("kernel_shape")) c.fail("attribute 'kernel_shape' is required");
  const std::vector<int64_t> kernel = spatial_attr(c, "kernel_shape", spatial, 1, true);
  const Window win = read_window(c, spatial, kernel);
  Shape out = {x[0], x[1]};
  for (size_t i = 0; i < spatial; ++i) out.push_back(window_out(c, win, i, x[i + 2]));
  Infos r = {{c.dtype(0), out}};
  if (c.node().outputs.size() == 2) r.push_back({DType::Int64, out});
  return r;
}
Infos max_pool(const Ctx& c) {  // a second output: the indices
  return pool(c, true);
}
Infos average_pool(const Ctx& c) {
  return pool(c, false);
}

Infos global_pool(const Ctx& c) {
  c.arity(1, 1, 1, 1);
  Shape x = c.shape(0);
  if (x.size() < 3) c.fail("input must have rank >= 3 (N, C, spatial...), got ", shape_str(x));
  std::fill(x.begin() + 2, x.end(), 1);
  return {{c.dtype(0), x}};
}

}  // namespace

std::vector<Family> pool_family() {
  return {{.op = "MaxPool",
           .family = "pool",
           .shape = max_pool,
           .int8_runs = true,
           .int8_passthrough = true,
           .nhwc = true},
          {.op = "AveragePool",
           .family = "pool",
           .shape = average_pool,
           .qform = "QLinearAveragePool",
           .qlayout = QLayout::Unary,
           .int8_runs = true,
           .nhwc = true},
          {.op = "GlobalAveragePool",
           .family = "pool",
           .shape = global_pool,
           .qform = "QLinearGlobalAveragePool",
           .qlayout = QLayout::Unary,
           .global_pool = true,
           .int8_runs = true,
           .nhwc = true},
          {.op = "GlobalMaxPool", .family = "pool", .shape = global_pool, .global_pool = true},
          {.op = "QLinearGlobalAveragePool",
           .family = "qgap",
           .domain = kMicrosoft,
           .qform = "GlobalAveragePool",
           .qlayout = QLayout::Unary,
           .quantized = true,
           .global_pool = true,
           .nhwc = true},
          {.op = "QLinearAveragePool",
           .family = "qavgpool",
           .domain = kMicrosoft,
           .qform = "AveragePool",
           .qlayout = QLayout::Unary,
           .quantized = true,
           .nhwc = true}};
}

}  // namespace hetcim::ops
