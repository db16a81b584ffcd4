// ReduceMean over constant axes (attribute before opset 18, input 1 from 18 on), keepdims.
#include <set>

#include "graph/node_errors.h"
#include "ops/families.h"

namespace hetcim::ops {

Run compile_reduce_mean(const KernelInput& k) {
  const graph::Node& n = k.node;
  const graph::Shape x = k.shapes.at(0);
  const auto rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  if (k.constants.size() > 1 && k.constants[1]) {
    axes.clear();
    const Constant& a = *k.constants[1];
    for (int64_t i = 0; i < a.numel(); ++i) axes.push_back(static_cast<int64_t>(a.at(i)));
  } else if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    throw graph::node_error(n, "axes (input 1 '", n.inputs[1], "') must be a constant");
  }
  std::set<int64_t> reduced;
  for (int64_t a : axes) reduced.insert(graph::normalize_axis(n, a, rank));
  if (reduced.empty() && n.attr_int("noop_with_empty_axes", 0) == 0)
    for (int64_t d = 0; d < rank; ++d) reduced.insert(d);
  // Output stride of every input dimension (0 for a reduced one), in the kept dimensions' order.
  std::vector<int64_t> ostride(x.size(), 0);
  int64_t s = 1, count = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (reduced.count(d)) {
      count *= x[static_cast<size_t>(d)];
      continue;
    }
    ostride[static_cast<size_t>(d)] = s;
    s *= x[static_cast<size_t>(d)];
  }
  const int64_t out_n = s, in_n = graph::element_count(x);
  const float inv = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
  // The reduced axes are the innermost ones (a decomposed LayerNorm's mean over the last axis):
  // each output is the mean of `count` consecutive inputs, summed in double over 8 interleaved
  // partial sums (independent chains the compiler vectorises; the odometer below is about 8x
  // slower on ViT's 17 x 192 rows).
  bool suffix = !reduced.empty();
  for (int64_t d = rank - 1, k = 0; d >= 0 && k < static_cast<int64_t>(reduced.size()); --d, ++k)
    suffix = suffix && reduced.count(d) > 0;
  if (suffix && count > 0)
    return
        [out_n, count, inv](const std::vector<const float*>& in, const std::vector<float*>& out) {
          for (int64_t j = 0; j < out_n; ++j) {
            const float* row = in[0] + j * count;
            double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            int64_t k = 0;
            for (; k + 8 <= count; k += 8)
              for (int l = 0; l < 8; ++l) part[l] += static_cast<double>(row[k + l]);
            double sum = ((part[0] + part[1]) + (part[2] + part[3])) +
                         ((part[4] + part[5]) + (part[6] + part[7]));
            for (; k < count; ++k) sum += static_cast<double>(row[k]);
            out[0][j] = static_cast<float>(sum) * inv;
          }
        };
  return [x, ostride, out_n, in_n, inv](const std::vector<const float*>& in,
                                        const std::vector<float*>& out) {
    std::vector<double> acc(static_cast<size_t>(out_n), 0.0);
    std::vector<int64_t> idx(x.size(), 0);
    int64_t o = 0;
    for (int64_t i = 0; i < in_n; ++i) {
      acc[static_cast<size_t>(o)] += in[0][i];
      for (size_t d = x.size(); d-- > 0;) {  // odometer over the input index
        o += ostride[d];
        if (++idx[d] < x[d]) break;
        o -= ostride[d] * x[d];
        idx[d] = 0;
      }
    }
    for (int64_t j = 0; j < out_n; ++j)
      out[0][j] = static_cast<float>(acc[static_cast<size_t>(j)]) * inv;
  };
}

}  // namespace hetcim::ops
