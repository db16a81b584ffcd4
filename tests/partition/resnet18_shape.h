// ResNet-18 at ONNX Runtime's int8 granularity (seeds/README.md), built by hand: QuantizeLinear,
// Transpose, conv1, MaxPool, 8 basic blocks (3 with a downsample conv on the skip), GAP,
// Transpose, DequantizeLinear, Flatten, QuantizeLinear, Gemm, DequantizeLinear = 38 operators,
// 20 Conv + Gemm offloadable. Latencies are arbitrary but deterministic.
#pragma once

#include "test_problems.h"

namespace hetcim::partition::testing {

inline Problem resnet18_shape(int64_t budget) {
  std::vector<std::pair<int, int>> edges;
  std::vector<bool> conv(38, false);
  int last = 3;  // 0 Q -> 1 Transpose -> 2 conv1 -> 3 MaxPool
  edges = {{0, 1}, {1, 2}, {2, 3}};
  conv[2] = true;
  int next = 4;
  for (int block = 0; block < 8; ++block) {
    const bool down = block == 2 || block == 4 || block == 6;
    const int a = next++, b = next++;
    conv[static_cast<size_t>(a)] = conv[static_cast<size_t>(b)] = true;
    edges.push_back({last, a});
    edges.push_back({a, b});
    int skip = last;
    if (down) {
      const int d = next++;
      conv[static_cast<size_t>(d)] = true;
      edges.push_back({last, d});
      skip = d;
    }
    const int add = next++;
    edges.push_back({b, add});
    edges.push_back({skip, add});
    last = add;
  }
  // GAP, Transpose, DQ, Flatten, Q, Gemm, DQ.
  for (int i = 0; i < 7; ++i) {
    edges.push_back({last, next});
    last = next++;
  }
  const int gemm = next - 2;
  conv[static_cast<size_t>(gemm)] = true;
  std::vector<double> host, transfer;
  std::vector<std::vector<AccMode>> acc;
  for (int v = 0; v < next; ++v) {
    host.push_back(conv[static_cast<size_t>(v)] ? 10.0 + (v * 7) % 13 : 1.0 + v % 3);
    if (conv[static_cast<size_t>(v)])
      acc.push_back({{1 + v % 4, 2.0 + v % 5}});
    else
      acc.push_back({});
  }
  for (size_t e = 0; e < edges.size(); ++e) transfer.push_back(0.5 + static_cast<double>(e % 4));
  return make_problem(static_cast<size_t>(next), edges, host, acc, transfer, budget);
}

}  // namespace hetcim::partition::testing
