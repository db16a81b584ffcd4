#include "select/splits.h"

#include <algorithm>
#include <numeric>

#include "util/error.h"
#include "util/hash.h"

namespace hetcim::select {
namespace {

// Uniform in [0, bound) by rejection (no modulo bias).
uint64_t below(SplitMix64& g, uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  for (;;) {
    const uint64_t x = g.next();
    if (x < limit) return x % bound;
  }
}

}  // namespace

Splits make_splits(int64_t count, const SplitSizes& s, uint64_t seed) {
  if (s.hardware < 0 || s.policy < 1 || s.certificate < 1 || s.test < 0)
    throw user_error(
        "data splits: need hardware >= 0, policy >= 1, certificate >= 1 and test >= 0 "
        "rows, got ",
        s.hardware, " / ", s.policy, " / ", s.certificate, " / ", s.test);
  const int64_t need = s.hardware + s.policy + s.certificate + s.test;
  if (need > count)
    throw user_error("data splits: hardware ", s.hardware, " + policy ", s.policy,
                     " + certificate ", s.certificate, " + test ", s.test, " = ", need,
                     " rows, but the data has only ", count);
  std::vector<int64_t> perm(static_cast<size_t>(count));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  SplitMix64 g{seed};
  for (int64_t i = count - 1; i > 0; --i)
    std::swap(perm[static_cast<size_t>(i)], perm[below(g, static_cast<uint64_t>(i + 1))]);
  Splits out;
  auto begin = perm.begin();
  auto take = [&](int64_t n, std::vector<int64_t>& dst) {
    dst.assign(begin, begin + n);
    std::sort(dst.begin(), dst.end());
    begin += n;
  };
  take(s.hardware, out.hardware);
  take(s.policy, out.policy);
  take(s.certificate, out.certificate);
  take(s.test, out.test);
  return out;
}

}  // namespace hetcim::select
