#include "partition/exact.h"

#include <algorithm>

#include "graph/dag.h"
#include "partition/deadline.h"
#include "partition/segment_front.h"
#include "partition/segments.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

constexpr int kNoMode = SegmentFrontInput::kNoMode;

struct DpPoint {
  int64_t crossbars;
  double time;  // finish of the current cut node
  int prev_mode = -1, prev_point = -1, seg_point = -1;
};

void keep_pareto(std::vector<DpPoint>& pts) {
  std::sort(pts.begin(), pts.end(), [](const DpPoint& a, const DpPoint& b) {
    return a.crossbars < b.crossbars || (a.crossbars == b.crossbars && a.time < b.time);
  });
  std::vector<DpPoint> kept;
  for (const DpPoint& q : pts)
    if (kept.empty() || q.time < kept.back().time) kept.push_back(q);
  pts = std::move(kept);
}

// max(critical path at the fastest modes with free transfers, host-only load): valid for every
// assignment, reported as the bound when the time limit strikes.
double trivial_bound(const Problem& p, const std::vector<std::vector<int>>& allowed) {
  const std::vector<int> topo = graph::topological_order(p.dag);
  std::vector<double> fin(p.size(), 0.0);
  double cp = 0.0, host_only = 0.0;
  for (int v : topo) {
    const auto i = static_cast<size_t>(v);
    double d = std::numeric_limits<double>::infinity();
    for (int k : allowed[i]) d = std::min(d, p.duration(v, k));
    double s = 0.0;
    for (int u : p.dag.pred[i]) s = std::max(s, fin[static_cast<size_t>(u)]);
    fin[i] = s + d;
    cp = std::max(cp, fin[i]);
    if (allowed[i].size() == 1 && allowed[i][0] == kHost) host_only += p.t_host[i];
  }
  return std::max(cp, host_only);
}

Schedule topological_all_host(const Problem& p, const Assignment& a) {
  std::vector<int> order;
  for (int v : graph::topological_order(p.dag))
    if (a.mode[static_cast<size_t>(v)] == kHost) order.push_back(v);
  return simulate(p, a, order);
}

ExactResult finish_timed_out(const Problem& p, const std::vector<std::vector<int>>& allowed,
                             const Assignment& fallback, ExactResult r) {
  r.status = SolveStatus::TimeLimit;
  r.schedule = topological_all_host(p, fallback);
  r.makespan = r.schedule.makespan;
  r.bound = std::min(trivial_bound(p, allowed), r.makespan);
  return r;
}

ExactResult run(const Problem& p, const std::vector<std::vector<int>>& allowed, int64_t budget,
                const Assignment& fallback, const ExactOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds);
  ExactResult r;
  const std::vector<DynBitset> reach = graph::transitive_closure(p.dag);
  const Decomposition d = decompose(DecomposeInput{&p, &reach, &allowed});
  r.cut_nodes = d.cut_nodes;
  r.kept_cuts = d.cuts.size();
  r.jumping_edges = d.jumping_edges;
  r.redundant_edges = d.redundant_edges;

  const auto modes_of = [&](int v) { return v >= 0 ? allowed[static_cast<size_t>(v)] : std::vector<int>{kNoMode}; };
  // fronts[k][ji][jo] and the DP states after each segment (per out-mode index).
  std::vector<std::vector<std::vector<SegmentFrontOutput>>> fronts(d.segments.size());
  std::vector<std::vector<std::vector<DpPoint>>> states(d.segments.size());
  std::vector<std::vector<DpPoint>> state = {{DpPoint{0, 0.0}}};
  for (size_t k = 0; k < d.segments.size(); ++k) {
    const Segment& seg = d.segments[k];
    const std::vector<int> in_modes = modes_of(seg.in), out_modes = modes_of(seg.out);
    ExactSegmentStats st;
    st.in = seg.in;
    st.out = seg.out;
    st.interior = seg.interior.size();
    const double t0 = deadline.elapsed();
    fronts[k].resize(in_modes.size());
    std::vector<std::vector<DpPoint>> next(out_modes.size());
    for (size_t ji = 0; ji < in_modes.size(); ++ji) {
      for (size_t jo = 0; jo < out_modes.size(); ++jo) {
        SegmentFrontInput fi{&p, &seg, &allowed, &d.dropped, in_modes[ji], out_modes[jo], budget,
                             &deadline};
        fronts[k][ji].push_back(segment_front(fi));
        const SegmentFrontOutput& f = fronts[k][ji].back();
        st.decisions = f.decisions;
        st.fronts += 1;
        st.front_points += f.front.size();
        st.nodes += f.nodes;
        st.leaves += f.leaves;
        st.seq_nodes += f.seq_nodes;
        if (f.timed_out) {
          r.segments.push_back(st);
          return finish_timed_out(p, allowed, fallback, std::move(r));
        }
        const int64_t out_cb = seg.out >= 0 ? p.crossbars(seg.out, out_modes[jo]) : 0;
        for (size_t si = 0; si < state[ji].size(); ++si) {
          const DpPoint& s = state[ji][si];
          const auto& pts = f.front.points();
          for (size_t q = 0; q < pts.size(); ++q) {
            const int64_t c = s.crossbars + pts[q].crossbars + out_cb;
            if (c > budget) continue;
            next[jo].push_back(DpPoint{c, s.time + pts[q].latency, static_cast<int>(ji),
                                       static_cast<int>(si), static_cast<int>(q)});
          }
        }
      }
    }
    for (auto& pts : next) keep_pareto(pts);
    st.seconds = deadline.elapsed() - t0;
    r.nodes += st.nodes;
    r.leaves += st.leaves;
    r.seq_nodes += st.seq_nodes;
    r.segments.push_back(st);
    states[k] = next;
    state = std::move(next);
  }
  HETCIM_ASSERT(state.size() == 1 && !state[0].empty(), "exact: the DP lost every assignment");
  const double optimum = state[0].back().time;  // sorted by crossbars, time decreasing

  // Walk back through the DP to the modes and the per-segment host orders.
  Assignment a{std::vector<int>(p.size(), kHost)};
  std::vector<const SegmentPlan*> plans(d.segments.size());
  int mode_idx = 0, point = static_cast<int>(state[0].size()) - 1;
  for (size_t k = d.segments.size(); k-- > 0;) {
    const Segment& seg = d.segments[k];
    const DpPoint& q = states[k][static_cast<size_t>(mode_idx)][static_cast<size_t>(point)];
    if (seg.out >= 0) a.mode[static_cast<size_t>(seg.out)] = modes_of(seg.out)[static_cast<size_t>(mode_idx)];
    const auto& f = fronts[k][static_cast<size_t>(q.prev_mode)][static_cast<size_t>(mode_idx)];
    const SegmentPlan& plan = f.front.points()[static_cast<size_t>(q.seg_point)].payload;
    for (size_t i = 0; i < seg.interior.size(); ++i)
      a.mode[static_cast<size_t>(seg.interior[i])] = plan.modes[i];
    plans[k] = &plan;
    mode_idx = q.prev_mode;
    point = q.prev_point;
  }
  std::vector<int> host_order;
  for (size_t k = 0; k < d.segments.size(); ++k) {
    host_order.insert(host_order.end(), plans[k]->host_order.begin(), plans[k]->host_order.end());
    const int out = d.segments[k].out;
    if (out >= 0 && a.mode[static_cast<size_t>(out)] == kHost) host_order.push_back(out);
  }
  r.schedule = simulate(p, a, host_order);
  const double tol = time_tolerance(p) * static_cast<double>(d.segments.size() + 1);
  if (std::abs(r.schedule.makespan - optimum) > tol)
    throw internal_error("exact solver: the DP optimum ", optimum, " s differs from the replayed ",
                         "makespan ", r.schedule.makespan, " s");
  r.status = SolveStatus::Optimal;
  r.makespan = r.schedule.makespan;
  r.bound = r.makespan;
  r.seconds = deadline.elapsed();
  return r;
}

void require_clean(const Problem& p, const ExactResult& r, bool check_budget) {
  for (const Violation& v : check(p, r.schedule)) {
    if (!check_budget && v.kind == ViolationKind::Budget) continue;
    throw internal_error("exact solver produced an invalid schedule: ", v.message);
  }
}

}  // namespace

ExactResult solve_exact(const Problem& p, const ExactOptions& opt) {
  p.validate();
  if (!(opt.time_limit_seconds > 0.0))
    throw user_error("exact solver: time limit ", opt.time_limit_seconds, " s, expected > 0");
  // Allowed modes: the host, then the accelerator modes that fit the budget and are not
  // dominated by another mode (no more crossbars and no slower): makespans are monotone in
  // latencies, so a dominated mode never helps.
  std::vector<std::vector<int>> allowed(p.size());
  for (size_t v = 0; v < p.size(); ++v) {
    allowed[v].push_back(kHost);
    const auto& modes = p.acc[v];
    for (size_t k = 0; k < modes.size(); ++k) {
      if (modes[k].crossbars > p.crossbar_budget) continue;
      bool dominated = false;
      for (size_t j = 0; j < modes.size() && !dominated; ++j) {
        if (j == k) continue;
        const bool no_worse = modes[j].crossbars <= modes[k].crossbars && modes[j].t_acc <= modes[k].t_acc;
        const bool better = modes[j].crossbars < modes[k].crossbars || modes[j].t_acc < modes[k].t_acc;
        dominated = no_worse && (better || j < k);  // among equal modes keep the first
      }
      if (!dominated) allowed[v].push_back(static_cast<int>(k));
    }
  }
  ExactResult r = run(p, allowed, p.crossbar_budget, all_host(p), opt);
  require_clean(p, r, true);
  return r;
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
  ExactResult r = run(p, allowed, std::numeric_limits<int64_t>::max(), a, opt);
  require_clean(p, r, false);
  return r;
}

}  // namespace hetcim::partition
