#include "partition/multi_capacity.h"

namespace hetcim::partition {

CapacitySpace::CapacitySpace(const MultiProblem& p) {
  const size_t k = p.engines.size();
  cap_index.assign(k, -1);
  for (size_t e = 0; e < k; ++e)
    if (p.engines[e].capacity >= 0) {
      cap_index[e] = static_cast<int>(limit.size());
      limit.push_back(p.engines[e].capacity);
    }
  resident_dims = limit.size();
  reserve_index.assign(k, -1);
  reserve_of.assign(resident_dims, -1);
  for (size_t v = 0; v < p.size(); ++v)
    for (const MultiOption& x : p.options[v]) {
      const auto e = static_cast<size_t>(x.engine);
      if (!x.reprogram || reserve_index[e] >= 0) continue;
      reserve_index[e] = static_cast<int>(limit.size());
      reserve_of[static_cast<size_t>(cap_index[e])] = reserve_index[e];
      limit.push_back(p.engines[e].capacity);
    }
}

}  // namespace hetcim::partition
