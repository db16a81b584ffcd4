#include "partition/multi_brute_force.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "util/error.h"

namespace hetcim::partition {
namespace {

struct Arc {
  int from, to;
  double delay;
};

}  // namespace

double multi_brute_force_work(const MultiProblem& p) {
  p.validate();
  const size_t n = p.size();
  const MultiMachines m = multi_machines(p);
  std::vector<int> option(n, 0);
  double total = 0.0;
  while (total < 1e300) {
    std::vector<double> jobs(m.machine_names.size(), 0.0);
    for (size_t v = 0; v < n; ++v) {
      const int mm = m.engine_machine[static_cast<size_t>(
          p.options[v][static_cast<size_t>(option[v])].engine)];
      if (mm >= 0) jobs[static_cast<size_t>(mm)] += 1;
    }
    for (size_t i = 0; i < p.dag.edges.size(); ++i) {
      const int a =
          p.option(p.dag.edges[i].first, option[static_cast<size_t>(p.dag.edges[i].first)]).engine;
      const int b =
          p.option(p.dag.edges[i].second, option[static_cast<size_t>(p.dag.edges[i].second)])
              .engine;
      if (a != b && m.link(a, b) >= 0 && m.link_machine[static_cast<size_t>(m.link(a, b))] >= 0)
        jobs[static_cast<size_t>(m.link_machine[static_cast<size_t>(m.link(a, b))])] += 1;
    }
    double w = 1.0;
    for (double k : jobs) w *= std::tgamma(k + 1);
    total += w;
    size_t v = 0;
    while (v < n && ++option[v] == static_cast<int>(p.options[v].size())) option[v++] = 0;
    if (v == n) break;
  }
  return std::min(total, 1e300);
}

MultiBruteForceResult solve_multi_brute_force(const MultiProblem& p,
                                              const MultiBruteForceOptions& opt) {
  p.validate();
  const size_t n = p.size(), ne = p.dag.edges.size();
  if (n > opt.max_operators)
    throw user_error("K-engine brute force: ", n, " operators, at most ", opt.max_operators);
  if (multi_brute_force_work(p) > opt.max_work)
    throw user_error("K-engine brute force: more than ", opt.max_work, " machine orders to try");
  const MultiMachines m = multi_machines(p);
  const size_t nm = m.machine_names.size();
  MultiBruteForceResult best;
  best.objective = std::numeric_limits<double>::infinity();
  std::vector<int> option(n, 0);
  const auto evaluate = [&] {
    const std::vector<int64_t> used = multi_capacity_used(p, option);
    for (size_t e = 0; e < p.engines.size(); ++e)
      if (p.engines[e].capacity >= 0 && used[e] > p.engines[e].capacity) return;
    // Jobs: operators, then one per serial transfer; arcs of the DAG with their delays.
    std::vector<double> dur(n);
    std::vector<int> machine(n);
    for (size_t v = 0; v < n; ++v) {
      const MultiOption& o = p.options[v][static_cast<size_t>(option[v])];
      dur[v] = o.duration;
      machine[v] = m.engine_machine[static_cast<size_t>(o.engine)];
    }
    std::vector<Arc> arcs;
    std::vector<int> link(ne, -1), tjob(ne, -1);
    for (size_t i = 0; i < ne; ++i) {
      const auto [u, v] = p.dag.edges[i];
      const int a = p.option(u, option[static_cast<size_t>(u)]).engine;
      const int b = p.option(v, option[static_cast<size_t>(v)]).engine;
      if (a == b) {
        arcs.push_back({u, v, 0.0});
        continue;
      }
      link[i] = m.link(a, b);
      if (link[i] < 0) return;
      const double t = transfer_time(p, i, link[i]);
      const int lm = m.link_machine[static_cast<size_t>(link[i])];
      if (lm < 0) {
        arcs.push_back({u, v, t});
      } else {
        tjob[i] = static_cast<int>(dur.size());
        dur.push_back(t);
        machine.push_back(lm);
        arcs.push_back({u, tjob[i], 0.0});
        arcs.push_back({tjob[i], v, 0.0});
      }
    }
    ++best.assignments;
    const size_t nj = dur.size();
    // Transitive precedence between jobs: a machine order against it always deadlocks, so only
    // orders that respect it are enumerated (every feasible order does).
    std::vector<std::vector<int>> out(nj);
    for (const Arc& a : arcs) out[static_cast<size_t>(a.from)].push_back(a.to);
    std::vector<std::vector<char>> reach(nj, std::vector<char>(nj, 0));
    for (size_t j = 0; j < nj; ++j) {
      std::vector<int> stack(out[j].begin(), out[j].end());
      while (!stack.empty()) {
        const auto w = static_cast<size_t>(stack.back());
        stack.pop_back();
        if (reach[j][w]) continue;
        reach[j][w] = 1;
        for (int x : out[w]) stack.push_back(x);
      }
    }
    std::vector<std::vector<int>> on(nm);
    for (size_t j = 0; j < nj; ++j)
      if (machine[j] >= 0) on[static_cast<size_t>(machine[j])].push_back(static_cast<int>(j));
    std::vector<std::vector<int>> seq(nm);
    const auto leaf = [&] {
      ++best.schedules;
      std::vector<std::vector<std::pair<int, double>>> succ(nj);
      std::vector<int> indeg(nj, 0);
      for (const Arc& a : arcs) {
        succ[static_cast<size_t>(a.from)].emplace_back(a.to, a.delay);
        ++indeg[static_cast<size_t>(a.to)];
      }
      for (const auto& jobs : seq)
        for (size_t i = 1; i < jobs.size(); ++i) {
          succ[static_cast<size_t>(jobs[i - 1])].emplace_back(jobs[i], 0.0);
          ++indeg[static_cast<size_t>(jobs[i])];
        }
      std::vector<double> start(nj, 0.0);
      std::vector<int> stack;
      for (size_t j = 0; j < nj; ++j)
        if (indeg[j] == 0) stack.push_back(static_cast<int>(j));
      size_t seen = 0;
      while (!stack.empty()) {
        const auto j = static_cast<size_t>(stack.back());
        stack.pop_back();
        ++seen;
        for (const auto& [w, d] : succ[j]) {
          start[static_cast<size_t>(w)] =
              std::max(start[static_cast<size_t>(w)], start[j] + dur[j] + d);
          if (--indeg[static_cast<size_t>(w)] == 0) stack.push_back(w);
        }
      }
      if (seen != nj) return;  // the machine orders deadlock
      double makespan = 0.0;
      for (size_t v = 0; v < n; ++v) makespan = std::max(makespan, start[v] + dur[v]);
      const double energy = multi_energy(p, option, makespan);
      const double obj = p.latency_weight * makespan + p.energy_weight * energy;
      if (obj >= best.objective) return;
      best.feasible = true;
      best.objective = obj;
      MultiSchedule s;
      s.option = option;
      s.start.assign(start.begin(), start.begin() + static_cast<std::ptrdiff_t>(n));
      for (size_t v = 0; v < n; ++v) s.finish.push_back(start[v] + dur[v]);
      for (size_t i = 0; i < ne; ++i) {
        if (link[i] < 0) continue;
        const auto u = static_cast<size_t>(p.dag.edges[i].first);
        const double t0 = tjob[i] >= 0 ? start[static_cast<size_t>(tjob[i])] : s.finish[u];
        s.transfers.push_back(
            {static_cast<int>(i), link[i], t0, t0 + transfer_time(p, i, link[i])});
      }
      s.makespan = makespan;
      s.energy = energy;
      s.objective = obj;
      best.schedule = std::move(s);
    };
    // Machine by machine, every order of its jobs that respects the precedence.
    std::vector<char> used_job(nj, 0);
    std::function<void(size_t)> fill = [&](size_t mi) {
      if (mi == nm) {
        leaf();
        return;
      }
      if (seq[mi].size() == on[mi].size()) {
        fill(mi + 1);
        return;
      }
      for (int j : on[mi]) {
        if (used_job[static_cast<size_t>(j)]) continue;
        bool free = true;
        for (int k : on[mi])
          if (!used_job[static_cast<size_t>(k)] && k != j &&
              reach[static_cast<size_t>(k)][static_cast<size_t>(j)])
            free = false;
        if (!free) continue;
        used_job[static_cast<size_t>(j)] = 1;
        seq[mi].push_back(j);
        fill(mi);
        seq[mi].pop_back();
        used_job[static_cast<size_t>(j)] = 0;
      }
    };
    fill(0);
  };
  while (true) {
    evaluate();
    size_t v = 0;
    while (v < n && ++option[v] == static_cast<int>(p.options[v].size())) option[v++] = 0;
    if (v == n) break;
  }
  return best;
}

}  // namespace hetcim::partition
