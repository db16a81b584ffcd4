#include "partition/multi_exact.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>

#include "graph/dag.h"
#include "partition/deadline.h"
#include "partition/multi_capacity.h"
#include "partition/sequencing.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

// A list of every job of a sequenced input that the simulator can replay: a topological order of
// the precedence edges and of each machine's order, ready jobs taken by (start, finish, number).
std::vector<int> job_list(const SeqInput& in, const SeqOutput& s) {
  const size_t n = in.duration.size();
  std::vector<std::vector<int>> succ(n);
  std::vector<int> indegree(n, 0);
  const auto edge = [&](int a, int b) {
    succ[static_cast<size_t>(a)].push_back(b);
    ++indegree[static_cast<size_t>(b)];
  };
  for (const SeqEdge& e : in.edges) edge(e.from, e.to);
  for (const std::vector<int>& order : s.orders)
    for (size_t k = 1; k < order.size(); ++k) edge(order[k - 1], order[k]);
  const auto key = [&](int j) {
    const auto u = static_cast<size_t>(j);
    return std::tuple(s.start[u], s.start[u] + in.duration[u], j);
  };
  const auto later = [&](int a, int b) { return key(b) < key(a); };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  for (size_t j = 0; j < n; ++j)
    if (indegree[j] == 0) ready.push(static_cast<int>(j));
  std::vector<int> list;
  list.reserve(n);
  while (!ready.empty()) {
    const int j = ready.top();
    ready.pop();
    list.push_back(j);
    for (int k : succ[static_cast<size_t>(j)])
      if (--indegree[static_cast<size_t>(k)] == 0) ready.push(k);
  }
  HETCIM_ASSERT(list.size() == n, "job list: the sequenced orders contain a cycle");
  return list;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr const char* kFallbackIncumbent =
    "fallback: the first capacity-free option of every operator (search stopped at its limit)";
constexpr const char* kResidentOptimum =
    "the proven optimum without reprogramming (search with reprogramming stopped at its limit)";

// Capacity vectors and their Pareto filter: multi_capacity.h.

struct FrontPoint {
  Cap cap;
  double cost = 0.0;
  std::vector<int> options;  // per interior operator, in segment order
  std::vector<int> order;    // global job ids (operators, n + edge for serial transfers)
};

struct Segment {
  int in = -1, out = -1;
  std::vector<int> interior;  // topological order
};

class Solver {
 public:
  Solver(const MultiProblem& p, Deadline& deadline, SeqCache* cache)
      : p_(p), m_(multi_machines(p)), deadline_(deadline), cache_(cache), caps_(p) {
    const size_t k = p.engines.size();
    double power = 0.0;
    for (const MultiEngine& g : p.engines) power += g.static_power + g.idle_power;
    for (size_t e = 0; e < k; ++e) {
      const int mm = m_.engine_machine[e];
      if (mm >= 0 &&
          std::find(engine_machines_.begin(), engine_machines_.end(), mm) == engine_machines_.end())
        engine_machines_.push_back(mm);
    }
    kappa_ = p.latency_weight + p.energy_weight * power;
  }

  MultiExactResult solve() {
    MultiExactResult r;
    decompose(r);
    const bool complete = dp(r);
    r.nodes = nodes_;
    r.leaves = leaves_;
    r.seq_nodes = seq_nodes_;
    r.seconds = deadline_.elapsed();
    if (!complete) {
      r.status = deadline_.node_limited() ? SolveStatus::NodeLimit : SolveStatus::TimeLimit;
      fallback(r);
    }
    return r;
  }

 private:
  double op_cost(int v, int o) const {
    const MultiOption& x = p_.option(v, o);
    return p_.energy_weight *
           (x.energy - p_.engines[static_cast<size_t>(x.engine)].idle_power * x.duration);
  }

  // Largest transfer time edge e pays when its endpoints sit on different engines; -inf if they
  // never can, +inf if the edge must stay inside a segment (a pair without a link, a serial
  // link, or a transfer whose energy counts in the objective).
  double jump_transfer(size_t e) const {
    const auto [u, w] = p_.dag.edges[e];
    double t = -kInf;
    for (const MultiOption& x : p_.options[static_cast<size_t>(u)])
      for (const MultiOption& y : p_.options[static_cast<size_t>(w)]) {
        if (x.engine == y.engine) continue;
        const int l = m_.link(x.engine, y.engine);
        if (l < 0 || p_.links[static_cast<size_t>(l)].serial) return kInf;
        if (p_.energy_weight > 0 && transfer_energy(p_, e, l) > 0) return kInf;
        t = std::max(t, transfer_time(p_, e, l));
      }
    return t;
  }

  // Smallest delay edge f imposes when its endpoints sit on different engines (+inf if they
  // never can): a transfer over a parallel link or a transfer job on a serial one, of at least
  // this duration, sits between them.
  double min_crossing(size_t f) const {
    const auto [u, w] = p_.dag.edges[f];
    double t = kInf;
    for (const MultiOption& x : p_.options[static_cast<size_t>(u)])
      for (const MultiOption& y : p_.options[static_cast<size_t>(w)]) {
        if (x.engine == y.engine) continue;
        const int l = m_.link(x.engine, y.engine);
        if (l >= 0) t = std::min(t, transfer_time(p_, f, l));
      }
    return t;
  }

  // Whether the precedence of edge e = (a, b), which jumps over a cut node, is implied by the
  // other edges in every feasible schedule, so that the edge may be left out of the segments.
  // Proof sketch. If a and b always share an engine, e is a plain precedence, implied by the
  // path a -> cut -> b. Otherwise let t be the largest transfer e can need (jump_transfer: only
  // pure delays on parallel links, without energy in the objective, so e adds no job, no cost
  // and no infeasibility: a pair of engines without a link is refused above). If a and b sit on
  // the same engine e imposes nothing beyond precedence. If they sit on engines A != B, every
  // path a = x0 -> x1 -> ... -> xk = b changes engine on some edge f, whose delay is at least
  // min_crossing(f) (a parallel transfer's delay or a serial transfer job's duration). For a
  // threshold theta, take a detour (a path other than e itself) all of whose edges have
  // min_crossing >= theta: then start(b) >= finish(a) + sum of the intermediate operators'
  // shortest durations + theta. If that is >= t for some theta, e's constraint start(b) >=
  // finish(a) + transfer(e) never binds. The detour's own edges are either kept in a segment or
  // redundant by the same argument on a strictly smaller set of intermediate operators, so by
  // induction their constraints hold too. Every edge over a kept cut node is redundant, so the
  // segments, each scheduled exactly with the edges that remain, compose a feasible schedule of
  // the whole problem of the same objective.
  bool redundant_edge(size_t e, const std::vector<int>& pos, std::vector<char>& in_between,
                      std::vector<double>& dist) const {
    const auto [a, b] = p_.dag.edges[e];
    const double t = jump_transfer(e);
    if (t == kInf) return false;
    if (t <= 0) return true;  // never crosses, or crosses for free: the path over the cut covers it
    std::vector<int> between;
    for (size_t w = 0; w < p_.size(); ++w)
      if (reach_[static_cast<size_t>(a)].test(w) && reach_[w].test(static_cast<size_t>(b)))
        between.push_back(static_cast<int>(w));
    std::sort(between.begin(), between.end(), [&](int x, int y) {
      return pos[static_cast<size_t>(x)] < pos[static_cast<size_t>(y)];
    });
    for (int w : between) in_between[static_cast<size_t>(w)] = 1;
    std::vector<double> thetas;
    for (int w : between)
      for (const auto& [u, f] : in_edges_[static_cast<size_t>(w)])
        if (u == a || in_between[static_cast<size_t>(u)]) thetas.push_back(min_cross_[f]);
    for (const auto& [u, f] : in_edges_[static_cast<size_t>(b)])
      if (in_between[static_cast<size_t>(u)]) thetas.push_back(min_cross_[f]);
    std::erase_if(thetas, [&](double x) { return x > t; });  // t itself suffices above t
    thetas.push_back(t);
    std::sort(thetas.begin(), thetas.end(), std::greater<>());
    thetas.erase(std::unique(thetas.begin(), thetas.end()), thetas.end());
    if (thetas.size() > 32) thetas.resize(32);
    thetas.push_back(0.0);
    bool covered = false;
    for (const double theta : thetas) {
      // Longest detour a -> b over edges of min_crossing >= theta, weights: shortest durations.
      for (int w : between) {
        double d = -kInf;
        for (const auto& [u, f] : in_edges_[static_cast<size_t>(w)]) {
          if (min_cross_[f] < theta) continue;
          if (u == a)
            d = std::max(d, 0.0);
          else if (in_between[static_cast<size_t>(u)] && dist[static_cast<size_t>(u)] > -kInf)
            d = std::max(d, dist[static_cast<size_t>(u)] + min_dur_[static_cast<size_t>(u)]);
        }
        dist[static_cast<size_t>(w)] = d;
      }
      double detour = -kInf;
      for (const auto& [u, f] : in_edges_[static_cast<size_t>(b)])
        if (in_between[static_cast<size_t>(u)] && min_cross_[f] >= theta &&
            dist[static_cast<size_t>(u)] > -kInf)
          detour =
              std::max(detour, dist[static_cast<size_t>(u)] + min_dur_[static_cast<size_t>(u)]);
      if (detour > -kInf && detour + theta >= t) {
        covered = true;
        break;
      }
    }
    for (int w : between) in_between[static_cast<size_t>(w)] = 0;
    return covered;
  }

  void decompose(MultiExactResult& r) {
    const size_t n = p_.size();
    reach_ = graph::transitive_closure(p_.dag);
    const std::vector<int> cuts = graph::cut_nodes(reach_);
    r.cut_nodes = cuts.size();
    std::vector<int> pos(n, 0);
    {
      const std::vector<int> topo = graph::topological_order(p_.dag);
      for (size_t i = 0; i < topo.size(); ++i)
        pos[static_cast<size_t>(topo[i])] = static_cast<int>(i);
    }
    in_edges_.assign(n, {});
    min_dur_.assign(n, kInf);
    min_cross_.assign(p_.dag.edges.size(), kInf);
    for (size_t e = 0; e < p_.dag.edges.size(); ++e) {
      in_edges_[static_cast<size_t>(p_.dag.edges[e].second)].emplace_back(p_.dag.edges[e].first, e);
      min_cross_[e] = min_crossing(e);
    }
    for (size_t v = 0; v < n; ++v)
      for (const MultiOption& x : p_.options[v]) min_dur_[v] = std::min(min_dur_[v], x.duration);
    // A cut node stays unless a non-redundant edge jumps over it.
    std::vector<char> keep(n, 0);
    for (int c : cuts) keep[static_cast<size_t>(c)] = 1;
    dropped_.assign(p_.dag.edges.size(), 0);
    std::vector<char> in_between(n, 0);
    std::vector<double> dist(n, -kInf);
    for (size_t e = 0; e < p_.dag.edges.size(); ++e) {
      const auto [u, w] = p_.dag.edges[e];
      std::vector<int> jumped;
      for (int c : cuts)
        if (reach_[static_cast<size_t>(u)].test(static_cast<size_t>(c)) &&
            reach_[static_cast<size_t>(c)].test(static_cast<size_t>(w)))
          jumped.push_back(c);
      if (jumped.empty()) continue;
      ++r.jumping_edges;
      if (redundant_edge(e, pos, in_between, dist)) {
        dropped_[e] = 1;
        ++r.redundant_edges;
      } else {
        for (int c : jumped) keep[static_cast<size_t>(c)] = 0;
      }
    }
    std::vector<int> kept;
    for (int c : cuts)
      if (keep[static_cast<size_t>(c)]) kept.push_back(c);
    // Cut nodes are totally ordered: by the number of their ancestors.
    const auto ancestors = [&](int v) {
      size_t a = 0;
      for (size_t u = 0; u < n; ++u) a += reach_[u].test(static_cast<size_t>(v)) ? 1 : 0;
      return a;
    };
    std::stable_sort(kept.begin(), kept.end(),
                     [&](int a, int b) { return ancestors(a) < ancestors(b); });
    cuts_ = kept;
    segments_.assign(kept.size() + 1, Segment{});
    for (size_t s = 0; s < segments_.size(); ++s) {
      segments_[s].in = s == 0 ? -1 : kept[s - 1];
      segments_[s].out = s < kept.size() ? kept[s] : -1;
    }
    std::vector<char> is_cut(n, 0);
    for (int c : kept) is_cut[static_cast<size_t>(c)] = 1;
    for (int v : graph::topological_order(p_.dag)) {
      if (is_cut[static_cast<size_t>(v)]) continue;
      size_t s = 0;
      for (int c : kept) s += reach_[static_cast<size_t>(c)].test(static_cast<size_t>(v)) ? 1 : 0;
      segments_[s].interior.push_back(v);
    }
    r.segments = segments_.size();
    for (const Segment& s : segments_)
      r.largest_segment = std::max(r.largest_segment, s.interior.size());
  }

  // ---- one segment: the front for (engine of `in`, option of `out`) -----------------------

  struct SegCtx {
    const Segment* seg = nullptr;
    int in_engine = -1;
    int out_option = -1;
    std::vector<int> ops;                       // local index -> operator: interior then out
    std::vector<int> local;                     // operator -> local index (-1 outside)
    std::vector<size_t> edges;                  // dag edges whose consumer is in ops
    std::vector<std::vector<size_t>> in_edges;  // per local op
    std::vector<int> option;                    // per local op (-1 undecided)
    std::vector<double> min_dur, min_cost;
    std::vector<FrontPoint> front;
  };

  int engine_at(const SegCtx& c, int v) const {
    if (v == c.seg->in) return c.in_engine;
    const int i = c.local[static_cast<size_t>(v)];
    return c.option[static_cast<size_t>(i)] < 0
               ? -1
               : p_.option(v, c.option[static_cast<size_t>(i)]).engine;
  }

  // Transfer (link index, -1 none) of edge e under the decided engines; -2 if infeasible,
  // -3 if an endpoint is undecided.
  int edge_link(const SegCtx& c, size_t e) const {
    const int a = engine_at(c, p_.dag.edges[e].first), b = engine_at(c, p_.dag.edges[e].second);
    if (a < 0 || b < 0) return -3;
    if (a == b) return -1;
    const int l = m_.link(a, b);
    return l < 0 ? -2 : l;
  }

  double segment_lower_bound(const SegCtx& c, double fixed, const Cap& cap) const {
    const size_t k = c.ops.size();
    std::vector<double> fin(k, 0.0);
    double cp = 0.0;
    std::vector<double> load(m_.machine_names.size(), 0.0);
    for (size_t i = 0; i < k; ++i) {
      const int v = c.ops[i];
      double r = 0.0;
      for (size_t e : c.in_edges[i]) {
        const int u = p_.dag.edges[e].first;
        const double fu =
            u == c.seg->in ? 0.0 : fin[static_cast<size_t>(c.local[static_cast<size_t>(u)])];
        const int l = edge_link(c, e);
        r = std::max(r, fu + (l >= 0 ? transfer_time(p_, e, l) : 0.0));
        if (l >= 0 && m_.link_machine[static_cast<size_t>(l)] >= 0)
          load[static_cast<size_t>(m_.link_machine[static_cast<size_t>(l)])] +=
              transfer_time(p_, e, l);
      }
      double d = c.min_dur[i];
      if (c.option[i] >= 0) {
        const MultiOption& x = p_.option(v, c.option[i]);
        d = x.duration;
        const int mm = m_.engine_machine[static_cast<size_t>(x.engine)];
        if (mm >= 0) load[static_cast<size_t>(mm)] += d;
      }
      fin[i] = r + d;
      cp = std::max(cp, fin[i]);
    }
    for (double l : load) cp = std::max(cp, l);
    // Per engine machine: its decided load plus every undecided operator that can leave it only
    // by taking capacity, less what the capacity still free can take away (fractional knapsack
    // over duration per capacity unit; all free capacity counted for every operator: a
    // relaxation).
    int64_t free_cap = 0;
    for (size_t d = 0; d < caps_.resident_dims; ++d) free_cap += caps_.free(cap, d);
    std::vector<std::pair<double, int64_t>> items;
    for (int mm : engine_machines_) {
      double need = load[static_cast<size_t>(mm)];
      items.clear();
      for (size_t i = 0; i < k; ++i) {
        if (c.option[i] >= 0) continue;
        double d_m = kInf;
        bool escape = false;
        int64_t min_cap = std::numeric_limits<int64_t>::max();
        for (const MultiOption& x : p_.options[static_cast<size_t>(c.ops[i])]) {
          if (m_.engine_machine[static_cast<size_t>(x.engine)] == mm)
            d_m = std::min(d_m, x.duration);
          else if (x.capacity == 0 || x.reprogram)  // a reprogrammed footprint may take no more
            escape = true;
          else
            min_cap = std::min(min_cap, x.capacity);
        }
        if (escape || d_m == kInf) continue;
        need += d_m;
        if (min_cap < std::numeric_limits<int64_t>::max()) items.emplace_back(d_m, min_cap);
      }
      std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
        return a.first * static_cast<double>(b.second) > b.first * static_cast<double>(a.second);
      });
      int64_t left = free_cap;
      for (const auto& [d, w] : items) {
        if (left <= 0) break;
        const double take = std::min(1.0, static_cast<double>(left) / static_cast<double>(w));
        need -= d * take;
        left -= w;
      }
      cp = std::max(cp, need);
    }
    return kappa_ * cp + fixed;
  }

  // Fixed (additive) cost of the decided part, plus the cheapest of the undecided.
  double additive_cost(const SegCtx& c) const {
    double s = 0.0;
    for (size_t i = 0; i < c.ops.size(); ++i)
      s += c.option[i] >= 0 ? op_cost(c.ops[i], c.option[i]) : c.min_cost[i];
    if (p_.energy_weight > 0)
      for (size_t e : c.edges) {
        const int l = edge_link(c, e);
        if (l >= 0) s += p_.energy_weight * transfer_energy(p_, e, l);
      }
    return s;
  }

  bool front_dominates(const SegCtx& c, const Cap& cap, double cost) const {
    for (const FrontPoint& q : c.front)
      if (cap_le(q.cap, cap) && q.cost <= cost) return true;
    return false;
  }

  void leaf(SegCtx& c, const Cap& cap) {
    ++leaves_;
    const double add = additive_cost(c);
    // The best cost already achievable with no more capacity: only strictly better is wanted.
    double target = kInf;
    for (const FrontPoint& q : c.front)
      if (cap_le(q.cap, cap)) target = std::min(target, q.cost);
    double cutoff = kInf;
    if (target < kInf) {
      if (kappa_ <= 0) return;  // latency is free: the front already has as good a point
      cutoff = (target - add) / kappa_;
      if (!(cutoff > 0)) return;
    }
    // The jobs in a topological order (sequencing.h numbers them so): the entering cut node as a
    // zero job, then per local operator the transfers of its inputs over serial links and the
    // operator itself.
    const size_t k = c.ops.size();
    SeqInput in;
    in.machines = static_cast<int>(m_.machine_names.size());
    std::vector<int> global;  // per job: operator, n + edge for a serial transfer, -1
    const auto add_job = [&](double duration, int machine, int g) {
      in.duration.push_back(duration);
      in.machine.push_back(static_cast<int8_t>(machine < 0 ? kNoMachine : machine));
      global.push_back(g);
      return static_cast<int>(in.duration.size() - 1);
    };
    const int in_job = add_job(0.0, -1, -1);
    std::vector<int> job_of(k);
    std::vector<std::pair<int, double>> inputs;  // (job, delay) feeding the current operator
    for (size_t i = 0; i < k; ++i) {
      inputs.clear();
      for (size_t e : c.in_edges[i]) {
        const int u = p_.dag.edges[e].first;
        const int ju =
            u == c.seg->in ? in_job : job_of[static_cast<size_t>(c.local[static_cast<size_t>(u)])];
        const int l = edge_link(c, e);
        if (l < 0) {
          inputs.emplace_back(ju, 0.0);
        } else if (m_.link_machine[static_cast<size_t>(l)] < 0) {
          inputs.emplace_back(ju, transfer_time(p_, e, l));
        } else {
          const int jt = add_job(transfer_time(p_, e, l), m_.link_machine[static_cast<size_t>(l)],
                                 static_cast<int>(p_.size() + e));
          in.edges.push_back({ju, jt, 0.0});
          inputs.emplace_back(jt, 0.0);
        }
      }
      const MultiOption& x = p_.option(c.ops[i], c.option[i]);
      job_of[i] = add_job(x.duration, m_.engine_machine[static_cast<size_t>(x.engine)], c.ops[i]);
      for (const auto& [j, delay] : inputs) in.edges.push_back({j, job_of[i], delay});
    }
    SeqOptions opt;
    opt.cutoff = cutoff;
    opt.deadline = &deadline_;
    opt.cache = cache_;
    const SeqOutput s = sequence(in, opt);
    seq_nodes_ += s.nodes;
    if (!s.proven) {
      timed_out_ = true;
      return;
    }
    if (!s.found) return;
    FrontPoint fp;
    fp.cap = cap;
    fp.cost = kappa_ * s.makespan + add;
    fp.options.assign(c.option.begin(),
                      c.option.begin() + static_cast<std::ptrdiff_t>(c.seg->interior.size()));
    // The job list (multi_schedule.h): by start, then finish (a zero job before a job starting
    // with it on its machine), then topological number (a zero job before its successors), taken
    // as a topological order of the precedence and machine-order edges. Sorting by start alone
    // breaks on rounding: the sequencer's start is finish - duration, which for a transfer shorter
    // than the clock's last bit (a 1e30 B/s link) can put its consumer a bit before it.
    const std::vector<int> list = job_list(in, s);
    for (int j : list)
      if (global[static_cast<size_t>(j)] >= 0) fp.order.push_back(global[static_cast<size_t>(j)]);
    // Replace the points the new one beats.
    std::erase_if(c.front,
                  [&](const FrontPoint& q) { return cap_le(fp.cap, q.cap) && fp.cost <= q.cost; });
    c.front.push_back(std::move(fp));
  }

  void branch(SegCtx& c, size_t i, Cap& cap) {
    if (timed_out_) return;
    ++nodes_;
    if (deadline_.charge()) {
      timed_out_ = true;
      return;
    }
    const size_t decided_end = c.seg->out >= 0 ? c.ops.size() - 1 : c.ops.size();
    if (front_dominates(c, cap, segment_lower_bound(c, additive_cost(c), cap))) return;
    if (i == decided_end) {
      leaf(c, cap);
      return;
    }
    const int v = c.ops[i];
    // Options in order of duration: good incumbents first.
    std::vector<int> order(p_.options[static_cast<size_t>(v)].size());
    for (size_t o = 0; o < order.size(); ++o) order[o] = static_cast<int>(o);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return p_.option(v, a).duration < p_.option(v, b).duration;
    });
    for (int o : order) {
      c.option[i] = o;
      bool ok = true;
      // Links to decided neighbours (inputs, and the closing cut node).
      for (size_t e : c.edges) {
        const int u = p_.dag.edges[e].first, w = p_.dag.edges[e].second;
        if ((w == v || u == v) && edge_link(c, e) == -2) ok = false;
      }
      const MultiOption& x = p_.option(v, o);
      const int ci = caps_.dim(x);
      const int64_t old = ci >= 0 ? cap[static_cast<size_t>(ci)] : 0;
      if (ci >= 0)
        cap[static_cast<size_t>(ci)] = x.reprogram ? std::max(old, x.capacity) : old + x.capacity;
      if (ok && caps_.fits(cap)) branch(c, i + 1, cap);
      if (ci >= 0) cap[static_cast<size_t>(ci)] = old;
      if (timed_out_) break;
    }
    c.option[i] = -1;
  }

  std::vector<FrontPoint> segment_front(const Segment& s, int in_engine, int out_option) {
    SegCtx c;
    c.seg = &s;
    c.in_engine = in_engine;
    c.out_option = out_option;
    c.ops = s.interior;
    if (s.out >= 0) c.ops.push_back(s.out);
    c.local.assign(p_.size(), -1);
    for (size_t i = 0; i < c.ops.size(); ++i)
      c.local[static_cast<size_t>(c.ops[i])] = static_cast<int>(i);
    for (size_t e = 0; e < p_.dag.edges.size(); ++e)
      if (c.local[static_cast<size_t>(p_.dag.edges[e].second)] >= 0) {
        const int u = p_.dag.edges[e].first;
        // A redundant edge from an earlier segment (redundant_edge) never binds.
        if (dropped_[e] && u != s.in && c.local[static_cast<size_t>(u)] < 0) continue;
        HETCIM_ASSERT(u == s.in || c.local[static_cast<size_t>(u)] >= 0,
                      "segment: an edge reaches into it from outside");
        c.edges.push_back(e);
      }
    c.in_edges.resize(c.ops.size());
    for (size_t e : c.edges)
      c.in_edges[static_cast<size_t>(c.local[static_cast<size_t>(p_.dag.edges[e].second)])]
          .push_back(e);
    c.option.assign(c.ops.size(), -1);
    c.min_dur.assign(c.ops.size(), kInf);
    c.min_cost.assign(c.ops.size(), kInf);
    for (size_t i = 0; i < c.ops.size(); ++i)
      for (size_t o = 0; o < p_.options[static_cast<size_t>(c.ops[i])].size(); ++o) {
        c.min_dur[i] = std::min(c.min_dur[i], p_.option(c.ops[i], static_cast<int>(o)).duration);
        c.min_cost[i] = std::min(c.min_cost[i], op_cost(c.ops[i], static_cast<int>(o)));
      }
    Cap cap(caps_.limit.size(), 0);
    if (s.out >= 0) {
      const size_t last = c.ops.size() - 1;
      c.option[last] = out_option;
      c.min_dur[last] = p_.option(s.out, out_option).duration;
      c.min_cost[last] = op_cost(s.out, out_option);
      cap = caps_.of(p_.option(s.out, out_option));
      // The closing cut node must reach the entering one directly if they are joined.
      for (size_t e : c.edges)
        if (p_.dag.edges[e].first == s.in && p_.dag.edges[e].second == s.out &&
            edge_link(c, e) == -2)
          return {};
    }
    branch(c, 0, cap);
    return std::move(c.front);
  }

  // ---- DP over segments ---------------------------------------------------------------------

  struct State {
    Cap cap;
    double cost = 0.0;
    int prev_option = -1;  // option of the previous cut node
    int prev_state = -1;   // index in its state list
    int point = -1;        // index in the segment front
  };

  bool dp(MultiExactResult& r) {
    const size_t ns = segments_.size();
    // fronts[s][(in_engine, out_option)]
    std::vector<std::map<std::pair<int, int>, std::vector<FrontPoint>>> fronts(ns);
    const auto front = [&](size_t s, int in_engine,
                           int out_option) -> const std::vector<FrontPoint>& {
      auto [it, fresh] = fronts[s].try_emplace({in_engine, out_option});
      if (fresh) {
        it->second = segment_front(segments_[s], in_engine, out_option);
        r.front_points += it->second.size();
      }
      return it->second;
    };
    // states[s]: per option of cut s (the `out` of segment s).
    std::vector<std::vector<std::vector<State>>> states(ns);
    for (size_t s = 0; s < ns; ++s) {
      const Segment& seg = segments_[s];
      const size_t outs = seg.out >= 0 ? p_.options[static_cast<size_t>(seg.out)].size() : 1;
      states[s].resize(outs);
      for (size_t oo = 0; oo < outs; ++oo) {
        const int out_option = seg.out >= 0 ? static_cast<int>(oo) : -1;
        std::vector<State> cand;
        if (s == 0) {
          const std::vector<FrontPoint>& f = front(0, -1, out_option);
          for (size_t q = 0; q < f.size(); ++q)
            if (caps_.fits(f[q].cap))
              cand.push_back({f[q].cap, f[q].cost, -1, -1, static_cast<int>(q)});
        } else {
          for (size_t po = 0; po < states[s - 1].size(); ++po) {
            if (states[s - 1][po].empty()) continue;
            const int in_engine = p_.option(seg.in, static_cast<int>(po)).engine;
            const std::vector<FrontPoint>& f = front(s, in_engine, out_option);
            for (size_t si = 0; si < states[s - 1][po].size(); ++si) {
              const State& st = states[s - 1][po][si];
              for (size_t q = 0; q < f.size(); ++q) {
                Cap c = st.cap;
                caps_.add(c, f[q].cap);
                if (!caps_.fits(c)) continue;
                cand.push_back({std::move(c), st.cost + f[q].cost, static_cast<int>(po),
                                static_cast<int>(si), static_cast<int>(q)});
              }
            }
          }
        }
        if (timed_out_) return false;
        states[s][oo] = pareto_filter(
            std::move(cand), [](const State& x) -> const Cap& { return x.cap; },
            [](const State& x) { return x.cost; });
      }
    }
    if (timed_out_) return false;
    // The best final state.
    int best = -1;
    for (size_t i = 0; i < states[ns - 1][0].size(); ++i)
      if (best < 0 || states[ns - 1][0][i].cost < states[ns - 1][0][static_cast<size_t>(best)].cost)
        best = static_cast<int>(i);
    if (best < 0) {
      r.status = SolveStatus::Infeasible;
      r.bound = kInf;
      return true;
    }
    // Rebuild the assignment and the job list.
    std::vector<int> option(p_.size(), -1);
    std::vector<std::vector<int>> orders(ns);
    int cur_option = 0, cur_state = best;
    for (size_t s = ns; s-- > 0;) {
      const Segment& seg = segments_[s];
      const State& st = states[s][static_cast<size_t>(cur_option)][static_cast<size_t>(cur_state)];
      const int in_engine = s == 0 ? -1 : p_.option(seg.in, st.prev_option).engine;
      const int out_option = seg.out >= 0 ? cur_option : -1;
      const FrontPoint& fp = fronts[s].at({in_engine, out_option})[static_cast<size_t>(st.point)];
      for (size_t i = 0; i < seg.interior.size(); ++i)
        option[static_cast<size_t>(seg.interior[i])] = fp.options[i];
      if (seg.out >= 0) option[static_cast<size_t>(seg.out)] = out_option;
      orders[s] = fp.order;
      cur_option = std::max(st.prev_option, 0);
      cur_state = st.prev_state;
    }
    std::vector<int> order;
    for (const std::vector<int>& o : orders) order.insert(order.end(), o.begin(), o.end());
    const double claimed = states[ns - 1][0][static_cast<size_t>(best)].cost;
    r.schedule = multi_simulate(p_, option, order);
    r.objective = r.schedule.objective;
    const double tol = 1e-9 * std::max(1.0, std::abs(claimed)) +
                       (p_.latency_weight + p_.energy_weight) * multi_time_tolerance(p_) * 10;
    if (std::abs(r.objective - claimed) > std::max(tol, 1e-9 * std::abs(claimed)))
      throw internal_error("K-engine exact solver: the replayed schedule's objective ", r.objective,
                           " differs from the solver's ", claimed);
    const std::vector<MultiViolation> v = multi_check(p_, r.schedule);
    if (!v.empty())
      throw internal_error("K-engine exact solver: the schedule violates its problem: ",
                           v.front().message);
    r.status = SolveStatus::Optimal;
    r.bound = r.objective;
    return true;
  }

  // Without a finished search: the cheapest capacity-free option of every operator, if those
  // talk over links, as the incumbent; the bound stays 0.
  void fallback(MultiExactResult& r) {
    r.bound = 0.0;
    std::vector<int> option(p_.size(), -1);
    for (size_t v = 0; v < p_.size(); ++v)
      for (size_t o = 0; o < p_.options[v].size() && option[v] < 0; ++o)
        if (p_.options[v][o].capacity == 0) option[v] = static_cast<int>(o);
    for (int o : option)
      if (o < 0) return;
    for (const auto& [u, w] : p_.dag.edges) {
      const int a = p_.option(u, option[static_cast<size_t>(u)]).engine;
      const int b = p_.option(w, option[static_cast<size_t>(w)]).engine;
      if (a != b && m_.link(a, b) < 0) return;
    }
    r.schedule = multi_simulate(p_, option, multi_default_order(p_, option));
    r.objective = r.schedule.objective;
  }

  const MultiProblem& p_;
  const MultiMachines m_;
  Deadline& deadline_;
  SeqCache* cache_;  // sequencing answers shared by the solves of one call
  const CapacitySpace caps_;
  std::vector<int> engine_machines_;  // the distinct machines of the engines
  double kappa_ = 1.0;
  std::vector<DynBitset> reach_;
  std::vector<int> cuts_;
  std::vector<Segment> segments_;
  std::vector<std::vector<std::pair<int, size_t>>> in_edges_;  // (producer, edge) per operator
  std::vector<double> min_dur_;                                // shortest duration per operator
  std::vector<double> min_cross_;                              // per edge: min_crossing
  std::vector<char> dropped_;  // per edge: redundant and jumping over a cut node
  int64_t nodes_ = 0, leaves_ = 0, seq_nodes_ = 0;
  bool timed_out_ = false;
};

// The problem without its reprogrammed options, and per operator the index of each kept option
// in the original problem. Empty when some operator has no other option.
std::pair<MultiProblem, std::vector<std::vector<int>>> without_reprogramming(
    const MultiProblem& p) {
  MultiProblem q = p;
  std::vector<std::vector<int>> index(p.size());
  for (size_t v = 0; v < p.size(); ++v) {
    q.options[v].clear();
    for (size_t o = 0; o < p.options[v].size(); ++o)
      if (!p.options[v][o].reprogram) {
        q.options[v].push_back(p.options[v][o]);
        index[v].push_back(static_cast<int>(o));
      }
    if (q.options[v].empty()) return {};
  }
  return {std::move(q), std::move(index)};
}

}  // namespace

MultiExactResult solve_multi_exact(const MultiProblem& p, const MultiExactOptions& opt) {
  p.validate();
  if (!(opt.time_limit_seconds > 0))
    throw user_error("K-engine exact solver: time limit must be > 0 s");
  if (opt.node_limit < 0) throw user_error("K-engine exact solver: node limit must be >= 0");
  if (const size_t machines = multi_machines(p).machine_names.size();
      machines > static_cast<size_t>(kMaxSeqMachines))
    throw user_error("K-engine exact solver: the platform has ", machines,
                     " machines (one-at-a-time engines, exclusive groups, serial links); the "
                     "sequencing supports at most ",
                     kMaxSeqMachines);
  Deadline deadline(opt.time_limit_seconds, opt.node_limit);
  bool reprogram = false;
  for (const std::vector<MultiOption>& os : p.options)
    for (const MultiOption& x : os) reprogram = reprogram || x.reprogram;
  SeqCache cache;
  if (!reprogram || !opt.seed_without_reprogramming) {
    MultiExactResult r = Solver(p, deadline, &cache).solve();
    if (r.status == SolveStatus::TimeLimit || r.status == SolveStatus::NodeLimit)
      r.incumbent = r.schedule.option.empty() ? "none" : kFallbackIncumbent;
    return r;
  }
  // Reprogramming only adds options: every plan without it is a plan with it, of the same
  // objective (multi_simulate charges a resident option the same either way). The solve without
  // the reprogrammed options, on the same limits, comes first; its plan is the incumbent if the
  // full search stops at a limit (the full search yields no plan before it completes: the DP over
  // the segments needs every front).
  auto [q, index] = without_reprogramming(p);
  // (A limited solve without reprogramming has only the fallback plan, which the full solve's
  // fallback repeats: only its proven optimum is kept.)
  MultiExactResult seed;
  if (!index.empty()) seed = Solver(q, deadline, &cache).solve();
  MultiExactResult r = Solver(p, deadline, &cache).solve();
  r.nodes += seed.nodes;
  r.leaves += seed.leaves;
  r.seq_nodes += seed.seq_nodes;
  r.seconds = deadline.elapsed();
  if (r.status != SolveStatus::TimeLimit && r.status != SolveStatus::NodeLimit) return r;
  r.incumbent = r.schedule.option.empty() ? "none" : kFallbackIncumbent;
  if (seed.status != SolveStatus::Optimal) return r;
  std::vector<int> option(p.size(), -1);
  for (size_t v = 0; v < p.size(); ++v)
    option[v] = index[v][static_cast<size_t>(seed.schedule.option[v])];
  MultiSchedule s = multi_simulate(p, option, seed.schedule.order);
  if (r.schedule.option.empty() || s.objective < r.objective) {
    r.schedule = std::move(s);
    r.objective = r.schedule.objective;
    r.incumbent = kResidentOptimum;
  }
  return r;
}

}  // namespace hetcim::partition
