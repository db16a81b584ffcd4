#include "select/splits.h"

#include <algorithm>

#include "util/error.h"
#include "util/hash.h"

namespace hetcim::select {

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
  const std::vector<int64_t> perm = seeded_permutation(count, seed);
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
