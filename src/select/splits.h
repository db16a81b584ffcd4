// Seed 002's disjoint data roles (Sec. III-A), drawn from one pool of labelled rows by a seeded
// permutation: hardware H (bias estimation), policy P (thresholds and selection), certificate C
// (evaluated once, for the certificate), and a descriptive test split T.
#pragma once

#include <cstdint>
#include <vector>

namespace hetcim::select {

struct SplitSizes {
  int64_t hardware = 2000;     // >= 0 (0 only without bias correction)
  int64_t policy = 2000;       // >= 1
  int64_t certificate = 4000;  // >= 1
  int64_t test = 2000;         // >= 0
};

struct Splits {
  std::vector<int64_t> hardware, policy, certificate, test;  // row indices, each sorted ascending
};

// A uniformly random permutation of [0, count) (Fisher-Yates on SplitMix64 from `seed`, unbiased
// bounded draws) cut into consecutive blocks of the given sizes; rows beyond their sum are unused.
// The same seed gives the same splits. UserError when the sizes are negative, policy or
// certificate is empty, or they add up to more than `count` (the message gives both).
[[nodiscard]] Splits make_splits(int64_t count, const SplitSizes& sizes, uint64_t seed);

}  // namespace hetcim::select
