// Gather of an activation with constant indices (a transformer's qkv[0], qkv[1], qkv[2]).
#include "graph/node_errors.h"
#include "ops/families.h"

namespace hetcim::ops {

Run compile_gather(const KernelInput& k) {
  const graph::Node& n = k.node;
  const graph::Shape x = k.shapes.at(0);
  if (x.empty()) throw graph::node_error(n, "data must have rank >= 1");
  if (!k.constants.at(1)) throw graph::node_error(n, "indices (input 1) must be a constant");
  const auto axis = static_cast<size_t>(
      graph::normalize_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(x.size())));
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < k.constants[1]->numel(); ++i) {
    auto v = static_cast<int64_t>(k.constants[1]->at(i));
    if (v < -x[axis] || v >= x[axis])
      throw graph::node_error(n, "index ", v, " is out of range for axis ", axis, " of length ",
                              x[axis]);
    idx.push_back(v < 0 ? v + x[axis] : v);
  }
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x[d];
  for (size_t d = axis + 1; d < x.size(); ++d) inner *= x[d];
  const int64_t len = x[axis];
  return [idx, outer, inner, len](const std::vector<const float*>& in,
                                  const std::vector<float*>& out) {
    float* dst = out[0];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i : idx) {
        const float* src = in[0] + (o * len + i) * inner;
        std::copy(src, src + inner, dst);
        dst += inner;
      }
  };
}

}  // namespace hetcim::ops
