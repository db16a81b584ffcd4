#include "graph/dag_counts.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace hetcim::graph {
namespace {

// A topological order and each vertex's position in it.
struct Positions {
  std::vector<int> order;  // position -> vertex
  std::vector<int> pos;    // vertex -> position
};

Positions positions(const Dag& d) {
  Positions p;
  p.order = topological_order(d);
  p.pos.assign(d.n, 0);
  for (size_t i = 0; i < p.order.size(); ++i)
    p.pos[static_cast<size_t>(p.order[i])] = static_cast<int>(i);
  return p;
}

// is_cut[position]: the vertex at that position is comparable with every other.
std::vector<char> cut_positions(const Dag& d, const Positions& p) {
  const int n = static_cast<int>(d.n);
  std::vector<char> cut(d.n, 0);
  // prefix_max[q]: the largest, over positions < q, of the least successor position (n for a sink).
  std::vector<int> prefix_max(d.n + 1, -1);
  for (int q = 0; q < n; ++q) {
    int least = n;
    for (int v : d.succ[static_cast<size_t>(p.order[static_cast<size_t>(q)])])
      least = std::min(least, p.pos[static_cast<size_t>(v)]);
    prefix_max[static_cast<size_t>(q) + 1] = std::max(prefix_max[static_cast<size_t>(q)], least);
  }
  // suffix_min: the least, over positions > q, of the greatest predecessor position (-1 for a
  // source).
  int suffix_min = n;
  for (int q = n - 1; q >= 0; --q) {
    if (prefix_max[static_cast<size_t>(q)] <= q && suffix_min >= q) cut[static_cast<size_t>(q)] = 1;
    int greatest = -1;
    for (int u : d.pred[static_cast<size_t>(p.order[static_cast<size_t>(q)])])
      greatest = std::max(greatest, p.pos[static_cast<size_t>(u)]);
    suffix_min = std::min(suffix_min, greatest);
  }
  return cut;
}

// Pairs u < v among positions [s, e) (a segment between cut nodes) with a path u -> v.
int64_t comparable_pairs(const Dag& d, const Positions& p, int s, int e) {
  const int k = e - s;
  constexpr int kBlockWords = 64;  // 4096 columns per pass
  const int blocks_words = (k + 63) / 64;
  int64_t comparable = 0;
  std::vector<uint64_t> rows;
  for (int w0 = 0; w0 < blocks_words; w0 += kBlockWords) {
    const int words = std::min(kBlockWords, blocks_words - w0);
    const int c0 = w0 * 64, c1 = std::min(k, (w0 + words) * 64);  // local columns [c0, c1)
    // Only local vertices before c1 can reach a column of the block (paths go forward).
    rows.assign(static_cast<size_t>(c1) * static_cast<size_t>(words), 0);
    for (int a = c1 - 1; a >= 0; --a) {
      uint64_t* ra = rows.data() + static_cast<size_t>(a) * static_cast<size_t>(words);
      for (int v : d.succ[static_cast<size_t>(p.order[static_cast<size_t>(s + a)])]) {
        const int b = p.pos[static_cast<size_t>(v)] - s;
        if (b >= c1) continue;  // beyond the block (or the segment): contributes nothing here
        const uint64_t* rb = rows.data() + static_cast<size_t>(b) * static_cast<size_t>(words);
        for (int w = 0; w < words; ++w) ra[w] |= rb[w];
        if (b >= c0) ra[(b - c0) >> 6] |= uint64_t{1} << ((b - c0) & 63);
      }
      for (int w = 0; w < words; ++w) comparable += std::popcount(ra[w]);
    }
  }
  return comparable;
}

}  // namespace

std::vector<int> cut_nodes(const Dag& d) {
  const Positions p = positions(d);
  const std::vector<char> cut = cut_positions(d, p);
  std::vector<int> out;
  for (size_t q = 0; q < d.n; ++q)
    if (cut[q]) out.push_back(p.order[q]);
  std::sort(out.begin(), out.end());
  return out;
}

int64_t count_parallel_pairs(const Dag& d) {
  const Positions p = positions(d);
  const std::vector<char> cut = cut_positions(d, p);
  const int n = static_cast<int>(d.n);
  int64_t pairs = 0;
  for (int s = 0; s < n;) {
    if (cut[static_cast<size_t>(s)]) {
      ++s;
      continue;
    }
    int e = s;
    while (e < n && !cut[static_cast<size_t>(e)]) ++e;
    const int64_t k = e - s;
    pairs += k * (k - 1) / 2 - comparable_pairs(d, p, s, e);
    s = e;
  }
  return pairs;
}

}  // namespace hetcim::graph
