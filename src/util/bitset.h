// A dynamic bitset sized at run time, used for transitive closures and node sets. Plain words so
// that row unions (closure) and popcounts are one loop each.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace hetcim {

class DynBitset {
 public:
  DynBitset() = default;
  explicit DynBitset(size_t n) : n_(n), words_((n + 63) / 64, 0) {}

  [[nodiscard]] size_t size() const { return n_; }
  void set(size_t i) { words_[i >> 6] |= (uint64_t{1} << (i & 63)); }
  void reset(size_t i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  [[nodiscard]] bool test(size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1U; }
  DynBitset& operator|=(const DynBitset& o) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] |= o.words_[w];
    return *this;
  }
  [[nodiscard]] size_t count() const {
    size_t c = 0;
    for (uint64_t w : words_) c += static_cast<size_t>(std::popcount(w));
    return c;
  }
  bool operator==(const DynBitset&) const = default;

 private:
  size_t n_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace hetcim
