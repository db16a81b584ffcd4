// Deterministic hashing and seeding shared by everything that derives a stream or a key from a
// name: FNV-1a (64-bit) over bytes, the SplitMix64 generator (Steele, Lea, Flood 2014) that
// turns one 64-bit seed into a reproducible stream, and the seeded permutation that every data
// split is drawn from (held-out images, seed 002's H/P/C/T splits).
#pragma once

#include <cstdint>
#include <numeric>
#include <string_view>
#include <utility>
#include <vector>

namespace hetcim {

struct Fnv1a {
  uint64_t h = 0xcbf29ce484222325ull;
  void update(const void* data, size_t n) {
    const auto* c = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 0x100000001b3ull;
  }
};

[[nodiscard]] inline uint64_t fnv1a(std::string_view s) {
  Fnv1a f;
  f.update(s.data(), s.size());
  return f.h;
}

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, bound) by rejection (no modulo bias); bound >= 1.
  uint64_t below(uint64_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    for (;;) {
      const uint64_t x = next();
      if (x < limit) return x % bound;
    }
  }
};

// 0 .. count-1 shuffled by Fisher-Yates from `seed` (same seed, same order on every machine).
[[nodiscard]] inline std::vector<int64_t> seeded_permutation(int64_t count, uint64_t seed) {
  std::vector<int64_t> perm(static_cast<size_t>(count));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  SplitMix64 g{seed};
  for (int64_t i = count - 1; i > 0; --i)
    std::swap(perm[static_cast<size_t>(i)], perm[g.below(static_cast<uint64_t>(i + 1))]);
  return perm;
}

}  // namespace hetcim
