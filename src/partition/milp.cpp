#include "partition/milp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <queue>
#include <set>
#include <string>

#include "graph/dag.h"
#include "partition/energy.h"
#include "partition/milp_model.h"
#include "util/error.h"
#include "util/files.h"

namespace hetcim::partition {
namespace {

void validate_options(const MilpOptions& o) {
  if (!(o.time_limit_seconds > 0.0))
    throw user_error("MILP options: time_limit_seconds = ", o.time_limit_seconds, ", expected > 0");
  if (!(o.relative_gap >= 0.0) || !std::isfinite(o.relative_gap))
    throw user_error("MILP options: relative_gap = ", o.relative_gap, ", expected >= 0");
  if (o.threads < 1) throw user_error("MILP options: threads = ", o.threads, ", expected >= 1");
}

Assignment assignment_from(const Problem& p, const MilpModel& m, const double* sol) {
  Assignment a{std::vector<int>(p.size(), kHost)};
  for (size_t v = 0; v < p.size(); ++v) {
    if (sol[m.x0 + static_cast<int>(v)] > 0.5) continue;
    if (p.acc[v].size() == 1) {
      a.mode[v] = 0;
    } else if (m.y_first[v] >= 0) {
      size_t best = 0;
      for (size_t k = 1; k < p.acc[v].size(); ++k)
        if (sol[m.y_first[v] + static_cast<int>(k)] > sol[m.y_first[v] + static_cast<int>(best)])
          best = k;
      a.mode[v] = static_cast<int>(best);
    }
  }
  return a;
}

}  // namespace

JobOrders orders_from_start_times(const Problem& p, const Assignment& a,
                                  const std::vector<double>& start,
                                  const std::vector<double>& transfer_start) {
  const size_t n = p.size();
  const bool serial = p.bus_model == BusModel::Serial;
  const std::vector<Transfer> ts = serial ? implied_transfers(p, a) : std::vector<Transfer>{};
  const size_t nt = ts.size();
  HETCIM_ASSERT(start.size() == n && a.mode.size() == n && transfer_start.size() == nt,
                "orders_from_start_times: ", start.size(), " start times and ",
                transfer_start.size(), " transfer starts for ", n, " operators and ", nt,
                " transfers");
  // Jobs: operators 0..n-1, transfers n..n+nt-1 (only on a serial bus: on a parallel one no
  // order is asked of them). Arcs: producer -> transfer -> consumers, other edges direct.
  std::vector<std::vector<int>> succ(n + nt);
  std::vector<int> indeg(n + nt, 0);
  const auto arc = [&](size_t from, size_t to) {
    succ[from].push_back(static_cast<int>(to));
    ++indeg[to];
  };
  std::set<std::pair<int, int>> crossing;
  for (size_t t = 0; t < nt; ++t) {
    arc(static_cast<size_t>(ts[t].producer), n + t);
    for (int v : ts[t].consumers) {
      arc(n + t, static_cast<size_t>(v));
      crossing.insert({ts[t].producer, v});
    }
  }
  for (auto [u, v] : p.dag.edges)
    if (!crossing.count({u, v})) arc(static_cast<size_t>(u), static_cast<size_t>(v));
  // Keys: the midpoints of the intervals. Two jobs that one machine (the host, the bus) runs in
  // turn have midpoints at least half their durations apart, so rounding below that cannot swap
  // them; a start alone could (a job of 0 s starting where the next one does).
  std::vector<double> mid(n + nt);
  for (size_t v = 0; v < n; ++v)
    mid[v] = start[v] + 0.5 * p.duration(static_cast<int>(v), a.mode[v]);
  for (size_t t = 0; t < nt; ++t)
    mid[n + t] = transfer_start[t] + 0.5 * transfer_duration(p, ts[t]);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (size_t j = 0; j < n + nt; ++j)
    if (indeg[j] == 0) ready.push({mid[j], static_cast<int>(j)});
  JobOrders out;
  size_t listed = 0;
  while (!ready.empty()) {
    const auto j = static_cast<size_t>(ready.top().second);
    ready.pop();
    ++listed;
    if (j < n && a.mode[j] == kHost) out.host.push_back(static_cast<int>(j));
    if (j >= n) out.bus.push_back(ts[j - n].key);
    for (int w : succ[j])
      if (--indeg[static_cast<size_t>(w)] == 0) ready.push({mid[static_cast<size_t>(w)], w});
  }
  HETCIM_ASSERT(listed == n + nt, "orders_from_start_times: the DAG has a cycle");
  return out;
}

MilpResult solve_milp(const Problem& p, const MilpOptions& opt) {
  validate_options(opt);
  const MilpModel m = build_milp_model(p, opt);
  MilpResult r;
  r.stats = m.stats;

  const CbcOutcome cbc = run_cbc(m, cbc_options(opt));
  if (!take_outcome(cbc, m.unit, r)) return r;
  const double* sol = cbc.solution.data();
  r.solver_objective = cbc.objective * m.unit;

  // Replay: the incumbent's assignment with the host and bus orders of its start times.
  const Assignment a = assignment_from(p, m, sol);
  std::vector<double> start(p.size());
  for (size_t v = 0; v < p.size(); ++v) start[v] = sol[m.s0 + static_cast<int>(v)] * m.unit;
  std::vector<double> transfer_start;
  if (p.bus_model == BusModel::Serial) {
    std::map<std::pair<int, bool>, double> b;  // (producer or edge key, to_host) -> start
    const bool per_tensor = p.transfer_model == TransferModel::PerTensorDirection;
    for (const MilpModel::BusJob& j : m.bus)
      b[{per_tensor ? j.producer : j.key, j.to_host}] = sol[j.b] * m.unit;
    for (const Transfer& t : implied_transfers(p, a))
      transfer_start.push_back(b.at({per_tensor ? t.producer : t.key, per_tensor && t.to_host}));
  }
  const JobOrders orders = orders_from_start_times(p, a, start, transfer_start);
  r.schedule = simulate(p, a, orders.host, orders.bus);
  r.objective = objective_value(p, r.schedule);
  for (const Violation& v : check(p, r.schedule))
    throw internal_error("MILP incumbent replays to an invalid schedule: ", v.message);
  const double eps =
      1e-6 * (m.stats.big_m_seconds + std::abs(r.solver_objective)) + time_tolerance(p);
  if (r.objective > r.solver_objective + eps)
    throw internal_error("MILP incumbent replays to objective ", r.objective,
                         " s, above CBC's objective ", r.solver_objective, " s");
  if (r.status == SolveStatus::Optimal && opt.relative_gap == 0.0 &&
      r.objective < r.solver_objective - eps)
    throw internal_error("CBC's proven optimum ", r.solver_objective,
                         " s is beaten by its own replayed schedule, ", r.objective, " s");
  r.bound = std::min(r.bound, r.objective);
  if (r.status == SolveStatus::Optimal && opt.relative_gap == 0.0) r.bound = r.objective;
  r.gap = r.objective > 0.0 ? std::max(0.0, (r.objective - r.bound) / r.objective) : 0.0;
  return r;
}

std::string milp_file_text(const Problem& p, MilpFileFormat format, const MilpOptions& opt) {
  const MilpModel m = build_milp_model(p, opt);
  return linear_model_text(m, m.unit, format, "makespan",
                           {"hetcim: Klein et al. 2026's partitioning MILP (partition/milp.h)",
                            "s, f, C_max, latencies, big-M",
                            "the makespan in seconds",
                            {}});
}

void write_milp(const Problem& p, const std::string& path, MilpFileFormat format,
                const MilpOptions& opt) {
  write_file_atomically(path, milp_file_text(p, format, opt));
}

}  // namespace hetcim::partition
