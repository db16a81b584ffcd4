#include "partition/multi_schedule.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::partition {
namespace {

const std::string& op_name(const MultiProblem& p, int v) {
  return p.names[static_cast<size_t>(v)];
}

int engine_of(const MultiProblem& p, const std::vector<int>& option, int v) {
  return p.option(v, option[static_cast<size_t>(v)]).engine;
}

void require_assignment(const MultiProblem& p, const std::vector<int>& option) {
  if (option.size() != p.size())
    throw user_error("assignment: ", option.size(), " options for ", p.size(), " operators");
  for (size_t v = 0; v < p.size(); ++v)
    if (option[v] < 0 || static_cast<size_t>(option[v]) >= p.options[v].size())
      throw user_error("assignment: operator '", p.names[v], "' has no option ", option[v],
                       " (it has ", p.options[v].size(), ")");
  const std::vector<int64_t> used = multi_capacity_used(p, option);
  for (size_t e = 0; e < p.engines.size(); ++e)
    if (p.engines[e].capacity >= 0 && used[e] > p.engines[e].capacity)
      throw user_error("assignment: engine '", p.engines[e].name, "' holds ", used[e],
                       " units, its capacity is ", p.engines[e].capacity);
}

}  // namespace

double multi_energy(const MultiProblem& p, const std::vector<int>& option, double makespan) {
  const MultiMachines m = multi_machines(p);
  double e = 0.0;
  std::vector<double> busy(p.engines.size(), 0.0);
  for (size_t v = 0; v < p.size(); ++v) {
    const MultiOption& o = p.options[v][static_cast<size_t>(option[v])];
    e += o.energy;
    busy[static_cast<size_t>(o.engine)] += o.duration;
  }
  for (size_t i = 0; i < p.dag.edges.size(); ++i) {
    const int a = engine_of(p, option, p.dag.edges[i].first);
    const int b = engine_of(p, option, p.dag.edges[i].second);
    if (a != b && m.link(a, b) >= 0) e += transfer_energy(p, i, m.link(a, b));
  }
  for (size_t g = 0; g < p.engines.size(); ++g)
    e += p.engines[g].static_power * makespan +
         p.engines[g].idle_power * std::max(0.0, makespan - busy[g]);
  return e;
}

std::vector<int> multi_default_order(const MultiProblem& p, const std::vector<int>& option) {
  require_assignment(p, option);
  const MultiMachines m = multi_machines(p);
  std::vector<int> order;
  for (int v : graph::topological_order(p.dag)) {
    order.push_back(v);
    for (size_t i = 0; i < p.dag.edges.size(); ++i) {
      if (p.dag.edges[i].first != v) continue;
      const int a = engine_of(p, option, v), b = engine_of(p, option, p.dag.edges[i].second);
      if (a != b && m.link(a, b) >= 0 && p.links[static_cast<size_t>(m.link(a, b))].serial)
        order.push_back(static_cast<int>(p.size() + i));
    }
  }
  return order;
}

MultiSchedule multi_simulate(const MultiProblem& p, const std::vector<int>& option,
                             const std::vector<int>& order) {
  require_assignment(p, option);
  const size_t n = p.size(), ne = p.dag.edges.size();
  const MultiMachines m = multi_machines(p);
  // Per edge: link (-1 if on one engine), and whether it is a job (serial link).
  std::vector<int> link(ne, -1);
  std::vector<char> is_job(ne, 0);
  size_t jobs = n;
  for (size_t i = 0; i < ne; ++i) {
    const auto [u, v] = p.dag.edges[i];
    const int a = engine_of(p, option, u), b = engine_of(p, option, v);
    if (a == b) continue;
    link[i] = m.link(a, b);
    if (link[i] < 0)
      throw user_error("assignment: edge '", op_name(p, u), "' -> '", op_name(p, v),
                       "' crosses from engine '", p.engines[static_cast<size_t>(a)].name, "' to '",
                       p.engines[static_cast<size_t>(b)].name, "', which no link joins");
    if (p.links[static_cast<size_t>(link[i])].serial) {
      is_job[i] = 1;
      ++jobs;
    }
  }
  if (order.size() != jobs)
    throw user_error("job list has ", order.size(), " jobs, the assignment has ", jobs,
                     " (operators and transfers on serial links)");
  // Edges into each operator, by index.
  std::vector<std::vector<size_t>> in_edges(n);
  for (size_t i = 0; i < ne; ++i) in_edges[static_cast<size_t>(p.dag.edges[i].second)].push_back(i);
  MultiSchedule s;
  s.option = option;
  s.order = order;
  s.start.assign(n, 0.0);
  s.finish.assign(n, 0.0);
  std::vector<char> done(n + ne, 0);
  std::vector<double> t_start(ne, 0.0), t_finish(ne, 0.0);
  std::vector<double> free_at(m.machine_names.size(), 0.0);
  for (int j : order) {
    if (j < 0 || static_cast<size_t>(j) >= n + ne ||
        (static_cast<size_t>(j) >= n && !is_job[static_cast<size_t>(j) - n]))
      throw user_error("job list: ", j, " is neither an operator nor a transfer on a serial link");
    const auto ju = static_cast<size_t>(j);
    if (done[ju]) throw user_error("job list: job ", j, " is listed twice");
    done[ju] = 1;
    if (ju >= n) {  // a transfer on a serial link
      const size_t i = ju - n;
      const auto u = static_cast<size_t>(p.dag.edges[i].first);
      if (!done[u])
        throw user_error("job list: the transfer of '", p.names[u], "' -> '",
                         op_name(p, p.dag.edges[i].second), "' comes before its producer");
      const int mm = m.link_machine[static_cast<size_t>(link[i])];
      t_start[i] = std::max(s.finish[u], free_at[static_cast<size_t>(mm)]);
      t_finish[i] = t_start[i] + transfer_time(p, i, link[i]);
      free_at[static_cast<size_t>(mm)] = t_finish[i];
      continue;
    }
    double ready = 0.0;
    for (size_t i : in_edges[ju]) {
      const auto u = static_cast<size_t>(p.dag.edges[i].first);
      if (!done[u] || (is_job[i] && !done[n + i]))
        throw user_error("job list: operator '", p.names[ju], "' comes before its input from '",
                         p.names[u], "'", is_job[i] ? " (or its transfer)" : "");
      if (link[i] < 0) {
        ready = std::max(ready, s.finish[u]);
      } else if (is_job[i]) {
        ready = std::max(ready, t_finish[i]);
      } else {
        t_start[i] = s.finish[u];
        t_finish[i] = s.finish[u] + transfer_time(p, i, link[i]);
        ready = std::max(ready, t_finish[i]);
      }
    }
    const MultiOption& o = p.option(j, option[ju]);
    const int mm = m.engine_machine[static_cast<size_t>(o.engine)];
    if (mm >= 0) ready = std::max(ready, free_at[static_cast<size_t>(mm)]);
    s.start[ju] = ready;
    s.finish[ju] = ready + o.duration;
    if (mm >= 0) free_at[static_cast<size_t>(mm)] = s.finish[ju];
  }
  for (size_t i = 0; i < ne; ++i)
    if (link[i] >= 0)
      s.transfers.push_back({static_cast<int>(i), link[i], t_start[i], t_finish[i]});
  s.makespan = n == 0 ? 0.0 : *std::max_element(s.finish.begin(), s.finish.end());
  s.energy = multi_energy(p, option, s.makespan);
  s.objective = p.latency_weight * s.makespan + p.energy_weight * s.energy;
  return s;
}

double multi_time_tolerance(const MultiProblem& p) {
  double total = 0.0;
  for (const auto& opts : p.options) {
    double mx = 0.0;
    for (const MultiOption& o : opts) mx = std::max(mx, o.duration);
    total += mx;
  }
  for (size_t i = 0; i < p.dag.edges.size(); ++i)
    for (size_t l = 0; l < p.links.size(); ++l)
      total += std::isfinite(transfer_time(p, i, static_cast<int>(l)))
                   ? transfer_time(p, i, static_cast<int>(l))
                   : 0.0;
  return 1e-9 * std::max(total, 1e-12);
}

std::vector<MultiViolation> multi_check(const MultiProblem& p, const MultiSchedule& s) {
  std::vector<MultiViolation> out;
  const size_t n = p.size();
  const auto add = [&](MultiViolationKind k, auto&&... parts) {
    out.push_back({k, detail::concat(parts...)});
  };
  if (s.option.size() != n || s.start.size() != n || s.finish.size() != n) {
    add(MultiViolationKind::Shape, "schedule has ", s.option.size(), " options, ", s.start.size(),
        " starts and ", s.finish.size(), " finishes for ", n, " operators");
    return out;
  }
  for (size_t v = 0; v < n; ++v)
    if (s.option[v] < 0 || static_cast<size_t>(s.option[v]) >= p.options[v].size())
      add(MultiViolationKind::Option, "operator '", p.names[v], "' runs option ", s.option[v],
          ", it has ", p.options[v].size());
  if (!out.empty()) return out;
  const double tol = multi_time_tolerance(p);
  const MultiMachines m = multi_machines(p);
  const std::vector<int64_t> used = multi_capacity_used(p, s.option);
  for (size_t e = 0; e < p.engines.size(); ++e)
    if (p.engines[e].capacity >= 0 && used[e] > p.engines[e].capacity)
      add(MultiViolationKind::Capacity, "engine '", p.engines[e].name, "' holds ", used[e],
          " units > capacity ", p.engines[e].capacity);
  // Machine intervals: (machine, start, finish, what).
  struct Interval {
    int machine;
    double start, finish;
    std::string what;
  };
  std::vector<Interval> busy;
  for (size_t v = 0; v < n; ++v) {
    const MultiOption& o = p.options[v][static_cast<size_t>(s.option[v])];
    if (std::abs(s.finish[v] - s.start[v] - o.duration) > tol)
      add(MultiViolationKind::Duration, "operator '", p.names[v], "' runs ",
          s.finish[v] - s.start[v], " s, its option takes ", o.duration, " s");
    if (s.start[v] < -tol)
      add(MultiViolationKind::Precedence, "operator '", p.names[v], "' starts at ", s.start[v],
          " < 0");
    const int mm = m.engine_machine[static_cast<size_t>(o.engine)];
    if (mm >= 0) busy.push_back({mm, s.start[v], s.finish[v], "operator '" + p.names[v] + "'"});
  }
  std::vector<const MultiTransfer*> by_edge(p.dag.edges.size(), nullptr);
  for (const MultiTransfer& t : s.transfers) {
    if (t.edge < 0 || static_cast<size_t>(t.edge) >= p.dag.edges.size() ||
        by_edge[static_cast<size_t>(t.edge)]) {
      add(MultiViolationKind::Transfer, "transfer of edge ", t.edge, " is unknown or listed twice");
      continue;
    }
    by_edge[static_cast<size_t>(t.edge)] = &t;
  }
  for (size_t i = 0; i < p.dag.edges.size(); ++i) {
    const auto u = static_cast<size_t>(p.dag.edges[i].first);
    const auto v = static_cast<size_t>(p.dag.edges[i].second);
    const int a = p.options[u][static_cast<size_t>(s.option[u])].engine;
    const int b = p.options[v][static_cast<size_t>(s.option[v])].engine;
    const std::string edge = "edge '" + p.names[u] + "' -> '" + p.names[v] + "'";
    const MultiTransfer* t = by_edge[i];
    if (a == b) {
      if (t) add(MultiViolationKind::Transfer, edge, " stays on one engine but has a transfer");
      if (s.start[v] < s.finish[u] - tol)
        add(MultiViolationKind::Precedence, "operator '", p.names[v], "' starts at ", s.start[v],
            " before '", p.names[u], "' finishes at ", s.finish[u]);
      continue;
    }
    const int l = m.link(a, b);
    if (l < 0) {
      add(MultiViolationKind::NoLink, edge, " crosses from '",
          p.engines[static_cast<size_t>(a)].name, "' to '", p.engines[static_cast<size_t>(b)].name,
          "', which no link joins");
      continue;
    }
    if (!t || t->link != l) {
      add(MultiViolationKind::Transfer, edge, " has no transfer on link '",
          p.links[static_cast<size_t>(l)].name, "'");
      continue;
    }
    if (std::abs(t->finish - t->start - transfer_time(p, i, l)) > tol)
      add(MultiViolationKind::Transfer, edge, ": the transfer takes ", t->finish - t->start,
          " s, the link needs ", transfer_time(p, i, l), " s");
    if (t->start < s.finish[u] - tol)
      add(MultiViolationKind::Transfer, edge, ": the transfer starts at ", t->start,
          " before its producer finishes at ", s.finish[u]);
    if (s.start[v] < t->finish - tol)
      add(MultiViolationKind::Precedence, "operator '", p.names[v], "' starts at ", s.start[v],
          " before its input from '", p.names[u], "' arrives at ", t->finish);
    if (m.link_machine[static_cast<size_t>(l)] >= 0)
      busy.push_back(
          {m.link_machine[static_cast<size_t>(l)], t->start, t->finish, "the transfer of " + edge});
  }
  std::stable_sort(busy.begin(), busy.end(), [](const Interval& x, const Interval& y) {
    return x.machine < y.machine ||
           (x.machine == y.machine &&
            (x.start < y.start || (x.start == y.start && x.finish < y.finish)));
  });
  for (size_t i = 1; i < busy.size(); ++i)
    if (busy[i].machine == busy[i - 1].machine && busy[i].start < busy[i - 1].finish - tol)
      add(MultiViolationKind::Overlap, busy[i - 1].what, " [", busy[i - 1].start, ", ",
          busy[i - 1].finish, ") and ", busy[i].what, " [", busy[i].start, ", ", busy[i].finish,
          ") overlap on ", m.machine_names[static_cast<size_t>(busy[i].machine)]);
  const double fmax = n == 0 ? 0.0 : *std::max_element(s.finish.begin(), s.finish.end());
  if (std::abs(fmax - s.makespan) > tol)
    add(MultiViolationKind::Makespan, "makespan ", s.makespan, " != latest finish ", fmax);
  const double energy = multi_energy(p, s.option, s.makespan);
  const double objective = p.latency_weight * s.makespan + p.energy_weight * energy;
  if (std::abs(energy - s.energy) > 1e-9 * std::max(1e-12, std::abs(energy)) ||
      std::abs(objective - s.objective) > 1e-9 * std::max(1e-12, std::abs(objective)))
    add(MultiViolationKind::Objective, "energy ", s.energy, " J / objective ", s.objective,
        " != recomputed ", energy, " J / ", objective);
  return out;
}

}  // namespace hetcim::partition
