#include "partition/sequencing.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <unordered_map>

#include "util/error.h"

namespace hetcim::partition {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Arc {
  int to;
  double delay;
};

// Arcs grouped by job in compressed rows (one allocation, not one per job: a search is built
// for every leaf of the exact solver, most of them settled in a few nodes): job v's arcs are
// arcs[first[v] .. first[v + 1]), in the order they were added.
struct Adjacency {
  std::vector<int> first;
  std::vector<Arc> arcs;

  // (job, arc) pairs, grouped by job stably.
  Adjacency(size_t jobs, const std::vector<std::pair<int, Arc>>& list) : first(jobs + 1, 0) {
    for (const auto& [v, a] : list) ++first[static_cast<size_t>(v) + 1];
    for (size_t v = 0; v < jobs; ++v) first[v + 1] += first[v];
    arcs.resize(list.size());
    std::vector<int> next(first.begin(), first.end() - 1);
    for (const auto& [v, a] : list) arcs[static_cast<size_t>(next[static_cast<size_t>(v)]++)] = a;
  }
  [[nodiscard]] std::span<const Arc> operator[](size_t v) const {
    return {arcs.data() + first[v], arcs.data() + first[v + 1]};
  }
  [[nodiscard]] size_t degree(size_t v) const {
    return static_cast<size_t>(first[v + 1] - first[v]);
  }
};

Adjacency successors(const SeqInput& in) {
  std::vector<std::pair<int, Arc>> list;
  list.reserve(in.edges.size());
  for (const SeqEdge& e : in.edges) {
    HETCIM_ASSERT(e.from >= 0 && e.from < e.to && static_cast<size_t>(e.to) < in.duration.size(),
                  "sequencing edges must go forward");
    list.push_back({e.from, Arc{e.to, e.delay}});
  }
  return Adjacency(in.duration.size(), list);
}

// Arcs to each job's predecessors (Arc::to is the predecessor).
Adjacency predecessors(const SeqInput& in) {
  std::vector<std::pair<int, Arc>> list;
  list.reserve(in.edges.size());
  for (const SeqEdge& e : in.edges) list.push_back({e.to, Arc{e.from, e.delay}});
  return Adjacency(in.duration.size(), list);
}

// What the rest of a schedule depends on, for one set of scheduled machine jobs: when each
// machine frees up, the latest finish so far, and for every undetermined job with a determined
// predecessor the earliest it may start as far as those predecessors go (for a machine job, no
// earlier than its machine frees up), in this order in one vector. A profile no later anywhere
// dominates: replaying the same continuation, every start stays no later (makespans are
// monotone).
using Profile = std::vector<double>;

// The profiles seen for one set of determined jobs (the set itself: `bits`).
struct SetEntry {
  std::vector<uint64_t> bits;
  std::vector<Profile> profiles;
};

constexpr size_t kProfilesPerSet = 16;
constexpr size_t kMaxMemo = 1 << 20;

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Search {
 public:
  Search(const SeqInput& in, const SeqOptions& opt)
      : in_(in), opt_(opt), n_(in.duration.size()), succ_(successors(in)), pred_(predecessors(in)) {
    tail_.assign(n_, 0.0);
    for (size_t v = n_; v-- > 0;)
      for (const Arc& a : succ_[v])
        tail_[v] = std::max(tail_[v], a.delay + in.duration[static_cast<size_t>(a.to)] +
                                          tail_[static_cast<size_t>(a.to)]);
    for (int8_t m : in.machine) n_machine_jobs_ += m != kNoMachine ? 1 : 0;
    // Jobs ranked by tail, largest first: Jackson's rule picks the lowest rank available.
    std::vector<int> by_tail(n_);
    for (size_t v = 0; v < n_; ++v) by_tail[v] = static_cast<int>(v);
    std::stable_sort(by_tail.begin(), by_tail.end(), [&](int a, int b) {
      return tail_[static_cast<size_t>(a)] > tail_[static_cast<size_t>(b)];
    });
    rank_.resize(n_);
    job_of_rank_.resize(n_);
    for (size_t r = 0; r < n_; ++r) {
      rank_[static_cast<size_t>(by_tail[r])] = static_cast<int>(r);
      job_of_rank_[r] = by_tail[r];
    }
    running_.assign((n_ + 63) / 64, 0);
    remaining_.assign(n_, 0.0);
    zobrist_.resize(n_);
    for (size_t v = 0; v < n_; ++v) zobrist_[v] = splitmix(v);
    machines_ = static_cast<size_t>(in.machines);
    free_.assign(machines_, 0.0);
    order_.resize(machines_);
    releases_.resize(machines_);
    best_ = opt.cutoff;
  }

  SeqOutput run() {
    ready_.assign(n_, 0.0);
    finish_.assign(n_, 0.0);
    head_.assign(n_, 0.0);
    left_.assign(n_, 0);
    done_.assign(n_, 0);
    bits_.assign((n_ + 63) / 64, 0);
    children_.resize(n_machine_jobs_ + 1);
    for (size_t v = 0; v < n_; ++v) left_[v] = static_cast<int>(pred_.degree(v));
    for (size_t v = 0; v < n_; ++v)
      if (left_[v] == 0 && !on_machine(v) && !done_[v]) determine(v, 0.0);
    out_.root_bound = lower_bound(best_);
    dfs(out_.root_bound);
    out_.proven = !stopped_;
    return std::move(out_);
  }

 private:
  bool on_machine(size_t v) const { return in_.machine[v] != kNoMachine; }

  struct Release {
    double head;
    int rank;
  };

  // Everything apply() changes besides the trails, to restore on undo.
  struct Mark {
    size_t determined, readied;
    double free;  // of the job's machine
    double det_bound, max_finish;
  };

  void determine(size_t v, double start) {
    done_[v] = 1;
    bits_[v >> 6] |= uint64_t{1} << (v & 63);
    hash_ ^= zobrist_[v];
    determined_.push_back(static_cast<int>(v));
    finish_[v] = start + in_.duration[v];
    det_bound_ = std::max(det_bound_, finish_[v] + tail_[v]);
    max_finish_ = std::max(max_finish_, finish_[v]);
    for (const Arc& a : succ_[v]) {
      const auto w = static_cast<size_t>(a.to);
      readied_.push_back({a.to, ready_[w]});
      ready_[w] = std::max(ready_[w], finish_[v] + a.delay);
      if (--left_[w] == 0 && !on_machine(w)) determine(w, ready_[w]);
    }
  }

  // Schedules machine job v next on its machine (and every free job that becomes determined).
  Mark apply(size_t v) {
    const auto m = static_cast<size_t>(in_.machine[v]);
    const Mark mark{determined_.size(), readied_.size(), free_[m], det_bound_, max_finish_};
    order_[m].push_back(static_cast<int>(v));
    ++scheduled_;
    determine(v, std::max(ready_[v], free_[m]));
    free_[m] = finish_[v];
    return mark;
  }

  void undo(size_t v, const Mark& mark) {
    while (determined_.size() > mark.determined) {
      const auto u = static_cast<size_t>(determined_.back());
      determined_.pop_back();
      done_[u] = 0;
      bits_[u >> 6] &= ~(uint64_t{1} << (u & 63));
      hash_ ^= zobrist_[u];
      for (const Arc& a : succ_[u]) ++left_[static_cast<size_t>(a.to)];
    }
    while (readied_.size() > mark.readied) {
      ready_[static_cast<size_t>(readied_.back().job)] = readied_.back().old;
      readied_.pop_back();
    }
    const auto m = static_cast<size_t>(in_.machine[v]);
    free_[m] = mark.free;
    det_bound_ = mark.det_bound;
    max_finish_ = mark.max_finish;
    order_[m].pop_back();
    --scheduled_;
  }

  // Lower bound on the makespan of every completion of the current state; returns early once it
  // reaches `cutoff` (the cheap parts first, Jackson's bounds last).
  double lower_bound(double cutoff) {
    double lb = det_bound_;
    for (auto& j : releases_) j.clear();
    for (size_t v = 0; v < n_; ++v) {
      if (done_[v]) continue;
      double h = ready_[v];
      for (const Arc& a : pred_[v]) {
        const auto u = static_cast<size_t>(a.to);
        if (!done_[u]) h = std::max(h, head_[u] + in_.duration[u] + a.delay);
      }
      if (const int8_t m = in_.machine[v]; m != kNoMachine) {
        h = std::max(h, free_[static_cast<size_t>(m)]);
        releases_[static_cast<size_t>(m)].push_back({h, rank_[v]});
      }
      head_[v] = h;
      lb = std::max(lb, h + in_.duration[v] + tail_[v]);
    }
    for (std::vector<Release>& r : releases_) {
      if (lb >= cutoff) return lb;
      lb = std::max(lb, jackson(r, cutoff));
    }
    return lb;
  }

  // Jackson's preemptive bound (jackson.h) over the jobs released at `jobs`: the available job
  // with the largest tail runs until it completes or the next release. The tails are fixed per
  // job, so the available jobs are a bit set over their ranks (the lowest set bit is the largest
  // tail) instead of a heap. Stops once the bound reaches `cutoff` (what it has then is still a
  // lower bound, and enough to prune).
  double jackson(std::vector<Release>& jobs, double cutoff) {
    std::sort(jobs.begin(), jobs.end(), [](const Release& a, const Release& b) {
      return a.head < b.head || (a.head == b.head && a.rank < b.rank);
    });
    const size_t words = running_.size();
    size_t low = words;  // no set bit in running_ below word `low`
    double bound = 0.0;
    double now = jobs.empty() ? 0.0 : jobs.front().head;
    size_t next = 0, available = 0;
    while (next < jobs.size() || available > 0) {
      if (available == 0) now = std::max(now, jobs[next].head);
      for (; next < jobs.size() && jobs[next].head <= now; ++next) {
        const auto r = static_cast<size_t>(jobs[next].rank);
        running_[r >> 6] |= uint64_t{1} << (r & 63);
        remaining_[r] = in_.duration[static_cast<size_t>(job_of_rank_[r])];
        low = std::min(low, r >> 6);
        ++available;
      }
      while (running_[low] == 0) ++low;
      const size_t r = (low << 6) + static_cast<size_t>(std::countr_zero(running_[low]));
      const double release = next < jobs.size() ? jobs[next].head : kInf;
      if (now + remaining_[r] <= release) {
        now += remaining_[r];
        bound = std::max(bound, now + tail_[static_cast<size_t>(job_of_rank_[r])]);
        running_[r >> 6] &= ~(uint64_t{1} << (r & 63));
        if (bound >= cutoff) {
          std::fill(running_.begin(), running_.end(), 0);
          return bound;
        }
        --available;
        if (available == 0) low = words;
      } else {
        remaining_[r] -= release - now;
        now = release;
      }
    }
    return bound;
  }

  // `lb` is the lower bound of the current state, computed by the parent when it ranked its
  // children.
  void dfs(double lb) {
    if (stopped_) return;
    ++out_.nodes;
    if ((opt_.max_nodes >= 0 && out_.nodes > opt_.max_nodes) ||
        (opt_.deadline && opt_.deadline->charge())) {
      stopped_ = true;
      return;
    }
    if (scheduled_ == n_machine_jobs_) {
      double makespan = 0.0;
      for (size_t v = 0; v < n_; ++v) {
        HETCIM_ASSERT(done_[v], "sequencing leaf with an undetermined job");
        makespan = std::max(makespan, finish_[v]);
      }
      if (makespan < best_) {
        best_ = makespan;
        out_.found = true;
        out_.makespan = makespan;
        out_.orders = order_;
        out_.start.resize(n_);
        for (size_t v = 0; v < n_; ++v) out_.start[v] = finish_[v] - in_.duration[v];
      }
      return;
    }
    if (lb >= best_ || dominated()) return;
    // The earliest completion among the eligible machine jobs; its machine is the one to branch
    // on.
    double ect = kInf;
    int ect_job = -1;
    for (size_t v = 0; v < n_; ++v) {
      if (done_[v] || !on_machine(v) || left_[v] != 0) continue;
      const double c =
          std::max(ready_[v], free_[static_cast<size_t>(in_.machine[v])]) + in_.duration[v];
      if (c < ect) {
        ect = c;
        ect_job = static_cast<int>(v);
      }
    }
    HETCIM_ASSERT(ect_job >= 0, "sequencing: no eligible machine job");
    const int8_t m = in_.machine[static_cast<size_t>(ect_job)];
    const double free_m = free_[static_cast<size_t>(m)];
    // Active schedules only: on machine m, the next job starts before the earliest completion.
    // Children are ranked by their lower bound (best first), ties by the longer tail. A child's
    // bound is max(this node's bound, its own): both hold for its completions. So a child whose
    // own bound does not exceed this node's is ranked first among those not yet bounded once the
    // earlier ones are (ranked by tail alone they come first): the children are bounded in tail
    // order and such a child is searched at once, before the later ones are bounded. When that
    // search brings the incumbent down to this node's bound, every other child is pruned
    // unbounded (a greedy dive that meets the root bound costs one bound per level, not one per
    // candidate).
    std::vector<Child>& children = children_[scheduled_];
    children.clear();
    for (size_t v = 0; v < n_; ++v) {
      if (done_[v] || in_.machine[v] != m || left_[v] != 0) continue;
      if (static_cast<int>(v) != ect_job && std::max(ready_[v], free_m) >= ect) continue;
      children.push_back({static_cast<int>(v), kInf, tail_[v] + in_.duration[v], false});
    }
    std::stable_sort(children.begin(), children.end(),
                     [](const Child& a, const Child& b) { return a.priority > b.priority; });
    // children_[scheduled_] is reused by the deeper levels only at larger indices.
    const auto search = [&](Child& c) {
      c.searched = true;
      const auto v = static_cast<size_t>(c.job);
      const Mark mark = apply(v);
      dfs(c.lb);
      undo(v, mark);
    };
    for (Child& c : children) {
      if (lb >= best_) return;  // every child's bound is at least lb
      const auto v = static_cast<size_t>(c.job);
      const Mark mark = apply(v);
      c.lb = std::max(lb, scheduled_ == n_machine_jobs_ ? 0.0 : lower_bound(best_));
      undo(v, mark);
      if (c.lb <= lb) search(c);
      if (stopped_) return;
    }
    std::stable_sort(children.begin(), children.end(),
                     [](const Child& a, const Child& b) { return a.lb < b.lb; });
    for (Child& c : children) {
      if (c.lb >= best_) break;
      if (c.searched) continue;
      search(c);
      if (stopped_) return;
    }
  }

  // True if a state with the same scheduled jobs and a profile no later was seen before
  // (its subtree, explored or pruned, covers this one); otherwise remembers this state.
  bool dominated() {
    prof_.assign(free_.begin(), free_.end());
    prof_.push_back(max_finish_);
    for (size_t v = 0; v < n_; ++v) {
      if (done_[v] || left_[v] == static_cast<int>(pred_.degree(v))) continue;
      const int8_t m = in_.machine[v];
      prof_.push_back(m != kNoMachine ? std::max(ready_[v], free_[static_cast<size_t>(m)])
                                      : ready_[v]);
    }
    const auto no_later = [](const Profile& a, const Profile& b) {
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i] > b[i]) return false;
      return true;
    };
    std::vector<SetEntry>& bucket = memo_[hash_];
    SetEntry* entry = nullptr;
    for (SetEntry& e : bucket)
      if (e.bits == bits_) entry = &e;
    if (entry) {
      for (const Profile& q : entry->profiles)
        if (no_later(q, prof_)) return true;
      auto& list = entry->profiles;
      std::erase_if(list, [&](const Profile& q) { return no_later(prof_, q); });
      if (list.size() < kProfilesPerSet) list.push_back(prof_);
    } else if (memo_size_ < kMaxMemo) {
      ++memo_size_;
      bucket.push_back(SetEntry{bits_, {prof_}});
    }
    return false;
  }

  struct Child {
    int job;
    double lb;
    double priority;
    bool searched;
  };
  struct Readied {
    int job;
    double old;
  };

  const SeqInput& in_;
  const SeqOptions& opt_;
  size_t n_;
  size_t n_machine_jobs_ = 0;
  Adjacency succ_, pred_;  // pred_ arcs store the predecessor in `to`
  std::vector<double> tail_;
  std::vector<uint64_t> zobrist_;
  // The one search state: valid where done_ (finish_), or for undetermined jobs (ready_ = latest
  // arrival from determined predecessors, left_ = undetermined predecessors).
  std::vector<double> ready_, finish_;
  std::vector<int> left_;
  std::vector<char> done_;
  std::vector<uint64_t> bits_;  // done_ as a bit set
  uint64_t hash_ = 0;           // Zobrist hash of bits_
  size_t machines_ = 0;
  std::vector<std::vector<int>> order_;       // per machine
  size_t scheduled_ = 0;                      // machine jobs scheduled so far
  std::vector<double> free_;                  // per machine: when it frees up
  double det_bound_ = 0.0;                    // max over determined jobs of finish + tail
  double max_finish_ = 0.0;                   // max over determined jobs of finish
  std::vector<int> determined_;               // trail: jobs in the order they were determined
  std::vector<Readied> readied_;              // trail: ready_ values before each change
  std::vector<std::vector<Child>> children_;  // per depth (machine jobs scheduled)
  std::vector<double> head_;
  Profile prof_;
  std::vector<int> rank_, job_of_rank_;         // jobs by tail, largest first
  std::vector<std::vector<Release>> releases_;  // per machine
  std::vector<uint64_t> running_;               // Jackson: available jobs, by rank
  std::vector<double> remaining_;               // Jackson: by rank
  std::unordered_map<uint64_t, std::vector<SetEntry>> memo_;
  size_t memo_size_ = 0;
  double best_;
  bool stopped_ = false;
  SeqOutput out_;
};

}  // namespace

uint64_t SeqCache::hash(const SeqInput& in) {
  uint64_t h = splitmix(in.duration.size() ^ (static_cast<uint64_t>(in.machines) << 48));
  const auto mix = [&h](uint64_t x) { h = splitmix(h ^ x); };
  const auto bits = [](double d) {
    uint64_t b = 0;
    std::memcpy(&b, &d, sizeof b);
    return b;
  };
  for (size_t v = 0; v < in.duration.size(); ++v) {
    if (in.machine[v] != kNoMachine) mix(bits(in.duration[v]));
    mix(static_cast<uint64_t>(in.machine[v] + 2));
  }
  for (const SeqEdge& e : in.edges) {
    mix((static_cast<uint64_t>(static_cast<uint32_t>(e.from)) << 32) ^ static_cast<uint32_t>(e.to));
    mix(bits(e.delay));
  }
  return h;
}

namespace {

// Equal but perhaps for the free jobs' durations.
bool same_family(const SeqInput& a, const SeqInput& b) {
  if (a.machines != b.machines || a.machine != b.machine || a.edges.size() != b.edges.size() ||
      a.duration.size() != b.duration.size())
    return false;
  for (size_t v = 0; v < a.duration.size(); ++v)
    if (a.machine[v] != kNoMachine && a.duration[v] != b.duration[v]) return false;
  for (size_t i = 0; i < a.edges.size(); ++i)
    if (a.edges[i].from != b.edges[i].from || a.edges[i].to != b.edges[i].to ||
        a.edges[i].delay != b.edges[i].delay)
      return false;
  return true;
}

void free_durations(const SeqInput& in, std::vector<double>& d) {
  d.clear();
  for (size_t v = 0; v < in.duration.size(); ++v)
    if (in.machine[v] == kNoMachine) d.push_back(in.duration[v]);
}

// Each of a[0 .. b.size()) no longer than b's.
bool no_longer(const double* a, const std::vector<double>& b) {
  for (size_t i = 0; i < b.size(); ++i)
    if (a[i] > b[i]) return false;
  return true;
}

}  // namespace

double replay_orders(const SeqInput& in, const std::vector<std::vector<int>>& orders,
                     std::vector<double>& start) {
  const size_t n = in.duration.size();
  // Kahn's algorithm over the precedence edges and each machine's order.
  std::vector<std::vector<std::pair<int, double>>> succ(n);
  std::vector<int> indegree(n, 0);
  for (const SeqEdge& e : in.edges) {
    succ[static_cast<size_t>(e.from)].push_back({e.to, e.delay});
    ++indegree[static_cast<size_t>(e.to)];
  }
  for (const std::vector<int>& order : orders)
    for (size_t i = 1; i < order.size(); ++i) {
      succ[static_cast<size_t>(order[i - 1])].push_back({order[i], 0.0});
      ++indegree[static_cast<size_t>(order[i])];
    }
  start.assign(n, 0.0);
  std::vector<int> ready;
  for (size_t v = 0; v < n; ++v)
    if (indegree[v] == 0) ready.push_back(static_cast<int>(v));
  double makespan = 0.0;
  size_t done = 0;
  while (!ready.empty()) {
    const auto v = static_cast<size_t>(ready.back());
    ready.pop_back();
    ++done;
    const double finish = start[v] + in.duration[v];
    makespan = std::max(makespan, finish);
    for (const auto& [w, delay] : succ[v]) {
      const auto u = static_cast<size_t>(w);
      start[u] = std::max(start[u], finish + delay);
      if (--indegree[u] == 0) ready.push_back(w);
    }
  }
  return done == n ? makespan : kInf;
}

SeqCache::Family* SeqCache::find(const SeqInput& in, uint64_t hash) {
  const auto it = map_.find(hash);
  if (it == map_.end()) return nullptr;
  for (Family& f : it->second)
    if (same_family(f.input, in)) return &f;
  return nullptr;
}

bool SeqCache::answer(const SeqInput& in, uint64_t hash, double cutoff, SeqOutput& out) {
  const Family* f = find(in, hash);
  if (!f) return false;
  free_durations(in, mine_);
  for (size_t i = 0; i < f->entries.size(); ++i) {
    const Entry& e = f->entries[i];
    // An entry answers only if it is no longer; test that last, it is the dear part.
    const bool by_bound = cutoff <= e.bound();
    if (!by_bound && !e.optimal) continue;
    const double* theirs = f->free.data() + i * f->jobs;
    if (!no_longer(theirs, mine_)) continue;
    // Nothing of `in` is below what nothing of e's input is below.
    if (by_bound) {
      ++hits_;
      out = SeqOutput{};
      return true;
    }
    if (std::equal(mine_.begin(), mine_.end(), theirs)) {  // the same input: its optimum as found
      ++hits_;
      out = e.best;
      out.nodes = 0;
      return true;
    }
    // e's optimal orders with in's durations: optimal for in when no longer than e's optimum.
    std::vector<double> start;
    const double makespan = replay_orders(in, e.best.orders, start);
    if (makespan > e.best.makespan) continue;
    ++hits_;
    out = SeqOutput{};
    out.found = true;  // makespan = e's optimum < cutoff (tested above)
    out.makespan = makespan;
    out.orders = e.best.orders;
    out.start = std::move(start);
    return true;
  }
  return false;
}

void SeqCache::record(const SeqInput& in, uint64_t hash, double cutoff, const SeqOutput& out) {
  if (!out.proven) return;
  Family* f = find(in, hash);
  free_durations(in, mine_);
  uint64_t mine_hash = splitmix(mine_.size());
  for (double d : mine_) mine_hash = splitmix(mine_hash ^ std::bit_cast<uint64_t>(d));
  Entry* e = nullptr;
  if (f)
    for (size_t i = 0; i < f->entries.size() && !e; ++i)
      if (f->free_hash[i] == mine_hash &&
          std::equal(mine_.begin(), mine_.end(), f->free.data() + i * f->jobs))
        e = &f->entries[i];
  if (!e) {
    if (out.nodes < kMinNodes) return;
    size_t bytes = mine_.size() * sizeof(double) + sizeof(uint64_t) +
                   in.duration.size() * (sizeof(double) + 2 * sizeof(int)) + 128;
    if (!f)
      bytes += in.duration.size() * (sizeof(double) + 1) + in.edges.size() * sizeof(SeqEdge) + 128;
    if (bytes_ + bytes > kMaxBytes) return;
    bytes_ += bytes;
    if (!f) {
      map_[hash].push_back(Family{in, mine_.size(), {}, {}, {}});
      f = &map_[hash].back();
    }
    f->free.insert(f->free.end(), mine_.begin(), mine_.end());
    f->free_hash.push_back(mine_hash);
    f->entries.push_back(Entry{});
    e = &f->entries.back();
  }
  if (out.found) {
    e->optimal = true;
    e->best = out;
  } else if (!e->optimal) {
    e->none_below = std::max(e->none_below, cutoff);
  }
}

SeqOutput sequence(const SeqInput& in, const SeqOptions& opt) {
  HETCIM_ASSERT(in.machine.size() == in.duration.size(), "sequencing input sizes differ");
  HETCIM_ASSERT(in.machines >= 1 && in.machines <= kMaxSeqMachines,
                "sequencing: bad machine count");
  for (int8_t m : in.machine)
    HETCIM_ASSERT(m == kNoMachine || (m >= 0 && m < in.machines), "sequencing: bad machine");
  uint64_t hash = 0;
  if (opt.cache) {
    hash = SeqCache::hash(in);
    SeqOutput r;
    if (opt.cache->answer(in, hash, opt.cutoff, r)) return r;
  }
  SeqOutput r = Search(in, opt).run();
  if (opt.cache) opt.cache->record(in, hash, opt.cutoff, r);
  return r;
}

}  // namespace hetcim::partition
