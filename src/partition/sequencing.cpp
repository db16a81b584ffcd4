#include "partition/sequencing.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "partition/jackson.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Arc {
  int to;
  double delay;
};

constexpr int kMachines = 2;

struct State {
  std::vector<double> ready;   // latest arrival from determined predecessors
  std::vector<double> finish;  // valid where done
  std::vector<int> left;       // undetermined predecessors
  std::vector<char> done;
  std::vector<int> order[kMachines];  // machine jobs scheduled so far, per machine
  size_t scheduled = 0;               // machine jobs scheduled so far
  double free[kMachines] = {0.0, 0.0};
  double det_bound = 0.0;  // max over determined jobs of finish + tail
};

// What the rest of a schedule depends on, for one set of scheduled machine jobs: when each
// machine frees up, the latest finish so far, and for every undetermined job with a determined
// predecessor the earliest it may start as far as those predecessors go (for a machine job, no
// earlier than its machine frees up). A profile no later anywhere dominates: replaying the same
// continuation, every start stays no later (makespans are monotone).
struct Profile {
  double free[kMachines];
  double max_finish;
  std::vector<double> ready;

  [[nodiscard]] bool no_later_than(const Profile& o) const {
    if (free[0] > o.free[0] || free[1] > o.free[1] || max_finish > o.max_finish) return false;
    for (size_t i = 0; i < ready.size(); ++i)
      if (ready[i] > o.ready[i]) return false;
    return true;
  }
};

struct KeyHash {
  size_t operator()(const std::vector<uint64_t>& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (uint64_t w : k) h = (h ^ w) * 0xff51afd7ed558ccdULL;
    return static_cast<size_t>(h ^ (h >> 33));
  }
};

constexpr size_t kProfilesPerSet = 16;
constexpr size_t kMaxMemo = 1 << 20;

class Search {
 public:
  Search(const SeqInput& in, const SeqOptions& opt) : in_(in), opt_(opt), n_(in.duration.size()) {
    succ_.resize(n_);
    pred_.resize(n_);
    for (const SeqEdge& e : in.edges) {
      HETCIM_ASSERT(e.from >= 0 && e.from < e.to && static_cast<size_t>(e.to) < n_,
                    "sequencing edges must go forward");
      succ_[static_cast<size_t>(e.from)].push_back({e.to, e.delay});
      pred_[static_cast<size_t>(e.to)].push_back({e.from, e.delay});
    }
    tail_.assign(n_, 0.0);
    for (size_t v = n_; v-- > 0;)
      for (const Arc& a : succ_[v])
        tail_[v] = std::max(tail_[v], a.delay + in.duration[static_cast<size_t>(a.to)] +
                                          tail_[static_cast<size_t>(a.to)]);
    for (int8_t m : in.machine) n_machine_jobs_ += m != kNoMachine ? 1 : 0;
    best_ = opt.cutoff;
  }

  SeqOutput run() {
    State root;
    root.ready.assign(n_, 0.0);
    root.finish.assign(n_, 0.0);
    root.left.assign(n_, 0);
    root.done.assign(n_, 0);
    for (size_t v = 0; v < n_; ++v) root.left[v] = static_cast<int>(pred_[v].size());
    for (size_t v = 0; v < n_; ++v)
      if (root.left[v] == 0 && !on_machine(v) && !root.done[v]) determine(root, v, 0.0);
    dfs(root, lower_bound(root, best_));
    out_.proven = !stopped_;
    return std::move(out_);
  }

 private:
  bool on_machine(size_t v) const { return in_.machine[v] != kNoMachine; }

  void determine(State& s, size_t v, double start) {
    s.done[v] = 1;
    s.finish[v] = start + in_.duration[v];
    s.det_bound = std::max(s.det_bound, s.finish[v] + tail_[v]);
    for (const Arc& a : succ_[v]) {
      const auto w = static_cast<size_t>(a.to);
      s.ready[w] = std::max(s.ready[w], s.finish[v] + a.delay);
      if (--s.left[w] == 0 && !on_machine(w)) determine(s, w, s.ready[w]);
    }
  }

  // Lower bound on the makespan of every completion of `s`; returns early once it reaches
  // `cutoff` (the cheap parts first, Jackson's bounds last).
  double lower_bound(const State& s, double cutoff) {
    double lb = s.det_bound;
    head_.assign(n_, 0.0);
    for (JacksonBound& j : jackson_) j.clear();
    for (size_t v = 0; v < n_; ++v) {
      if (s.done[v]) continue;
      double h = s.ready[v];
      for (const Arc& a : pred_[v]) {
        const auto u = static_cast<size_t>(a.to);
        if (!s.done[u]) h = std::max(h, head_[u] + in_.duration[u] + a.delay);
      }
      if (const int8_t m = in_.machine[v]; m != kNoMachine) {
        h = std::max(h, s.free[m]);
        jackson_[m].add(h, in_.duration[v], tail_[v]);
      }
      head_[v] = h;
      lb = std::max(lb, h + in_.duration[v] + tail_[v]);
    }
    for (JacksonBound& j : jackson_) {
      if (lb >= cutoff) return lb;
      lb = std::max(lb, j.value());
    }
    return lb;
  }

  // `lb` is the lower bound of `s`, computed by the parent when it ranked its children.
  void dfs(State& s, double lb) {
    if (stopped_) return;
    ++out_.nodes;
    if ((opt_.max_nodes >= 0 && out_.nodes > opt_.max_nodes) ||
        (opt_.deadline && opt_.deadline->charge())) {
      stopped_ = true;
      return;
    }
    if (s.scheduled == n_machine_jobs_) {
      double makespan = 0.0;
      for (size_t v = 0; v < n_; ++v) {
        HETCIM_ASSERT(s.done[v], "sequencing leaf with an undetermined job");
        makespan = std::max(makespan, s.finish[v]);
      }
      if (makespan < best_) {
        best_ = makespan;
        out_.found = true;
        out_.makespan = makespan;
        out_.host_order = s.order[kHostMachine];
        out_.bus_order = s.order[kBusMachine];
        out_.start.resize(n_);
        for (size_t v = 0; v < n_; ++v) out_.start[v] = s.finish[v] - in_.duration[v];
      }
      return;
    }
    if (lb >= best_ || dominated(s)) return;
    // Eligible machine jobs, and the earliest completion among them; its machine is the one to
    // branch on.
    std::vector<int> eligible;
    double ect = kInf;
    int ect_job = -1;
    for (size_t v = 0; v < n_; ++v) {
      if (s.done[v] || !on_machine(v) || s.left[v] != 0) continue;
      eligible.push_back(static_cast<int>(v));
      const double c = std::max(s.ready[v], s.free[in_.machine[v]]) + in_.duration[v];
      if (c < ect) {
        ect = c;
        ect_job = static_cast<int>(v);
      }
    }
    HETCIM_ASSERT(!eligible.empty(), "sequencing: no eligible machine job");
    const int8_t m = in_.machine[static_cast<size_t>(ect_job)];
    // Active schedules only: on machine m, the next job starts before the earliest completion.
    // Children are ranked by their lower bound (best first), ties by the longer tail.
    struct Child {
      State state;
      double lb;
      double priority;
    };
    std::vector<Child> children;
    for (int v : eligible) {
      const auto vi = static_cast<size_t>(v);
      if (in_.machine[vi] != m) continue;
      if (v != ect_job && std::max(s.ready[vi], s.free[m]) >= ect) continue;
      Child c{s, 0.0, tail_[vi] + in_.duration[vi]};
      c.state.order[m].push_back(v);
      ++c.state.scheduled;
      determine(c.state, vi, std::max(c.state.ready[vi], c.state.free[m]));
      c.state.free[m] = c.state.finish[vi];
      c.lb = c.state.scheduled == n_machine_jobs_ ? 0.0 : lower_bound(c.state, best_);
      if (c.lb < best_) children.push_back(std::move(c));
    }
    std::stable_sort(children.begin(), children.end(), [](const Child& a, const Child& b) {
      return a.lb < b.lb || (a.lb == b.lb && a.priority > b.priority);
    });
    for (Child& c : children) {
      if (c.lb >= best_) break;
      dfs(c.state, c.lb);
      if (stopped_) return;
    }
  }

  // True if a state with the same scheduled jobs and a profile no later was seen before
  // (its subtree, explored or pruned, covers this one); otherwise remembers this state.
  bool dominated(const State& s) {
    std::vector<uint64_t> key((n_ + 63) / 64, 0);
    Profile prof{{s.free[0], s.free[1]}, 0.0, {}};
    for (size_t v = 0; v < n_; ++v) {
      if (s.done[v]) {
        key[v >> 6] |= uint64_t{1} << (v & 63);
        prof.max_finish = std::max(prof.max_finish, s.finish[v]);
      } else if (s.left[v] < static_cast<int>(pred_[v].size())) {
        const int8_t m = in_.machine[v];
        prof.ready.push_back(m != kNoMachine ? std::max(s.ready[v], s.free[m]) : s.ready[v]);
      }
    }
    auto it = memo_.find(key);
    if (it != memo_.end()) {
      for (const Profile& q : it->second)
        if (q.no_later_than(prof)) return true;
      auto& list = it->second;
      std::erase_if(list, [&](const Profile& q) { return prof.no_later_than(q); });
      if (list.size() < kProfilesPerSet) list.push_back(std::move(prof));
    } else if (memo_.size() < kMaxMemo) {
      memo_.emplace(std::move(key), std::vector<Profile>{std::move(prof)});
    }
    return false;
  }

  const SeqInput& in_;
  const SeqOptions& opt_;
  std::unordered_map<std::vector<uint64_t>, std::vector<Profile>, KeyHash> memo_;
  size_t n_;
  size_t n_machine_jobs_ = 0;
  std::vector<std::vector<Arc>> succ_, pred_;  // pred_ arcs store the predecessor in `to`
  std::vector<double> tail_;
  std::vector<double> head_;
  JacksonBound jackson_[kMachines];
  double best_;
  bool stopped_ = false;
  SeqOutput out_;
};

}  // namespace

SeqOutput sequence(const SeqInput& in, const SeqOptions& opt) {
  HETCIM_ASSERT(in.machine.size() == in.duration.size(), "sequencing input sizes differ");
  for (int8_t m : in.machine)
    HETCIM_ASSERT(m == kNoMachine || m == kHostMachine || m == kBusMachine,
                  "sequencing: bad machine");
  return Search(in, opt).run();
}

}  // namespace hetcim::partition
