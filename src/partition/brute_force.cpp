#include "partition/brute_force.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "graph/dag.h"
#include "partition/energy.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

class Enumerator {
 public:
  explicit Enumerator(const Problem& p) : p_(p), reach_(graph::transitive_closure(p.dag)) {
    best_.makespan = std::numeric_limits<double>::infinity();
    best_.objective = std::numeric_limits<double>::infinity();
  }

  BruteForceResult run() {
    a_.mode.assign(p_.size(), kHost);
    assign(0, 0, 0);
    return std::move(best_);
  }

 private:
  void assign(size_t v, int64_t crossbars, int64_t drop) {
    if (v == p_.size()) {
      ++best_.assignments;
      placed_.assign(p_.size(), 0);
      order_.clear();
      host_count_ = 0;
      for (int m : a_.mode) host_count_ += m == kHost ? 1 : 0;
      orders();
      return;
    }
    a_.mode[v] = kHost;
    assign(v + 1, crossbars, drop);
    const int64_t d = drop + p_.drop(static_cast<int>(v), 0);
    for (size_t k = 0; k < p_.acc[v].size(); ++k) {
      const int64_t c = crossbars + p_.acc[v][k].crossbars;
      if (c > p_.crossbar_budget || d > p_.drop_limit()) continue;
      a_.mode[v] = static_cast<int>(k);
      assign(v + 1, c, d);
    }
    a_.mode[v] = kHost;
  }

  // A host operator may come next once every host operator that reaches it is placed.
  bool eligible(size_t v) const {
    if (placed_[v] || a_.mode[v] != kHost) return false;
    for (size_t u = 0; u < p_.size(); ++u)
      if (a_.mode[u] == kHost && !placed_[u] && reach_[u].test(v)) return false;
    return true;
  }

  void orders() {
    if (order_.size() == host_count_) {
      std::vector<int> bus;  // serial bus: every permutation of the transfers
      if (p_.bus_model == BusModel::Serial)
        for (const Transfer& t : implied_transfers(p_, a_)) bus.push_back(t.key);
      do {
        std::optional<Schedule> s = try_simulate(p_, a_, order_, bus);
        if (!s) continue;  // the two orders deadlock
        ++best_.schedules;
        const double objective = objective_value(p_, *s);
        if (objective < best_.objective) {
          best_.objective = objective;
          best_.makespan = s->makespan;
          best_.schedule = std::move(*s);
        }
      } while (std::next_permutation(bus.begin(), bus.end()));
      return;
    }
    for (size_t v = 0; v < p_.size(); ++v) {
      if (!eligible(v)) continue;
      placed_[v] = 1;
      order_.push_back(static_cast<int>(v));
      orders();
      order_.pop_back();
      placed_[v] = 0;
    }
  }

  const Problem& p_;
  std::vector<DynBitset> reach_;
  Assignment a_;
  std::vector<char> placed_;
  std::vector<int> order_;
  size_t host_count_ = 0;
  BruteForceResult best_;
};

}  // namespace

BruteForceResult solve_brute_force(const Problem& p, const BruteForceOptions& opt) {
  p.validate();
  if (p.size() > opt.max_operators)
    throw user_error("brute force: ", p.size(), " operators, more than the limit of ",
                     opt.max_operators);
  return Enumerator(p).run();
}

}  // namespace hetcim::partition
