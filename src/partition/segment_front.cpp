#include "partition/segment_front.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "partition/jackson.h"
#include "partition/schedule.h"
#include "partition/segment_model.h"
#include "partition/sequencing.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

using detail::Choice;
using detail::SegmentModel;
constexpr double kInf = std::numeric_limits<double>::infinity();

class FrontSearch : private SegmentModel {
 public:
  // rest == nullptr: Pareto front; otherwise single objective latency + rest(crossbars).
  FrontSearch(const SegmentFrontInput& in, const RestCost* rest, double incumbent)
      : SegmentModel(in), rest_(rest), incumbent_(incumbent) {
    // Device first only where the budget holds at least 2/3 of the most crossbars the segment's
    // operators can take: on seed 000's YOLOv5n x86 replicas points it cuts 100 crossbars x
    // 1000 ns from 822 k to 560 k nodes and proves 200 x 500 ns in 0.2 s (a 10 s limit before),
    // but at 25-50 crossbars (budget/most 0.23-0.46), where the fastest copies never fit, it took
    // 0.1 -> 6 CPU s (bench/README.md partition "Session 22"). Either way the search is exact.
    device_first_ = 3 * in.budget >= 2 * max_crossbars_after_[0];
  }
  bool device_first_ = false;  // set by the constructor

  SegmentFrontOutput run_front() {
    search();
    return std::move(out_);
  }

  // The single-objective search proves fastest with a cutoff near the optimum: on seed 000's
  // YOLOv5n x86 point with 4 replicas (100 crossbars, 500 ns) the search takes 2.4 s from no
  // incumbent, finding the optimum (17.440 ms) at 91 % of its 418 k nodes, but 0.25 s from a
  // 17.5 ms cutoff and 0.02-0.12 s to prove that nothing lies below 17.0-17.42 ms
  // (bench/README.md partition "Session 17"). So before the search with the incumbent, it runs
  // with cutoffs lb + lb/1024 x 1, 2, 4, ... below that incumbent (lb: the root bound): each
  // search that finds nothing proves that no plan lies below its cutoff, and the first that finds
  // a plan ends with the optimum (a complete search whose incumbent only falls from its cutoff).
  // Exact either way; the cutoffs tried are counted in `probes`. Without an incumbent passed in,
  // the search first dives to its first plan, so that a limit striking during the probes still
  // leaves a plan (the caller's incumbent plays that part otherwise). Where proving is the work
  // a probe can cost more than the whole search (x86, 200 crossbars, 500 ns, 4 replicas: the
  // probe at 16.54 ms ran 3.4 M nodes without an answer while the plain search finds 16.6 ms in
  // 0.4 M), so a probe stops after kProbeWork nodes and the plain search takes over, from the
  // best plan so far.
  static constexpr int64_t kProbeWork = 100000;

  SegmentBestOutput run_best() {
    if (!std::isfinite(incumbent_)) {
      dive_ = true;
      search();
      dive_ = false;
    }
    const double given = incumbent_;
    const double lb = root_bound();
    double best = given;
    bool settled = false;  // a probe found a plan and finished: the optimum
    if (std::isfinite(lb) && lb > 0.0)
      for (double step = lb / 1024.0; lb + step < given && !out_.timed_out; step *= 2.0) {
        incumbent_ = lb + step;
        ++best_.probes;
        work_cap_ = work() + kProbeWork;
        search();
        work_cap_ = std::numeric_limits<int64_t>::max();
        if (incumbent_ < lb + step) best = incumbent_;
        if (capped_) break;
        settled = best < given;
        if (settled) break;
      }
    if (!settled && !out_.timed_out) {
      incumbent_ = best;
      search();
    }
    best_.nodes = out_.nodes;
    best_.leaves = out_.leaves;
    best_.seq_nodes = out_.seq_nodes;
    best_.parent_pruned = out_.parent_pruned;
    best_.deferred = out_.deferred;
    best_.decisions = out_.decisions;
    best_.timed_out = out_.timed_out;
    return std::move(best_);
  }

 private:
  // Whether some completion of the current node, spending c >= `crossbars` in total, could beat
  // threshold(c) at the node's drop (every completion spends at least `drop`; a point of the front
  // or of rest() that needs less is the most a completion can be compared with).
  // threshold(c). threshold() is a step function of c and the bound only falls with c, so the
  // last c of every step is the one to try.
  bool worth_exploring(double lb, double elb, int64_t crossbars, int64_t drop, double res) const {
    const auto try_at = [&](int64_t c, double limit) {
      return c >= crossbars && c <= in_.budget &&
             std::max(lb, load_bound(c - crossbars)) + elb < limit;
    };
    if (!rest_) {
      const auto& pts = out_.front.points();
      for (const auto& pt : pts)
        if (pt.crossbars > crossbars &&
            try_at(pt.crossbars - 1, out_.front.best_within(pt.crossbars - 1, res)))
          return true;
      return try_at(crossbars, out_.front.best_within(crossbars, res)) ||
             try_at(in_.budget, out_.front.best_within(in_.budget, res));
    }
    for (size_t i = 0; i < rest_->crossbars.size(); ++i)
      if (rest_->crossbars[i] >= crossbars && rest_->drop[i] >= drop &&
          try_at(std::min(rest_->crossbars[i], in_.budget), incumbent_ - rest_->latency[i]))
        return true;
    return false;
  }

  void undecide() {
    depth_ = 0;
    slack_ = in_.budget;
    decided_.assign(nodes_.size(), -1);
    acc_fixed_.assign(nodes_.size(), 0);
    copies_.clear();
    pending_extra_ = 0;
    for (size_t v = 0; v < nodes_.size(); ++v)
      if (choices_[v].size() == 1) decided_[v] = 0;
  }

  void search() {
    undecide();
    out_.decisions = vars_.size();
    dfs(0, 0, 0, 0.0);
    if (halt_) {  // a dive or a capped probe: the searches after it meet the waiting leaves again
      deferred_.clear();
      halt_ = false;
      return;
    }
    resolve_deferred();
  }

  // Nodes of this search so far, assignment and sequencing.
  [[nodiscard]] int64_t work() const { return out_.nodes + out_.seq_nodes; }

 public:
  // Single objective: a lower bound on latency + rest over every plan of the segment, from the
  // root's bounds (those worth_exploring compares with the incumbent): a plan spending c
  // crossbars costs at least max(lb, load_bound(c)) + rest(c). Within a step of rest() (the same
  // rest latency) the load bound only falls with c, so each step's largest c is the one to take.
  double root_bound() {
    undecide();
    const double elb = objective_energy(energy_bound());
    const double lb = lower_bound(kInf);
    double bound = kInf;
    for (size_t i = 0; i < rest_->crossbars.size(); ++i) {
      if (rest_->crossbars[i] < 0 || rest_->drop[i] < 0) continue;
      const int64_t c = std::min(rest_->crossbars[i], in_.budget);
      bound = std::min(bound, std::max(lb, load_bound(c)) + elb + rest_->latency[i]);
    }
    return bound;
  }

 private:
  // Latencies at or above this are of no use for a plan with `crossbars` interior crossbars and
  // an interior drop of at least `drop`.
  // `res`: the second resource of the front (the drop, or the energy bound with
  // energy_resource).
  double threshold(int64_t crossbars, int64_t drop, double res) const {
    if (!rest_) return out_.front.best_within(crossbars, res);
    return incumbent_ - rest_->at(crossbars, drop);
  }

  // The front's second resource at a node whose drop is `drop` and energy bound `elb`.
  double resource(int64_t drop, double elb) const {
    return in_.energy_resource ? elb : static_cast<double>(drop);
  }
  // The energy term of the objective (none when the energy is the second resource).
  double objective_energy(double elb) const { return in_.energy_resource ? 0.0 : elb; }

  // A leaf whose sequencing is not settled within in_.defer_after nodes waits until the assignment
  // search is over (its best schedule so far, a feasible plan, joins the incumbent or the front
  // at once); the waiting leaves are then sequenced to the end, least sequencing root bound
  // first, each against the incumbent or front as it stands. A hard leaf met early is thus often
  // settled against a better cutoff found by a later one, or not searched at all (seed 000's
  // serial-bus YOLOv5n x86 points: 0.6 s -> 0.03 s, bench/README.md partition "Session 17").
  // Exact still: every cutoff comes from a feasible plan, every waiting leaf is settled.
  struct Deferred {
    SeqInput seq;
    std::vector<int> decided, job_node, job_key;
    int64_t crossbars, drop;
    double res, energy, root_bound;
  };

  void leaf(int64_t crossbars, int64_t drop) {
    ++out_.leaves;
    SeqInput seq = sequencing_input();
    const double exact_energy = energy_bound();  // exact: every operator is decided
    const double res = resource(drop, exact_energy);
    const double energy = objective_energy(exact_energy);
    SeqOptions opt;
    opt.cutoff = threshold(crossbars, drop, res) - energy;
    opt.deadline = in_.deadline;
    opt.cache = in_.seq_cache;
    const bool may_defer = in_.defer_after > 0;
    if (may_defer) opt.max_nodes = in_.defer_after;
    const SeqOutput r = sequence(seq, opt);
    out_.seq_nodes += r.nodes;
    const bool deferred = may_defer && !r.proven && r.nodes > in_.defer_after;
    if (!r.proven && !deferred) {  // the solve's deadline or node limit struck
      out_.timed_out = true;
      return;
    }
    if (deferred) {
      ++out_.deferred;
      deferred_.push_back(Deferred{std::move(seq), decided_, job_node_, job_key_, crossbars, drop,
                                   res, energy, r.root_bound});
    }
    if (r.found) take(r, crossbars, drop, res, energy);
  }

  void resolve_deferred() {
    std::stable_sort(deferred_.begin(), deferred_.end(), [](const Deferred& a, const Deferred& b) {
      return a.root_bound < b.root_bound;
    });
    for (Deferred& d : deferred_) {
      if (out_.timed_out) return;
      if (work() > work_cap_) {
        capped_ = true;
        break;
      }
      decided_ = std::move(d.decided);
      job_node_ = std::move(d.job_node);
      job_key_ = std::move(d.job_key);
      SeqOptions opt;
      opt.cutoff = threshold(d.crossbars, d.drop, d.res) - d.energy;
      if (d.root_bound >= opt.cutoff) continue;
      opt.deadline = in_.deadline;
      opt.cache = in_.seq_cache;
      const SeqOutput r = sequence(d.seq, opt);
      out_.seq_nodes += r.nodes;
      if (!r.proven) {
        out_.timed_out = true;
        return;
      }
      if (r.found) take(r, d.crossbars, d.drop, d.res, d.energy);
    }
    deferred_.clear();
  }

  // A schedule of the leaf whose modes are decided_ (sequencing jobs job_node_ / job_key_), with
  // a latency below the leaf's threshold: a point of the front, or the new incumbent.
  void take(const SeqOutput& r, int64_t crossbars, int64_t drop, double res, double energy) {
    SegmentPlan plan;
    const Segment& s = *in_.segment;
    const size_t first = s.in >= 0 ? 1 : 0;
    for (size_t i = 0; i < s.interior.size(); ++i)
      plan.modes.push_back(choices_[first + i][static_cast<size_t>(decided_[first + i])].mode);
    for (int job : r.orders[kHostMachine]) {
      const int v = nodes_[static_cast<size_t>(job_node_[static_cast<size_t>(job)])];
      if (v != s.in && v != s.out) plan.host_order.push_back(v);
    }
    for (int job : r.orders[kBusMachine])
      plan.bus_order.push_back(job_key_[static_cast<size_t>(job)]);
    const double cost = r.makespan + energy;
    if (!rest_) {
      out_.front.insert(crossbars, res, cost, std::move(plan));
      return;
    }
    incumbent_ = cost + rest_->at(crossbars, drop);
    halt_ = dive_;
    best_.improved = true;
    best_.total = incumbent_;
    best_.latency = cost;
    best_.crossbars = crossbars;
    best_.drop = drop;
    best_.plan = std::move(plan);
  }

  // `parent_lb`: the latency bound of the parent node, valid for this node's completions too.
  void dfs(size_t depth, int64_t crossbars, int64_t drop, double parent_lb) {
    if (out_.timed_out || halt_) return;
    ++out_.nodes;
    if (work() > work_cap_) {
      halt_ = capped_ = true;
      return;
    }
    if (in_.deadline && in_.deadline->charge()) {
      out_.timed_out = true;
      return;
    }
    const double node_energy = energy_bound();
    const double res = resource(drop, node_energy);
    const double elb = objective_energy(node_energy);
    // The cheapest test first: threshold() does not increase with the crossbars (the front's
    // best_within, or incumbent - rest() with rest() non-decreasing), so no completion spending
    // c >= crossbars can get below threshold(crossbars, drop) if the parent's bound cannot. The
    // front may have improved since the parent was bounded (its earlier children's leaves).
    const double limit = threshold(crossbars, drop, res) - elb;
    if (parent_lb >= limit) {
      ++out_.parent_pruned;
      return;
    }
    const size_t n = vars_.size();
    depth_ = std::min(depth, n);
    slack_ = in_.budget - crossbars;
    const double lb = std::max(parent_lb, lower_bound(limit));
    if (!worth_exploring(lb, elb, crossbars, drop, res)) return;
    if (depth == n && device_first_) {
      device_leaf(crossbars, drop, lb, limit);
      return;
    }
    if (depth == n + copies_.size()) {
      leaf(crossbars, drop);
      return;
    }
    branch(depth, crossbars, drop, lb);
  }

  // Every device decided (device_first_), the copies of the operators fixed to the accelerator
  // not yet: the optimal sequencing with every such operator at its fastest mode bounds every
  // completion (the makespan never falls when an accelerator job gets longer, sequencing.h), so
  // one sequencing settles all of them when nothing lies below `limit` (the node's threshold at
  // its fewest crossbars, which no completion beats); otherwise its optimum raises the bound of
  // the copy search (copies_, decided after vars_).
  void device_leaf(int64_t crossbars, int64_t drop, double lb, double limit) {
    for (int v : vars_)
      if (acc_fixed_[static_cast<size_t>(v)]) copies_.push_back(v);
    if (copies_.empty()) {
      leaf(crossbars, drop);
      return;
    }
    if (dive_) {  // a dive wants its first plan, not a proof
      branch(vars_.size(), crossbars, drop, lb);
      copies_.clear();
      return;
    }
    for (int v : copies_) {  // the fastest mode each can afford
      const auto u = static_cast<size_t>(v);
      double best = kInf;
      for (size_t k = 0; k < choices_[u].size(); ++k)
        if (affordable(u, choices_[u][k]) && choices_[u][k].duration < best) {
          best = choices_[u][k].duration;
          decided_[u] = static_cast<int>(k);
        }
    }
    const SeqInput seq = sequencing_input();
    SeqOptions opt;
    opt.cutoff = limit;
    opt.deadline = in_.deadline;
    opt.cache = in_.seq_cache;
    if (in_.defer_after > 0) opt.max_nodes = in_.defer_after;
    const SeqOutput r = sequence(seq, opt);
    out_.seq_nodes += r.nodes;
    ++out_.device_leaves;
    for (int v : copies_) decided_[static_cast<size_t>(v)] = -1;
    if (!r.proven || r.found)
      branch(vars_.size(), crossbars, drop, r.proven ? std::max(lb, r.makespan) : lb);
    else
      ++out_.device_pruned;
    copies_.clear();
  }

  // The children of the node at `depth`: the modes of vars_[depth], or with device_first_ its
  // device (host, or the accelerator with the copies left open when it has several accelerator
  // modes), then the copies of copies_[depth - vars_.size()].
  void branch(size_t depth, int64_t crossbars, int64_t drop, double lb) {
    const size_t n = vars_.size();
    const bool copies = depth >= n;
    const auto v = static_cast<size_t>(copies ? copies_[depth - n] : vars_[depth]);
    const AccModes& a = acc_[v];
    // In the copy search the node's crossbars and drop already count v's fewest.
    const int64_t base_c = copies ? crossbars - a.min_crossbars : crossbars;
    const int64_t base_d = copies ? drop - a.min_drop : drop;
    // Fastest first (fast points early), the host last.
    std::vector<size_t> order;
    for (size_t k = 0; k < choices_[v].size(); ++k)
      if (!copies || !choices_[v][k].host) order.push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const Choice &x = choices_[v][a], &y = choices_[v][b];
      return x.duration < y.duration || (x.duration == y.duration && x.crossbars < y.crossbars);
    });
    bool dominated = false;  // the fastest accelerator mode dominates the slower ones
    // Single objective: when even the most crossbars the undecided operators can take leave
    // rest() unchanged, the fastest accelerator mode dominates the slower ones (same device, no
    // slower, and the crossbars cost nothing).
    if (rest_) {
      const int64_t most = crossbars + max_crossbars_after_[std::min(depth, n)] + pending_extra_;
      if (most <= in_.budget && rest_->flat(crossbars, most)) {
        dominated = true;
        // (With an energy weight, only the slower modes that cost no less energy.)
        const Choice* fastest_acc = nullptr;
        std::erase_if(order, [&](size_t k) {
          const Choice& c = choices_[v][k];
          if (c.host) return false;
          if (fastest_acc) return c.energy >= fastest_acc->energy;
          fastest_acc = &c;
          return false;
        });
      }
      // The child with the smallest own cost plus the best the rest can do with the crossbars
      // and drop it leaves first: a mode that takes crossbars the rest would use better comes
      // later, so good incumbents come early. The order changes the search path only.
      std::vector<double> key(choices_[v].size());
      for (size_t k : order) {
        const Choice& ch = choices_[v][k];
        key[k] = ch.duration + ch.energy + rest_->at(base_c + ch.crossbars, base_d + ch.drop);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return key[a] < key[b]; });
    }
    // Device first: the accelerator modes become one child (at the first one's place) whose
    // copies are decided after every device.
    const size_t open = choices_[v].size();  // that child's index in `order`
    if (device_first_ && !copies && !dominated && a.count > 1) {
      const auto first =
          std::find_if(order.begin(), order.end(), [&](size_t k) { return !choices_[v][k].host; });
      if (first != order.end()) *first = open;
      std::erase_if(order, [&](size_t k) { return k != open && !choices_[v][k].host; });
    }
    // The longest path through v at this node with v's own latency in place of its fastest bounds
    // every completion of a child (heads and tails only grow as operators are decided: slower
    // modes, transfers between operators surely on different devices), so a child that mode makes
    // too slow is pruned by its parent's bound before its own are computed.
    const double through = head_[v] + tail_[v];
    for (size_t k : order) {
      if (k == open) {
        const int64_t c = crossbars + a.min_crossbars, d = drop + a.min_drop;
        if (c > in_.budget || d > in_.drop_budget) continue;
        decided_[v] = -1;
        acc_fixed_[v] = 1;
        pending_extra_ += a.extra;
        dfs(depth + 1, c, d, std::max(lb, through + a.fastest_duration));
        pending_extra_ -= a.extra;
        acc_fixed_[v] = 0;
        if (out_.timed_out || halt_) break;
        continue;
      }
      const int64_t c = base_c + choices_[v][k].crossbars;
      const int64_t d = base_d + choices_[v][k].drop;
      if (c > in_.budget || d > in_.drop_budget) continue;
      decided_[v] = static_cast<int>(k);
      if (copies) pending_extra_ -= a.extra;
      dfs(depth + 1, c, d, std::max(lb, through + choices_[v][k].duration));
      if (copies) pending_extra_ += a.extra;
      if (out_.timed_out || halt_) break;
    }
    decided_[v] = -1;
  }

  std::vector<int> copies_;
  int64_t pending_extra_ = 0;  // the most crossbars the open copies can add
  const RestCost* rest_;
  double incumbent_;
  SegmentFrontOutput out_;
  SegmentBestOutput best_;
  std::vector<Deferred> deferred_;
  bool dive_ = false;                                       // run_best: stop at the first plan
  bool halt_ = false;                                       // set by that plan, or by work_cap_
  int64_t work_cap_ = std::numeric_limits<int64_t>::max();  // run_best: a probe's allowance
  bool capped_ = false;                                     // work_cap_ struck
};

}  // namespace

SegmentFrontOutput segment_front(const SegmentFrontInput& in) {
  HETCIM_ASSERT(in.problem && in.segment && in.allowed && in.decomposition,
                "segment_front: missing input");
  return FrontSearch(in, nullptr, 0.0).run_front();
}

SegmentBestOutput segment_best(const SegmentFrontInput& in, const RestCost& rest,
                               double incumbent) {
  HETCIM_ASSERT(in.problem && in.segment && in.allowed && in.decomposition && !in.energy_resource,
                "segment_best: missing input");
  return FrontSearch(in, &rest, incumbent).run_best();
}

double segment_best_bound(const SegmentFrontInput& in, const RestCost& rest) {
  HETCIM_ASSERT(in.problem && in.segment && in.allowed && in.decomposition && !in.energy_resource,
                "segment_best_bound: missing input");
  return FrontSearch(in, &rest, kInf).root_bound();
}

}  // namespace hetcim::partition
