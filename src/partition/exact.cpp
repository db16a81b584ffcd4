#include "partition/exact.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "graph/dag.h"
#include "partition/deadline.h"
#include "partition/energy.h"
#include "partition/segment_front.h"
#include "partition/segments.h"
#include "partition/sequencing.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

constexpr int kNoMode = SegmentFrontInput::kNoMode;

struct DpPoint {
  int64_t crossbars;
  double drop;  // accuracy cost in ppm (0 without an accuracy model), or energy (J) in run_front
  double time;
  int prev_mode = -1, prev_point = -1, seg_point = -1;
};
using States = std::vector<std::vector<DpPoint>>;  // per mode index of a boundary cut node

// The points no other point dominates (no more crossbars, drop and time), sorted by crossbars,
// then drop, then time; of equal points the first in that order.
void keep_pareto(std::vector<DpPoint>& pts) {
  std::sort(pts.begin(), pts.end(), [](const DpPoint& a, const DpPoint& b) {
    if (a.crossbars != b.crossbars) return a.crossbars < b.crossbars;
    if (a.drop != b.drop) return a.drop < b.drop;
    return a.time < b.time;
  });
  const bool one_drop = std::all_of(pts.begin(), pts.end(),
                                    [&](const DpPoint& q) { return q.drop == pts.front().drop; });
  std::vector<DpPoint> kept;
  // The (drop, time) staircase of the kept points (every one has no more crossbars than the
  // next candidate, by the order): drop ascending, time strictly descending.
  std::map<double, double> stairs;
  for (const DpPoint& q : pts) {
    if (one_drop) {  // the (crossbars, time) staircase
      if (kept.empty() || q.time < kept.back().time) kept.push_back(q);
      continue;
    }
    // The fastest kept point with no more drop: the last step at or below q.drop.
    auto it = stairs.upper_bound(q.drop);
    if (it != stairs.begin() && std::prev(it)->second <= q.time) continue;  // dominated
    kept.push_back(q);
    // Steps at or above q.drop that are no faster are now dominated in (drop, time).
    it = stairs.lower_bound(q.drop);
    while (it != stairs.end() && it->second >= q.time) it = stairs.erase(it);
    stairs[q.drop] = q.time;
  }
  pts = std::move(kept);
}

// max(critical path at the fastest modes with free transfers, host-only load) plus the weighted
// energy of every operator at its cheapest mode: valid for every assignment, reported as the
// bound when the time limit strikes.
double trivial_bound(const Problem& p, const std::vector<std::vector<int>>& allowed) {
  const std::vector<int> topo = graph::topological_order(p.dag);
  std::vector<double> fin(p.size(), 0.0);
  double cp = 0.0, host_only = 0.0, energy = 0.0;
  for (int v : topo) {
    const auto i = static_cast<size_t>(v);
    double d = std::numeric_limits<double>::infinity();
    for (int k : allowed[i]) d = std::min(d, p.duration(v, k));
    double s = 0.0;
    for (int u : p.dag.pred[i]) s = std::max(s, fin[static_cast<size_t>(u)]);
    fin[i] = s + d;
    cp = std::max(cp, fin[i]);
    if (allowed[i].size() == 1 && allowed[i][0] == kHost) host_only += p.t_host[i];
    if (p.energy_weight > 0.0) {
      double e = std::numeric_limits<double>::infinity();
      for (int k : allowed[i]) e = std::min(e, p.energy(v, k));
      energy += p.energy_weight * e;
    }
  }
  return std::max(cp, host_only) + energy;
}

// The chain of segments: Pareto fronts for every segment but the hardest one (most decisions),
// a forward DP over the segments before it and a backward DP over those after it, and a
// single-objective search of the hardest segment against what the rest costs for the crossbars
// it leaves (segment_best).
class Solver {
 public:
  Solver(const Problem& p, const std::vector<std::vector<int>>& allowed, int64_t budget,
         int64_t drop_budget, const Assignment& fallback, const ExactOptions& opt)
      : p_(p),
        allowed_(allowed),
        budget_(budget),
        drop_budget_(drop_budget),
        fallback_(fallback),
        deadline_(opt.time_limit_seconds, opt.node_limit),
        cache_(opt.seq_cache ? opt.seq_cache : &own_cache_),
        defer_after_(opt.defer_leaf_after),
        cutoff_(opt.cutoff) {}

  ExactResult run() {
    const std::vector<DynBitset> reach = graph::transitive_closure(p_.dag);
    d_ = decompose(DecomposeInput{&p_, &reach, &allowed_});
    r_.cut_nodes = d_.cut_nodes;
    r_.kept_cuts = d_.cuts.size();
    r_.jumping_edges = d_.jumping_edges;
    r_.redundant_edges = d_.redundant_edges;
    const size_t m = d_.segments.size();
    r_.segments.resize(m);
    fronts_.resize(m);
    size_t hard = 0, most = 0;
    for (size_t k = 0; k < m; ++k) {
      const Segment& seg = d_.segments[k];
      r_.segments[k].in = seg.in;
      r_.segments[k].out = seg.out;
      r_.segments[k].interior = seg.interior.size();
      size_t dec = 0;
      for (int v : seg.interior) dec += allowed_[static_cast<size_t>(v)].size() > 1 ? 1 : 0;
      if (dec > most) {
        most = dec;
        hard = k;
      }
    }
    const States init = {{DpPoint{0, 0, 0.0}}};
    fwd_.resize(m);
    bwd_.resize(m);
    for (size_t k = 0; k < hard; ++k) {
      if (!compute_fronts(k)) return timed_out();
      fwd_[k] = forward_step(k == 0 ? init : fwd_[k - 1], k);
    }
    for (size_t k = m; k-- > hard + 1;) {
      if (!compute_fronts(k)) return timed_out();
      bwd_[k] = backward_step(k + 1 == m ? init : bwd_[k + 1], k);
    }
    if (!solve_hard(hard, hard == 0 ? init : fwd_[hard - 1], hard + 1 == m ? init : bwd_[hard + 1]))
      return hard_in_ >= 0 ? assemble(hard, limit_status()) : timed_out();
    if (hard_in_ < 0) return nothing_below_cutoff();
    return assemble(hard, SolveStatus::Optimal);
  }

  // The (latency, dynamic energy) front under the budgets: segment fronts with the energy as
  // their second resource (SegmentFrontInput::energy_resource) for every segment, a forward DP
  // over all of them, the final states' Pareto points, each assembled and replayed.
  ExactFront run_front() {
    energy_resource_ = true;
    const std::vector<DynBitset> reach = graph::transitive_closure(p_.dag);
    d_ = decompose(DecomposeInput{&p_, &reach, &allowed_});
    ExactFront f;
    f.cut_nodes = d_.cut_nodes;
    f.kept_cuts = d_.cuts.size();
    const size_t m = d_.segments.size();
    r_.segments.resize(m);
    fronts_.resize(m);
    fwd_.resize(m);
    const States init = {{DpPoint{0, 0, 0.0}}};
    for (size_t k = 0; k < m; ++k) {
      const Segment& seg = d_.segments[k];
      r_.segments[k].in = seg.in;
      r_.segments[k].out = seg.out;
      r_.segments[k].interior = seg.interior.size();
      if (!compute_fronts(k)) {
        f.status = deadline_.node_limited() ? SolveStatus::NodeLimit : SolveStatus::TimeLimit;
        break;
      }
      fwd_[k] = forward_step(k == 0 ? init : fwd_[k - 1], k);
      f.dp_states += std::accumulate(fwd_[k].begin(), fwd_[k].end(), size_t{0},
                                     [](size_t n, const auto& v) { return n + v.size(); });
    }
    if (f.status == SolveStatus::Optimal) {
      // The last segment has no out cut: one list of states. Its (time, energy) staircase.
      const std::vector<DpPoint>& last = fwd_[m - 1][0];
      std::vector<size_t> idx(last.size());
      std::iota(idx.begin(), idx.end(), size_t{0});
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return last[a].time < last[b].time ||
               (last[a].time == last[b].time && last[a].drop < last[b].drop);
      });
      for (size_t i : idx)
        if (f.points.empty() || last[i].drop < f.points.back().energy)
          f.points.push_back(assemble_point(last[i], i));
    }
    f.segments = std::move(r_.segments);
    f.nodes = r_.nodes;
    f.leaves = r_.leaves;
    f.seq_nodes = r_.seq_nodes;
    f.seconds = deadline_.elapsed();
    return f;
  }

 private:
  // The plan behind final state `point` of run_front's DP, replayed; its makespan and energy
  // must equal the DP's.
  ExactFrontPoint assemble_point(const DpPoint& last, size_t point) const {
    const size_t m = d_.segments.size();
    Assignment a{std::vector<int>(p_.size(), kHost)};
    std::vector<const SegmentPlan*> plans(m);
    size_t mode = 0, pt = point;
    for (size_t k = m; k-- > 0;) {
      const DpPoint& q = fwd_[k][mode][pt];
      const int out = d_.segments[k].out;
      if (out >= 0) a.mode[static_cast<size_t>(out)] = modes_of(out)[mode];
      plans[k] = &plan_at(k, static_cast<size_t>(q.prev_mode), mode, q.seg_point);
      mode = static_cast<size_t>(q.prev_mode);
      pt = static_cast<size_t>(q.prev_point);
    }
    ExactFrontPoint r;
    r.schedule = stitched(plans, a);
    r.makespan = r.schedule.makespan;
    r.energy = dynamic_energy(p_, a);
    r.crossbars = last.crossbars;
    const double tol =
        time_tolerance(p_) * static_cast<double>(m + 1) + 1e-12 * std::abs(last.time);
    if (std::abs(r.makespan - last.time) > tol ||
        std::abs(r.energy - last.drop) > 1e-9 * std::max(std::abs(last.drop), 1e-30))
      throw internal_error("exact energy front: the DP point (", last.time, " s, ", last.drop,
                           " J) differs from the replayed (", r.makespan, " s, ", r.energy, " J)");
    return r;
  }

  std::vector<int> modes_of(int v) const {
    return v >= 0 ? allowed_[static_cast<size_t>(v)] : std::vector<int>{kNoMode};
  }
  int64_t out_crossbars(size_t k, size_t jo) const {
    const int out = d_.segments[k].out;
    return out >= 0 ? p_.crossbars(out, modes_of(out)[jo]) : 0;
  }
  int64_t out_drop(size_t k, size_t jo) const {
    const int out = d_.segments[k].out;
    return out >= 0 ? p_.drop(out, modes_of(out)[jo]) : 0;
  }
  SegmentFrontInput front_input(const Segment& seg, int in_mode, int out_mode) const {
    SegmentFrontInput fi{&p_, &seg, &allowed_, &d_, in_mode, out_mode, budget_, &deadline_};
    fi.drop_budget = drop_budget_;
    fi.energy_resource = energy_resource_;
    fi.seq_cache = cache_;
    fi.defer_after = defer_after_;
    return fi;
  }

  bool compute_fronts(size_t k) {
    const Segment& seg = d_.segments[k];
    const std::vector<int> in_modes = modes_of(seg.in), out_modes = modes_of(seg.out);
    ExactSegmentStats& st = r_.segments[k];
    const double t0 = deadline_.elapsed();
    fronts_[k].resize(in_modes.size());
    for (size_t ji = 0; ji < in_modes.size(); ++ji) {
      for (size_t jo = 0; jo < out_modes.size(); ++jo) {
        fronts_[k][ji].push_back(segment_front(front_input(seg, in_modes[ji], out_modes[jo])));
        const SegmentFrontOutput& f = fronts_[k][ji].back();
        st.decisions = f.decisions;
        st.fronts += 1;
        st.front_points += f.front.size();
        add_counts(st, f.nodes, f.leaves, f.seq_nodes);
        r_.parent_pruned += f.parent_pruned;
        r_.deferred += f.deferred;
        if (f.timed_out) return false;
      }
    }
    st.seconds = deadline_.elapsed() - t0;
    return true;
  }

  void add_counts(ExactSegmentStats& st, int64_t nodes, int64_t leaves, int64_t seq) {
    st.nodes += nodes;
    st.leaves += leaves;
    st.seq_nodes += seq;
    r_.nodes += nodes;
    r_.leaves += leaves;
    r_.seq_nodes += seq;
  }

  // States before segment k (per in-mode) -> states after it (per out-mode); time = finish of
  // the out cut node.
  States forward_step(const States& in, size_t k) const {
    States next(modes_of(d_.segments[k].out).size());
    for (size_t ji = 0; ji < in.size(); ++ji)
      for (size_t jo = 0; jo < next.size(); ++jo) {
        const auto& pts = fronts_[k][ji][jo].front.points();
        for (size_t si = 0; si < in[ji].size(); ++si)
          for (size_t q = 0; q < pts.size(); ++q) {
            const int64_t c = in[ji][si].crossbars + pts[q].crossbars + out_crossbars(k, jo);
            const double d = in[ji][si].drop + pts[q].drop + static_cast<double>(out_drop(k, jo));
            if (c <= budget_ && d <= drop_budget_)
              next[jo].push_back(DpPoint{c, d, in[ji][si].time + pts[q].latency,
                                         static_cast<int>(ji), static_cast<int>(si),
                                         static_cast<int>(q)});
          }
      }
    for (auto& pts : next) keep_pareto(pts);
    return next;
  }

  // States after segment k (per out-mode; time from the out cut's finish to the end) -> states
  // before it (per in-mode; time from the in cut's finish to the end).
  States backward_step(const States& out, size_t k) const {
    States prev(modes_of(d_.segments[k].in).size());
    for (size_t ji = 0; ji < prev.size(); ++ji)
      for (size_t jo = 0; jo < out.size(); ++jo) {
        const auto& pts = fronts_[k][ji][jo].front.points();
        for (size_t q = 0; q < pts.size(); ++q)
          for (size_t si = 0; si < out[jo].size(); ++si) {
            const int64_t c = pts[q].crossbars + out_crossbars(k, jo) + out[jo][si].crossbars;
            const double d = pts[q].drop + static_cast<double>(out_drop(k, jo)) + out[jo][si].drop;
            if (c <= budget_ && d <= drop_budget_)
              prev[ji].push_back(DpPoint{c, d, pts[q].latency + out[jo][si].time,
                                         static_cast<int>(jo), static_cast<int>(si),
                                         static_cast<int>(q)});
          }
      }
    for (auto& pts : prev) keep_pareto(pts);
    return prev;
  }

  // The rest of the hard segment h for the prefix states at its in cut's mode and the suffix
  // states at its out cut's mode jo: prefix (ends at the in cut) + out cut crossbars and drop +
  // suffix, Pareto-pruned (returned second); what each leaves (budget - c, drop budget - d) are
  // the RestCost's thresholds.
  std::pair<RestCost, std::vector<DpPoint>> rest_cost(const std::vector<DpPoint>& prefix,
                                                      const std::vector<DpPoint>& suffix, size_t h,
                                                      size_t jo) const {
    std::vector<DpPoint> rest;
    for (size_t a = 0; a < prefix.size(); ++a)
      for (size_t b = 0; b < suffix.size(); ++b) {
        const int64_t c = prefix[a].crossbars + out_crossbars(h, jo) + suffix[b].crossbars;
        const int64_t d = static_cast<int64_t>(prefix[a].drop) + out_drop(h, jo) +
                          static_cast<int64_t>(suffix[b].drop);
        if (c <= budget_ && d <= drop_budget_)
          rest.push_back(DpPoint{c, static_cast<double>(d), prefix[a].time + suffix[b].time,
                                 static_cast<int>(a), static_cast<int>(b), -1});
      }
    keep_pareto(rest);
    RestCost cost;
    for (size_t i = rest.size(); i-- > 0;)
      cost.add(budget_ - rest[i].crossbars, drop_budget_ - static_cast<int64_t>(rest[i].drop),
               rest[i].time);
    return {std::move(cost), std::move(rest)};
  }

  bool solve_hard(size_t h, const States& prefix, const States& suffix) {
    const Segment& seg = d_.segments[h];
    const std::vector<int> in_modes = modes_of(seg.in), out_modes = modes_of(seg.out);
    ExactSegmentStats& st = r_.segments[h];
    const double t0 = deadline_.elapsed();
    double incumbent = cutoff_;
    for (size_t ji = 0; ji < in_modes.size(); ++ji) {
      for (size_t jo = 0; jo < out_modes.size(); ++jo) {
        const auto [cost, rest] = rest_cost(prefix[ji], suffix[jo], h, jo);
        SegmentBestOutput b =
            segment_best(front_input(seg, in_modes[ji], out_modes[jo]), cost, incumbent);
        st.decisions = b.decisions;
        st.fronts += 1;
        add_counts(st, b.nodes, b.leaves, b.seq_nodes);
        r_.parent_pruned += b.parent_pruned;
        r_.deferred += b.deferred;
        r_.probes += b.probes;
        // A plan found before a limit struck is complete (its leaf's schedule is feasible,
        // sequenced to the end or the best of a deferred leaf's search so far): the incumbent
        // of a limited solve.
        if (b.improved) {
          incumbent = b.total;
          optimum_ = b.total;
          hard_plan_ = std::move(b.plan);
          hard_in_ = static_cast<int>(ji);
          hard_out_ = static_cast<int>(jo);
          // The rest point RestCost::at picked: the fastest of those that still fit.
          double best_rest = std::numeric_limits<double>::infinity();
          for (size_t i = rest.size(); i-- > 0;)
            if (b.crossbars <= budget_ - rest[i].crossbars &&
                b.drop <= drop_budget_ - static_cast<int64_t>(rest[i].drop) &&
                rest[i].time < best_rest) {
              best_rest = rest[i].time;
              hard_prefix_ = rest[i].prev_mode;
              hard_suffix_ = rest[i].prev_point;
            }
        }
        if (b.timed_out) {
          // What the stopped search and the pairs not searched yet still prove (the pairs
          // searched to the end have nothing below the incumbent).
          open_bound_ = std::numeric_limits<double>::infinity();
          for (size_t k = ji * out_modes.size() + jo; k < in_modes.size() * out_modes.size(); ++k) {
            const size_t i = k / out_modes.size(), o = k % out_modes.size();
            open_bound_ = std::min(open_bound_,
                                   segment_best_bound(front_input(seg, in_modes[i], out_modes[o]),
                                                      rest_cost(prefix[i], suffix[o], h, o).first));
          }
          st.seconds = deadline_.elapsed() - t0;
          return false;
        }
      }
    }
    st.seconds = deadline_.elapsed() - t0;
    HETCIM_ASSERT(hard_in_ >= 0 || cutoff_ < std::numeric_limits<double>::infinity(),
                  "exact: no assignment fits (all-host always does)");
    return true;
  }

  // The whole schedule of one plan per segment: their interior modes written into `a` (whose cut
  // modes are set), host and bus orders concatenated in segment order (a host cut after its
  // segment), simulated.
  Schedule stitched(const std::vector<const SegmentPlan*>& plans, Assignment& a) const {
    const size_t m = plans.size();
    std::vector<int> host_order, bus_order;
    for (size_t k = 0; k < m; ++k) {
      const Segment& seg = d_.segments[k];
      for (size_t i = 0; i < seg.interior.size(); ++i)
        a.mode[static_cast<size_t>(seg.interior[i])] = plans[k]->modes[i];
      host_order.insert(host_order.end(), plans[k]->host_order.begin(), plans[k]->host_order.end());
      bus_order.insert(bus_order.end(), plans[k]->bus_order.begin(), plans[k]->bus_order.end());
      if (seg.out >= 0 && a.mode[static_cast<size_t>(seg.out)] == kHost)
        host_order.push_back(seg.out);
    }
    return simulate(p_, a, host_order, bus_order);
  }

  const SegmentPlan& plan_at(size_t k, size_t ji, size_t jo, int point) const {
    return fronts_[k][ji][jo].front.points()[static_cast<size_t>(point)].payload;
  }

  SolveStatus limit_status() const {
    return deadline_.node_limited() ? SolveStatus::NodeLimit : SolveStatus::TimeLimit;
  }

  // The plan of the hard segment's best leaf with the rest's DP points: the optimum when
  // `status` is Optimal, else the incumbent of a solve a limit stopped.
  ExactResult assemble(size_t h, SolveStatus status) {
    const size_t m = d_.segments.size();
    Assignment a{std::vector<int>(p_.size(), kHost)};
    std::vector<const SegmentPlan*> plans(m);
    const auto set_out = [&](size_t k, size_t jo) {
      const int out = d_.segments[k].out;
      if (out >= 0) a.mode[static_cast<size_t>(out)] = modes_of(out)[jo];
    };
    plans[h] = &hard_plan_;
    set_out(h, static_cast<size_t>(hard_out_));
    // Prefix: walk the forward DP back from the in cut of the hard segment.
    int mode = hard_in_, point = hard_prefix_;
    for (size_t k = h; k-- > 0;) {
      const DpPoint& q = fwd_[k][static_cast<size_t>(mode)][static_cast<size_t>(point)];
      set_out(k, static_cast<size_t>(mode));
      plans[k] =
          &plan_at(k, static_cast<size_t>(q.prev_mode), static_cast<size_t>(mode), q.seg_point);
      mode = q.prev_mode;
      point = q.prev_point;
    }
    // Suffix: walk the backward DP forward from the out cut of the hard segment.
    mode = hard_out_;
    point = hard_suffix_;
    for (size_t k = h + 1; k < m; ++k) {
      const DpPoint& q = bwd_[k][static_cast<size_t>(mode)][static_cast<size_t>(point)];
      set_out(k, static_cast<size_t>(q.prev_mode));
      plans[k] =
          &plan_at(k, static_cast<size_t>(mode), static_cast<size_t>(q.prev_mode), q.seg_point);
      mode = q.prev_mode;
      point = q.prev_point;
    }
    r_.schedule = stitched(plans, a);
    const double objective = objective_value(p_, r_.schedule);
    const double tol =
        time_tolerance(p_) * static_cast<double>(m + 1) + 1e-12 * std::abs(objective);
    if (std::abs(objective - optimum_) > tol)
      throw internal_error("exact solver: the DP optimum ", optimum_,
                           " s differs from the replayed ", "objective ", objective, " s");
    r_.status = status;
    r_.makespan = r_.schedule.makespan;
    r_.objective = objective;
    r_.bound = objective;
    if (status != SolveStatus::Optimal) {
      r_.bound = std::min(std::max(trivial_bound(p_, allowed_), open_bound_), objective);
      r_.incumbent = ExactResult::kSearchIncumbent;
    }
    r_.seconds = deadline_.elapsed();
    return std::move(r_);
  }

  ExactResult nothing_below_cutoff() {
    r_.status = SolveStatus::Infeasible;
    r_.bound = cutoff_;
    r_.seconds = deadline_.elapsed();
    return std::move(r_);
  }

  ExactResult timed_out() {
    r_.status = limit_status();
    r_.incumbent = ExactResult::kFallbackIncumbent;
    r_.schedule = simulate_in_topological_order(p_, fallback_);
    r_.makespan = r_.schedule.makespan;
    r_.objective = objective_value(p_, r_.schedule);
    r_.bound = std::min(std::max(trivial_bound(p_, allowed_), open_bound_), r_.objective);
    r_.seconds = deadline_.elapsed();
    return std::move(r_);
  }

  const Problem& p_;
  const std::vector<std::vector<int>>& allowed_;
  int64_t budget_;
  int64_t drop_budget_;
  const Assignment& fallback_;
  Deadline deadline_;
  SeqCache own_cache_;
  SeqCache* cache_;
  int64_t defer_after_;
  double cutoff_;
  Decomposition d_;
  ExactResult r_;
  std::vector<std::vector<std::vector<SegmentFrontOutput>>> fronts_;  // [k][ji][jo]
  std::vector<States> fwd_, bwd_;
  double optimum_ = std::numeric_limits<double>::infinity();
  // A limited hard search: no plan of the pairs not searched to the end is below this.
  double open_bound_ = 0.0;
  SegmentPlan hard_plan_;
  int hard_in_ = -1, hard_out_ = -1, hard_prefix_ = -1, hard_suffix_ = -1;
  bool energy_resource_ = false;
};

void require_clean(const Problem& p, const ExactResult& r, bool check_budget) {
  for (const Violation& v : check(p, r.schedule)) {
    if (!check_budget &&
        (v.kind == ViolationKind::Budget || v.kind == ViolationKind::AccuracyBudget))
      continue;
    throw internal_error("exact solver produced an invalid schedule: ", v.message);
  }
}

// Allowed modes: the host, then the accelerator modes that fit the budget and are not
// dominated by another mode (no more crossbars, no slower and, with an energy weight, no more
// energy): makespans are monotone in latencies, so a dominated mode never helps.
std::vector<std::vector<int>> allowed_modes(const Problem& p) {
  std::vector<std::vector<int>> allowed(p.size());
  for (size_t v = 0; v < p.size(); ++v) {
    allowed[v].push_back(kHost);
    const auto& modes = p.acc[v];
    for (size_t k = 0; k < modes.size(); ++k) {
      if (modes[k].crossbars > p.crossbar_budget) continue;
      if (p.drop(static_cast<int>(v), static_cast<int>(k)) > p.drop_limit()) continue;
      bool dominated = false;
      for (size_t j = 0; j < modes.size() && !dominated; ++j) {
        if (j == k) continue;
        const bool weigh = p.energy_weight > 0.0;
        const bool no_worse = modes[j].crossbars <= modes[k].crossbars &&
                              modes[j].t_acc <= modes[k].t_acc &&
                              (!weigh || modes[j].energy <= modes[k].energy);
        const bool better = modes[j].crossbars < modes[k].crossbars ||
                            modes[j].t_acc < modes[k].t_acc ||
                            (weigh && modes[j].energy < modes[k].energy);
        dominated = no_worse && (better || j < k);  // among equal modes keep the first
      }
      if (!dominated) allowed[v].push_back(static_cast<int>(k));
    }
  }
  return allowed;
}

}  // namespace

ExactResult solve_exact(const Problem& p, const ExactOptions& opt) {
  p.validate();
  if (!(opt.time_limit_seconds > 0.0))
    throw user_error("exact solver: time limit ", opt.time_limit_seconds, " s, expected > 0");
  if (opt.node_limit < 0)
    throw user_error("exact solver: node limit ", opt.node_limit, ", expected >= 0 (0 = none)");
  if (std::isnan(opt.cutoff)) throw user_error("exact solver: the cutoff is not a number");
  ExactResult r =
      Solver(p, allowed_modes(p), p.crossbar_budget, p.drop_limit(), all_host(p), opt).run();
  if (r.status != SolveStatus::Infeasible) require_clean(p, r, true);
  return r;
}

ExactFront solve_exact_energy_front(const Problem& p, const ExactOptions& opt) {
  p.validate();
  if (!p.has_energy()) throw user_error("exact energy front: the problem has no energy model");
  if (p.has_accuracy())
    throw user_error("exact energy front: the problem has accuracy costs (use the 3-D front)");
  if (!(opt.time_limit_seconds > 0.0))
    throw user_error("exact solver: time limit ", opt.time_limit_seconds, " s, expected > 0");
  if (opt.node_limit < 0)
    throw user_error("exact solver: node limit ", opt.node_limit, ", expected >= 0 (0 = none)");
  HETCIM_ASSERT(!(opt.cutoff < std::numeric_limits<double>::infinity()),
                "exact energy front: a cutoff is for solve_exact only");
  Problem q = p;
  q.energy_weight = 1.0;  // the energy counts (decomposition, mode dominance), in joules
  const std::vector<std::vector<int>> allowed = allowed_modes(q);
  const Assignment fallback = all_host(q);
  ExactFront f = Solver(q, allowed, q.crossbar_budget, q.drop_limit(), fallback, opt).run_front();
  for (const ExactFrontPoint& pt : f.points)
    for (const Violation& v : check(p, pt.schedule))
      throw internal_error("exact energy front produced an invalid schedule: ", v.message);
  return f;
}

ExactResult sequence_exact(const Problem& p, const Assignment& a, const ExactOptions& opt) {
  p.validate();
  if (a.mode.size() != p.size())
    throw user_error("assignment: ", a.mode.size(), " modes for ", p.size(), " operators");
  std::vector<std::vector<int>> allowed(p.size());
  for (size_t v = 0; v < p.size(); ++v) {
    const int m = a.mode[v];
    if (m != kHost && (m < 0 || static_cast<size_t>(m) >= p.acc[v].size()))
      throw user_error("assignment: operator '", p.names[v], "' has no mode ", m);
    allowed[v] = {m};
  }
  HETCIM_ASSERT(!(opt.cutoff < std::numeric_limits<double>::infinity()),
                "sequence_exact: a cutoff is for solve_exact only");
  constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max() / 4;
  ExactResult r = Solver(p, allowed, kNoLimit, kNoLimit, a, opt).run();
  require_clean(p, r, false);
  return r;
}

Schedule simulate_best(const Problem& p, const Assignment& a) {
  require_valid_assignment(p, a);
  ExactResult r = sequence_exact(p, a);
  if (r.status != SolveStatus::Optimal)
    throw internal_error("simulate_best: exact sequencing did not finish without a time limit");
  return std::move(r.schedule);
}

}  // namespace hetcim::partition
