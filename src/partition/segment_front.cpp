#include "partition/segment_front.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "partition/jackson.h"
#include "partition/schedule.h"
#include "partition/sequencing.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Choice {
  int mode;
  double duration;
  int64_t crossbars;
  bool host;
  double energy;  // energy_weight * dynamic energy, in seconds of objective (0 without weight)
  int64_t drop;   // accuracy cost in ppm (0 on the host and without an accuracy model)
};

struct LocalEdge {
  int from, to;
  double transfer;
  int global;     // index in dag.edges
  double energy;  // energy_weight * bus energy when it crosses (per tensor: once per producer)
};

class FrontSearch {
 public:
  // rest == nullptr: Pareto front; otherwise single objective latency + rest(crossbars).
  FrontSearch(const SegmentFrontInput& in, const RestCost* rest, double incumbent)
      : in_(in), p_(*in.problem), rest_(rest), incumbent_(incumbent) {
    build();
  }

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
  // Weighted energy of v in `mode`, with the bus energy of the dropped edges it decides.
  double weighted_energy(int v, int mode) const {
    if (w_ <= 0.0) return 0.0;
    const Decomposition& d = *in_.decomposition;
    const auto i = static_cast<size_t>(v);
    return w_ * (p_.energy(v, mode) + (mode == kHost ? d.energy_on_host[i] : d.energy_on_acc[i]));
  }

  // Weighted energy of the segment (its interior, its out cut, its edges) for every completion
  // of the current node: decided operators exactly, undecided ones at their cheapest mode, the
  // transfers of edges decided to cross (per tensor: once per producer). Exact at a leaf.
  double energy_bound() const {
    if (w_ <= 0.0) return 0.0;
    double e = 0.0;
    for (size_t v = 0; v < nodes_.size(); ++v) {
      if (decided_[v] >= 0) {
        e += choices_[v][static_cast<size_t>(decided_[v])].energy;
        continue;
      }
      double m = std::numeric_limits<double>::infinity();
      for (const Choice& c : choices_[v]) m = std::min(m, c.energy);
      e += m;
    }
    const bool per_tensor = p_.transfer_model == TransferModel::PerTensorDirection;
    for (size_t v = 0; v < nodes_.size(); ++v) {
      if (decided_[v] < 0) continue;
      const bool v_host = choices_[v][static_cast<size_t>(decided_[v])].host;
      for (size_t i : out_edges_[v]) {
        const auto w = static_cast<size_t>(edges_[i].to);
        if (decided_[w] < 0 || choices_[w][static_cast<size_t>(decided_[w])].host == v_host)
          continue;
        e += edges_[i].energy;
        if (per_tensor) break;  // the producer's one crossing
      }
    }
    return e;
  }

  void build() {
    const Segment& s = *in_.segment;
    std::vector<int> local(p_.size(), -1);
    const auto add = [&](int v, std::vector<Choice> ch) {
      local[static_cast<size_t>(v)] = static_cast<int>(nodes_.size());
      nodes_.push_back(v);
      choices_.push_back(std::move(ch));
    };
    if (s.in >= 0)  // already finished at time 0: duration 0, its device still sets transfers
      add(s.in, {Choice{in_.in_mode, 0.0, 0, in_.in_mode == kHost, 0.0, 0}});
    for (int v : s.interior) {
      std::vector<Choice> ch;
      for (int k : (*in_.allowed)[static_cast<size_t>(v)])
        ch.push_back(Choice{k, p_.duration(v, k), p_.crossbars(v, k), k == kHost,
                            weighted_energy(v, k), p_.drop(v, k)});
      add(v, std::move(ch));
    }
    if (s.out >= 0)
      add(s.out, {Choice{in_.out_mode, p_.duration(s.out, in_.out_mode), 0, in_.out_mode == kHost,
                         weighted_energy(s.out, in_.out_mode), 0}});
    for (size_t e = 0; e < p_.dag.edges.size(); ++e) {
      if (in_.decomposition->dropped[e]) continue;
      const auto [u, v] = p_.dag.edges[e];
      const int lu = local[static_cast<size_t>(u)], lv = local[static_cast<size_t>(v)];
      if (lu < 0 || lv < 0) continue;
      HETCIM_ASSERT(lu < lv, "segment edges must follow the local topological order");
      edges_.push_back({lu, lv, p_.edge_transfer(e), static_cast<int>(e),
                        w_ > 0.0 ? w_ * p_.edge_energy(e) : 0.0});
    }
    const size_t m = nodes_.size();
    in_edges_.resize(m);
    out_edges_.resize(m);
    for (size_t i = 0; i < edges_.size(); ++i) {
      in_edges_[static_cast<size_t>(edges_[i].to)].push_back(i);
      out_edges_[static_cast<size_t>(edges_[i].from)].push_back(i);
    }
    for (const auto& out : out_edges_) out_order_.insert(out_order_.end(), out.begin(), out.end());
    for (size_t v = 0; v < m; ++v)
      if (choices_[v].size() > 1) vars_.push_back(static_cast<int>(v));
    // Decide the operators whose mode matters most first.
    const auto spread = [&](int v) {
      double lo = kInf, hi = 0.0;
      for (const Choice& c : choices_[static_cast<size_t>(v)]) {
        lo = std::min(lo, c.duration);
        hi = std::max(hi, c.duration);
      }
      return hi - lo;
    };
    std::stable_sort(vars_.begin(), vars_.end(),
                     [&](int a, int b) { return spread(a) > spread(b); });
    max_crossbars_after_.assign(vars_.size() + 1, 0);
    for (size_t i = vars_.size(); i-- > 0;) {
      int64_t most = 0;
      for (const Choice& c : choices_[static_cast<size_t>(vars_[i])])
        most = std::max(most, c.crossbars);
      max_crossbars_after_[i] = max_crossbars_after_[i + 1] + most;
    }
    head_.resize(m);
    tail_.resize(m);
    dur_.resize(m);
    dev_.resize(m);
    build_removable();
  }

  // removable_ (see there): 0/1 knapsack rows from the last decision back, each operator an item
  // of its host latency weighing its fewest accelerator crossbars.
  void build_removable() {
    const size_t n = vars_.size();
    std::vector<double> value(n, 0.0);
    std::vector<int64_t> weight(n, std::numeric_limits<int64_t>::max());
    for (size_t d = 0; d < n; ++d)
      for (const Choice& c : choices_[static_cast<size_t>(vars_[d])]) {
        if (c.host)
          value[d] = c.duration;
        else
          weight[d] = std::min(weight[d], c.crossbars);
      }
    int64_t total = 0;  // the most crossbars worth a column
    for (size_t d = 0; d < n; ++d)
      total = std::min(total + std::min(weight[d], in_.budget), in_.budget);
    const auto width = static_cast<size_t>(std::max<int64_t>(total, 0)) + 1;
    if (static_cast<double>(n + 1) * static_cast<double>(width) > kMaxKnapsackCells) return;
    removable_width_ = width;
    removable_.assign((n + 1) * width, 0.0);
    for (size_t d = n; d-- > 0;) {
      const double* next = removable_.data() + (d + 1) * width;
      double* row = removable_.data() + d * width;
      const auto w = static_cast<size_t>(std::max<int64_t>(weight[d], 0));
      for (size_t c = 0; c < width; ++c)
        row[c] = c >= w ? std::max(next[c], next[c - w] + value[d]) : next[c];
    }
  }

  // 1 = surely host, 2 = surely accelerator, 3 = undecided between both.
  int device_mask(size_t v) const {
    if (decided_[v] >= 0) return choices_[v][static_cast<size_t>(decided_[v])].host ? 1 : 2;
    int mask = 0;
    for (const Choice& c : choices_[v]) mask |= c.host ? 1 : 2;
    return mask;
  }

  double edge_delay(const LocalEdge& e) const {
    const int a = dev_[static_cast<size_t>(e.from)], b = dev_[static_cast<size_t>(e.to)];
    return ((a == 1 && b == 2) || (a == 2 && b == 1)) ? e.transfer : 0.0;
  }

  // Critical-path and Jackson bounds on the segment latency of every completion of the current
  // node (Jackson's skipped once the critical path reaches `cutoff`, and stopped once it does);
  // also prepares load_bound().
  double lower_bound(double cutoff) {
    const size_t m = nodes_.size();
    for (size_t v = 0; v < m; ++v) {
      dev_[v] = device_mask(v);
      if (decided_[v] >= 0) {
        dur_[v] = choices_[v][static_cast<size_t>(decided_[v])].duration;
      } else {
        dur_[v] = kInf;
        for (const Choice& c : choices_[v]) dur_[v] = std::min(dur_[v], c.duration);
      }
    }
    for (size_t v = 0; v < m; ++v) {
      double h = 0.0;
      for (size_t i : in_edges_[v]) {
        const auto u = static_cast<size_t>(edges_[i].from);
        h = std::max(h, head_[u] + dur_[u] + edge_delay(edges_[i]));
      }
      head_[v] = h;
    }
    double lb = 0.0;
    jackson_.clear();
    knapsack_.clear();
    double head_min = kInf, tail_min = kInf, load = 0.0;
    for (size_t v = m; v-- > 0;) {
      double t = 0.0;
      for (size_t i : out_edges_[v]) {
        const auto w = static_cast<size_t>(edges_[i].to);
        t = std::max(t, edge_delay(edges_[i]) + dur_[w] + tail_[w]);
      }
      tail_[v] = t;
      lb = std::max(lb, head_[v] + dur_[v] + t);
      if (dev_[v] == 1) {
        jackson_.add(head_[v], dur_[v], t);
        load += dur_[v];
      }
      if (dev_[v] & 1) {
        head_min = std::min(head_min, head_[v]);
        tail_min = std::min(tail_min, t);
      }
      if (dev_[v] == 3) {  // undecided: its host latency counts unless crossbars take it away
        if (!removable_.empty()) {
          for (const Choice& c : choices_[v])
            if (c.host) load += c.duration;
          continue;
        }
        KnapsackItem item{0.0, std::numeric_limits<int64_t>::max()};
        for (const Choice& c : choices_[v]) {
          if (c.host)
            item.value = c.duration;
          else
            item.weight = std::min(item.weight, c.crossbars);
        }
        load += item.value;
        knapsack_.push_back(item);
      }
    }
    std::sort(knapsack_.begin(), knapsack_.end(), [](const KnapsackItem& a, const KnapsackItem& b) {
      return a.value * static_cast<double>(b.weight) > b.value * static_cast<double>(a.weight);
    });
    load_base_ = head_min < kInf ? head_min + load + tail_min : 0.0;
    if (lb >= cutoff) return lb;
    lb = std::max(lb, jackson_.value(cutoff));
    if (lb >= cutoff || p_.bus_model != BusModel::Serial) return lb;
    return std::max(lb, bus_bound(cutoff));
  }

  // Serial bus: Jackson's bound over the transfers already certain (both ends decided on
  // different devices); heads and tails from the critical-path pass of lower_bound().
  double bus_bound(double cutoff) {
    bus_jackson_.clear();
    const bool per_tensor = p_.transfer_model == TransferModel::PerTensorDirection;
    int group_from = -1, group_dir = -1;
    double group_head = 0.0, group_tail = 0.0, group_d = 0.0;
    const auto flush = [&] {
      if (group_from >= 0) bus_jackson_.add(group_head, group_d, group_tail);
      group_from = -1;
    };
    for (size_t i = 0; i < edges_.size(); ++i) {
      const LocalEdge& e = edges_[out_order_[i]];  // grouped by producer
      const int a = dev_[static_cast<size_t>(e.from)], b = dev_[static_cast<size_t>(e.to)];
      if (!((a == 1 && b == 2) || (a == 2 && b == 1))) continue;
      const auto u = static_cast<size_t>(e.from), v = static_cast<size_t>(e.to);
      const double tail = dur_[v] + tail_[v];
      if (per_tensor && group_from == e.from && group_dir == b) {
        group_tail = std::max(group_tail, tail);
        continue;
      }
      flush();
      group_from = e.from;
      group_dir = b;
      group_head = head_[u] + dur_[u];
      group_d = e.transfer;
      group_tail = tail;
    }
    flush();
    return bus_jackson_.value(cutoff);
  }

  // Host-load bound when the undecided operators may spend at most `extra` more crossbars:
  // first host start + host work + last host tail, the work reduced by the most host latency that
  // `extra` crossbars can move to the accelerator: the 0/1 knapsack of removable_ when it was
  // built, else its fractional relaxation (at least as much).
  double load_bound(int64_t extra) const {
    if (!removable_.empty()) {
      const auto c = static_cast<size_t>(
          std::clamp<int64_t>(extra, 0, static_cast<int64_t>(removable_width_) - 1));
      return load_base_ - removable_[depth_ * removable_width_ + c];
    }
    double removed = 0.0;
    double room = static_cast<double>(extra);
    for (const KnapsackItem& it : knapsack_) {
      if (it.weight == 0) {
        removed += it.value;
        continue;
      }
      if (room <= 0.0) break;
      const double w = static_cast<double>(it.weight);
      removed += it.value * std::min(1.0, room / w);
      room -= w;
    }
    return load_base_ - removed;
  }

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
    decided_.assign(nodes_.size(), -1);
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

  // The leaf's jobs: the local operators in order, each followed (serial bus) by the transfers
  // of its output, so that jobs stay topologically numbered. Fills job_node_ / job_key_.
  SeqInput sequencing_input() {
    const size_t m = nodes_.size();
    const bool serial = p_.bus_model == BusModel::Serial;
    const bool per_tensor = p_.transfer_model == TransferModel::PerTensorDirection;
    SeqInput seq;
    job_node_.clear();
    job_key_.clear();
    std::vector<int> job_of(m);
    std::vector<size_t> edge_job(edges_.size(), SIZE_MAX);  // serial: the crossing edge's transfer
    const auto host = [&](size_t v) { return choices_[v][static_cast<size_t>(decided_[v])].host; };
    for (size_t v = 0; v < m; ++v) {
      const Choice& c = choices_[v][static_cast<size_t>(decided_[v])];
      job_of[v] = static_cast<int>(seq.duration.size());
      seq.duration.push_back(c.duration);
      seq.machine.push_back(c.host ? kHostMachine : kNoMachine);
      job_node_.push_back(static_cast<int>(v));
      job_key_.push_back(-1);
      if (!serial) continue;
      size_t tensor_job = SIZE_MAX;  // per tensor: one transfer (a producer has one direction)
      for (size_t i : out_edges_[v]) {
        const LocalEdge& e = edges_[i];
        if (host(v) == host(static_cast<size_t>(e.to))) continue;
        if (per_tensor && tensor_job != SIZE_MAX) {
          edge_job[i] = tensor_job;
          continue;
        }
        edge_job[i] = seq.duration.size();
        tensor_job = edge_job[i];
        seq.duration.push_back(e.transfer);
        seq.machine.push_back(kBusMachine);
        job_node_.push_back(static_cast<int>(v));
        job_key_.push_back(e.global);  // out_edges_ ascend in global index: the first edge
      }
    }
    std::vector<char> fed(seq.duration.size(), 0);
    for (size_t i = 0; i < edges_.size(); ++i) {
      const LocalEdge& e = edges_[i];
      const int from = job_of[static_cast<size_t>(e.from)], to = job_of[static_cast<size_t>(e.to)];
      const bool cross = host(static_cast<size_t>(e.from)) != host(static_cast<size_t>(e.to));
      if (edge_job[i] != SIZE_MAX) {
        const int t = static_cast<int>(edge_job[i]);
        if (!fed[edge_job[i]]) seq.edges.push_back({from, t, 0.0});  // once per transfer
        fed[edge_job[i]] = 1;
        seq.edges.push_back({t, to, 0.0});
      } else {
        seq.edges.push_back({from, to, cross ? e.transfer : 0.0});
      }
    }
    return seq;
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
    depth_ = depth;
    const double lb = std::max(parent_lb, lower_bound(limit));
    if (!worth_exploring(lb, elb, crossbars, drop, res)) return;
    if (depth == vars_.size()) {
      leaf(crossbars, drop);
      return;
    }
    const auto v = static_cast<size_t>(vars_[depth]);
    // Fastest first (fast points early), the host last.
    std::vector<size_t> order(choices_[v].size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const Choice &x = choices_[v][a], &y = choices_[v][b];
      return x.duration < y.duration || (x.duration == y.duration && x.crossbars < y.crossbars);
    });
    // Single objective: when even the most crossbars the undecided operators can take leave
    // rest() unchanged, the fastest accelerator mode dominates the slower ones (same device, no
    // slower, and the crossbars cost nothing).
    if (rest_) {
      const int64_t most = crossbars + max_crossbars_after_[depth];
      if (most <= in_.budget && rest_->flat(crossbars, most)) {
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
        key[k] = ch.duration + ch.energy + rest_->at(crossbars + ch.crossbars, drop + ch.drop);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return key[a] < key[b]; });
    }
    // The longest path through v at this node with v's own latency in place of its fastest bounds
    // every completion of a child (heads and tails only grow as operators are decided: slower
    // modes, transfers between operators surely on different devices), so a child that mode makes
    // too slow is pruned by its parent's bound before its own are computed.
    const double through = head_[v] + tail_[v];
    for (size_t k : order) {
      const int64_t c = crossbars + choices_[v][k].crossbars;
      const int64_t d = drop + choices_[v][k].drop;
      if (c > in_.budget || d > in_.drop_budget) continue;
      decided_[v] = static_cast<int>(k);
      dfs(depth + 1, c, d, std::max(lb, through + choices_[v][k].duration));
      if (out_.timed_out || halt_) break;
    }
    decided_[v] = -1;
  }

  const SegmentFrontInput& in_;
  const Problem& p_;
  std::vector<int> nodes_;  // local -> global operator
  std::vector<std::vector<Choice>> choices_;
  std::vector<LocalEdge> edges_;
  std::vector<std::vector<size_t>> in_edges_, out_edges_;
  std::vector<size_t> out_order_;             // edge indices grouped by producer
  std::vector<int> vars_;                     // local nodes with a choice, in decision order
  std::vector<int64_t> max_crossbars_after_;  // most crossbars vars_[i..] can take
  std::vector<int> decided_;                  // choice index, -1 undecided
  std::vector<double> head_, tail_, dur_;
  std::vector<int> dev_;
  JacksonBound jackson_, bus_jackson_;
  std::vector<int> job_node_;  // sequencing job -> local node (a transfer: its producer)
  std::vector<int> job_key_;   // sequencing job -> Transfer::key (-1 for operators)
  struct KnapsackItem {
    double value;    // host latency saved by offloading
    int64_t weight;  // fewest crossbars of its accelerator modes
  };
  std::vector<KnapsackItem> knapsack_;  // undecided operators, best value per crossbar first
  double load_base_ = 0.0;
  // The 0/1 knapsack of the host-load bound by depth (the undecided operators at depth d are
  // vars_[d..]): removable_[d * removable_width_ + c] is the most host latency vars_[d..] can
  // move to the accelerator with at most c crossbars (each at its fewest). Left empty (the
  // fractional knapsack_ instead) beyond kMaxKnapsackCells entries.
  static constexpr double kMaxKnapsackCells = 1 << 20;
  std::vector<double> removable_;
  size_t removable_width_ = 0;
  size_t depth_ = 0;  // decisions taken at the current node (dfs), for load_bound()
  const RestCost* rest_;
  double incumbent_;
  double w_ = p_.energy_weight;
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
