#include "partition/sequencing.h"

#include <algorithm>

#include "partition/jackson.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Arc {
  int to;
  double delay;
};

struct State {
  std::vector<double> ready;   // latest arrival from determined predecessors
  std::vector<double> finish;  // valid where done
  std::vector<int> left;       // undetermined predecessors
  std::vector<char> done;
  std::vector<int> order;      // host jobs scheduled so far
  double host_free = 0.0;
  double det_bound = 0.0;      // max over determined jobs of finish + tail
};

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
    for (char h : in.on_host) n_host_ += h ? 1 : 0;
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
      if (root.left[v] == 0 && !in_.on_host[v] && !root.done[v]) determine(root, v, 0.0);
    dfs(root);
    out_.proven = !stopped_;
    return std::move(out_);
  }

 private:
  void determine(State& s, size_t v, double start) {
    s.done[v] = 1;
    s.finish[v] = start + in_.duration[v];
    s.det_bound = std::max(s.det_bound, s.finish[v] + tail_[v]);
    for (const Arc& a : succ_[v]) {
      const auto w = static_cast<size_t>(a.to);
      s.ready[w] = std::max(s.ready[w], s.finish[v] + a.delay);
      if (--s.left[w] == 0 && !in_.on_host[w]) determine(s, w, s.ready[w]);
    }
  }

  double lower_bound(const State& s) {
    double lb = s.det_bound;
    head_.assign(n_, 0.0);
    jobs_.clear();
    for (size_t v = 0; v < n_; ++v) {
      if (s.done[v]) continue;
      double h = s.ready[v];
      for (const Arc& a : pred_[v]) {
        const auto u = static_cast<size_t>(a.to);
        if (!s.done[u]) h = std::max(h, head_[u] + in_.duration[u] + a.delay);
      }
      if (in_.on_host[v]) {
        h = std::max(h, s.host_free);
        jobs_.push_back({h, in_.duration[v], tail_[v]});
      }
      head_[v] = h;
      lb = std::max(lb, h + in_.duration[v] + tail_[v]);
    }
    return std::max(lb, jackson_preemptive_bound(jobs_));
  }

  void dfs(State& s) {
    if (stopped_) return;
    ++out_.nodes;
    if (opt_.max_nodes >= 0 && out_.nodes > opt_.max_nodes) {
      stopped_ = true;
      return;
    }
    if (s.order.size() == n_host_) {
      double makespan = 0.0;
      for (size_t v = 0; v < n_; ++v) {
        HETCIM_ASSERT(s.done[v], "sequencing leaf with an undetermined job");
        makespan = std::max(makespan, s.finish[v]);
      }
      if (makespan < best_) {
        best_ = makespan;
        out_.found = true;
        out_.makespan = makespan;
        out_.host_order = s.order;
        out_.start.resize(n_);
        for (size_t v = 0; v < n_; ++v) out_.start[v] = s.finish[v] - in_.duration[v];
      }
      return;
    }
    if (lower_bound(s) >= best_) return;
    // Eligible host jobs, and the earliest completion among them.
    std::vector<int> eligible;
    double ect = kInf;
    int ect_job = -1;
    for (size_t v = 0; v < n_; ++v) {
      if (s.done[v] || !in_.on_host[v] || s.left[v] != 0) continue;
      eligible.push_back(static_cast<int>(v));
      const double c = std::max(s.ready[v], s.host_free) + in_.duration[v];
      if (c < ect) {
        ect = c;
        ect_job = static_cast<int>(v);
      }
    }
    HETCIM_ASSERT(!eligible.empty(), "sequencing: no eligible host job");
    std::vector<int> cand;
    for (int v : eligible)
      if (v == ect_job || std::max(s.ready[static_cast<size_t>(v)], s.host_free) < ect)
        cand.push_back(v);
    std::sort(cand.begin(), cand.end(), [&](int a, int b) {
      const auto ai = static_cast<size_t>(a), bi = static_cast<size_t>(b);
      if (tail_[ai] + in_.duration[ai] != tail_[bi] + in_.duration[bi])
        return tail_[ai] + in_.duration[ai] > tail_[bi] + in_.duration[bi];
      return a < b;
    });
    for (size_t i = 0; i < cand.size(); ++i) {
      const auto v = static_cast<size_t>(cand[i]);
      State child;
      if (i + 1 < cand.size()) child = s;
      else child = std::move(s);
      const double start = std::max(child.ready[v], child.host_free);
      child.order.push_back(cand[i]);
      determine(child, v, start);
      child.host_free = child.finish[v];
      dfs(child);
      if (stopped_) return;
    }
  }

  const SeqInput& in_;
  const SeqOptions& opt_;
  size_t n_;
  size_t n_host_ = 0;
  std::vector<std::vector<Arc>> succ_, pred_;  // pred_ arcs store the predecessor in `to`
  std::vector<double> tail_;
  std::vector<double> head_;
  std::vector<JacksonJob> jobs_;
  double best_;
  bool stopped_ = false;
  SeqOutput out_;
};

}  // namespace

SeqOutput sequence_host(const SeqInput& in, const SeqOptions& opt) {
  HETCIM_ASSERT(in.on_host.size() == in.duration.size(), "sequencing input sizes differ");
  return Search(in, opt).run();
}

}  // namespace hetcim::partition
