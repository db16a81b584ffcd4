// The segment search's model of one segment (segment_front.cpp): its operators and their modes,
// its edges, the modes decided so far, and the bounds on every completion of such a partial
// decision (critical path, Jackson's, the host load with its knapsack), and the sequencing input
// of a leaf. Private to segment_front.cpp, apart only to keep each file readable.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "partition/jackson.h"
#include "partition/problem.h"
#include "partition/segment_front.h"
#include "partition/segments.h"
#include "partition/sequencing.h"
#include "util/error.h"

namespace hetcim::partition::detail {

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

class SegmentModel {
 protected:
  explicit SegmentModel(const SegmentFrontInput& in) : in_(in), p_(*in.problem) { build(); }

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
      for (const Choice& c : choices_[v])
        if (!acc_fixed_[v] || !c.host) m = std::min(m, c.energy);
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
    acc_.resize(m);
    for (size_t v = 0; v < m; ++v) {
      AccModes& a = acc_[v];
      int64_t most = 0;
      for (size_t k = 0; k < choices_[v].size(); ++k) {
        const Choice& c = choices_[v][k];
        if (c.host) continue;
        if (a.count++ == 0 || c.duration < a.fastest_duration) {
          a.fastest = k;
          a.fastest_duration = c.duration;
        }
        a.min_crossbars = std::min(a.min_crossbars, c.crossbars);
        a.min_drop = std::min(a.min_drop, c.drop);
        most = std::max(most, c.crossbars);
      }
      a.extra = a.count > 0 ? most - a.min_crossbars : 0;
    }
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
    if (acc_fixed_[v]) return 2;
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
        dur_[v] = kInf;  // at the fastest mode the crossbars left (slack_) allow
        for (const Choice& c : choices_[v])
          if (affordable(v, c)) dur_[v] = std::min(dur_[v], c.duration);
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
  // Device first (device_leaf): operators whose device is the accelerator but whose copies are
  // open, their accelerator modes summarised in acc_; copies_: those to decide at a device leaf.
  struct AccModes {
    int count = 0;  // accelerator modes
    size_t fastest = 0;
    double fastest_duration = kInf;
    int64_t min_crossbars = std::numeric_limits<int64_t>::max(), extra = 0;  // most - fewest
    int64_t min_drop = std::numeric_limits<int64_t>::max();
  };
  std::vector<AccModes> acc_;
  std::vector<char> acc_fixed_;
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
  // Crossbars the current node leaves unspent (budget - its crossbars, which count the fewest of
  // the accelerator modes of acc_fixed_ operators): no completion takes a mode needing more.
  int64_t slack_ = 0;
  bool affordable(size_t v, const Choice& c) const {
    if (acc_fixed_[v]) return !c.host && c.crossbars - acc_[v].min_crossbars <= slack_;
    return c.host || c.crossbars <= slack_;
  }
  double w_ = p_.energy_weight;
};

}  // namespace hetcim::partition::detail
