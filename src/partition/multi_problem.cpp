#include "partition/multi_problem.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::partition {
namespace {

bool finite_nonneg(double x) {
  return std::isfinite(x) && x >= 0.0;
}

}  // namespace

void MultiProblem::validate() const {
  const size_t n = dag.n;
  const size_t k = engines.size();
  if (dag.succ.size() != n || dag.pred.size() != n)
    throw user_error("K-engine problem: the DAG adjacency is not built (use Dag::from_edges)");
  if (names.size() != n)
    throw user_error("K-engine problem: ", names.size(), " names for ", n, " operators");
  if (options.size() != n)
    throw user_error("K-engine problem: ", options.size(), " option lists for ", n, " operators");
  if (edge_bytes.size() != dag.edges.size())
    throw user_error("K-engine problem: ", edge_bytes.size(), " edge sizes for ", dag.edges.size(),
                     " edges");
  if (k == 0) throw user_error("K-engine problem: no engine");
  for (size_t e = 0; e < k; ++e) {
    const MultiEngine& g = engines[e];
    for (size_t f = 0; f < e; ++f)
      if (engines[f].name == g.name)
        throw user_error("K-engine problem: engine '", g.name, "' is listed twice");
    if (g.capacity == 0 || g.capacity < -1)
      throw user_error("engine '", g.name, "': capacity ", g.capacity, ", expected >= 1 (or none)");
    if (!finite_nonneg(g.static_power) || !finite_nonneg(g.idle_power))
      throw user_error("engine '", g.name, "': static and idle power must be finite and >= 0");
    if (!finite_nonneg(g.endurance))
      throw user_error("engine '", g.name, "': endurance must be finite and >= 0");
  }
  std::vector<int> group_of(k, -1);
  for (size_t i = 0; i < exclusive.size(); ++i) {
    if (exclusive[i].size() < 2)
      throw user_error("exclusive group ", i, ": expected at least two engines, got ",
                       exclusive[i].size());
    for (int e : exclusive[i]) {
      if (e < 0 || static_cast<size_t>(e) >= k)
        throw user_error("exclusive group ", i, ": engine index ", e, " out of range");
      if (group_of[static_cast<size_t>(e)] == static_cast<int>(i))
        throw user_error("exclusive group ", i, ": engine '", engines[static_cast<size_t>(e)].name,
                         "' is listed twice");
      if (group_of[static_cast<size_t>(e)] >= 0)
        throw user_error("engine '", engines[static_cast<size_t>(e)].name,
                         "' is in two exclusive groups (", group_of[static_cast<size_t>(e)],
                         " and ", i, "); merge them into one");
      group_of[static_cast<size_t>(e)] = static_cast<int>(i);
    }
  }
  // Idle time is makespan minus busy time only on an engine that runs one job at a time.
  for (size_t e = 0; e < k; ++e)
    if (engines[e].idle_power > 0 && !engines[e].one_at_a_time && group_of[e] < 0)
      throw user_error("engine '", engines[e].name,
                       "': an idle power needs an engine that runs one job at a time");
  std::vector<char> pair(k * k, 0);
  for (const MultiLink& l : links) {
    if (l.engines.size() < 2)
      throw user_error("link '", l.name, "': expected at least two engines, got ",
                       l.engines.size());
    if (!finite_nonneg(l.latency) || !(l.bandwidth > 0) || std::isnan(l.bandwidth) ||
        !finite_nonneg(l.e_byte))
      throw user_error("link '", l.name,
                       "': latency and e_byte must be finite and >= 0, bandwidth > 0");
    for (size_t i = 0; i < l.engines.size(); ++i) {
      const int a = l.engines[i];
      if (a < 0 || static_cast<size_t>(a) >= k)
        throw user_error("link '", l.name, "': engine index ", a, " out of range");
      for (size_t j = 0; j < i; ++j) {
        const int b = l.engines[j];
        if (a == b)
          throw user_error("link '", l.name, "': engine '", engines[static_cast<size_t>(a)].name,
                           "' is listed twice");
        char& seen = pair[static_cast<size_t>(a) * k + static_cast<size_t>(b)];
        if (seen)
          throw user_error("link '", l.name, "': engines '", engines[static_cast<size_t>(a)].name,
                           "' and '", engines[static_cast<size_t>(b)].name,
                           "' are already joined by another link");
        seen = 1;
        pair[static_cast<size_t>(b) * k + static_cast<size_t>(a)] = 1;
      }
    }
  }
  for (size_t v = 0; v < n; ++v) {
    if (options[v].empty()) throw user_error("operator '", names[v], "': no engine supports it");
    for (size_t o = 0; o < options[v].size(); ++o) {
      const MultiOption& opt = options[v][o];
      if (opt.engine < 0 || static_cast<size_t>(opt.engine) >= k)
        throw user_error("operator '", names[v], "': option ", o, " names engine ", opt.engine,
                         ", out of range");
      const MultiEngine& g = engines[static_cast<size_t>(opt.engine)];
      if (!finite_nonneg(opt.duration) || !finite_nonneg(opt.energy))
        throw user_error("operator '", names[v], "' on '", g.name,
                         "': duration and energy must be finite and >= 0");
      if (opt.capacity < 0 || (g.capacity < 0 && opt.capacity != 0))
        throw user_error("operator '", names[v], "' on '", g.name, "': capacity use ", opt.capacity,
                         (g.capacity < 0 ? " on an engine without a capacity" : ""));
      if (opt.cells_written < 0)
        throw user_error("operator '", names[v], "' on '", g.name, "': cells written ",
                         opt.cells_written, ", expected >= 0");
      if (opt.reprogram && (g.capacity < 0 || opt.capacity < 1))
        throw user_error("operator '", names[v], "' on '", g.name,
                         "': a reprogrammed option needs an engine with a capacity and a "
                         "capacity use >= 1");
      if (opt.reprogram && !g.one_at_a_time && group_of[static_cast<size_t>(opt.engine)] < 0)
        throw user_error("operator '", names[v], "' on '", g.name,
                         "': reprogramming needs an engine that runs one job at a time (the "
                         "reprogrammed operators share one area)");
    }
  }
  for (size_t e = 0; e < dag.edges.size(); ++e)
    if (!finite_nonneg(edge_bytes[e]))
      throw user_error("edge '", names[static_cast<size_t>(dag.edges[e].first)], "' -> '",
                       names[static_cast<size_t>(dag.edges[e].second)],
                       "': bytes must be finite and >= 0");
  if (!finite_nonneg(latency_weight) || !finite_nonneg(energy_weight) ||
      latency_weight + energy_weight <= 0)
    throw user_error("K-engine problem: objective weights (latency ", latency_weight, ", energy ",
                     energy_weight, ") must be >= 0 and not both 0");
}

MultiMachines multi_machines(const MultiProblem& p) {
  MultiMachines m;
  const size_t k = p.engines.size();
  m.engines = k;
  m.engine_machine.assign(k, -1);
  for (const std::vector<int>& group : p.exclusive) {
    std::string name;
    for (int e : group) {
      m.engine_machine[static_cast<size_t>(e)] = static_cast<int>(m.machine_names.size());
      name += (name.empty() ? "" : "|") + p.engines[static_cast<size_t>(e)].name;
    }
    m.machine_names.push_back(name);
  }
  for (size_t e = 0; e < k; ++e)
    if (m.engine_machine[e] < 0 && p.engines[e].one_at_a_time) {
      m.engine_machine[e] = static_cast<int>(m.machine_names.size());
      m.machine_names.push_back(p.engines[e].name);
    }
  m.link_machine.assign(p.links.size(), -1);
  m.link_between.assign(k * k, -1);
  for (size_t l = 0; l < p.links.size(); ++l) {
    if (p.links[l].serial) {
      m.link_machine[l] = static_cast<int>(m.machine_names.size());
      m.machine_names.push_back("link " + p.links[l].name);
    }
    for (int a : p.links[l].engines)
      for (int b : p.links[l].engines)
        if (a != b) m.link_between[static_cast<size_t>(a) * k + static_cast<size_t>(b)] = int(l);
  }
  return m;
}

std::vector<int64_t> multi_capacity_used(const MultiProblem& p, const std::vector<int>& option) {
  std::vector<int64_t> used(p.engines.size(), 0), reserved(p.engines.size(), 0);
  for (size_t v = 0; v < p.size(); ++v) {
    const MultiOption& o = p.options[v][static_cast<size_t>(option[v])];
    const auto e = static_cast<size_t>(o.engine);
    if (o.reprogram)
      reserved[e] = std::max(reserved[e], o.capacity);
    else
      used[e] += o.capacity;
  }
  for (size_t e = 0; e < used.size(); ++e) used[e] += reserved[e];
  return used;
}

std::vector<MultiWear> multi_wear(const MultiProblem& p, const std::vector<int>& option) {
  std::vector<MultiWear> w(p.engines.size());
  for (size_t v = 0; v < p.size(); ++v) {
    const MultiOption& o = p.options[v][static_cast<size_t>(option[v])];
    if (!o.reprogram) continue;
    MultiWear& x = w[static_cast<size_t>(o.engine)];
    ++x.reprogrammed;
    x.reserved = std::max(x.reserved, o.capacity);
    x.cells_written += o.cells_written;
    x.write_seconds += o.write_seconds;
    x.write_energy += o.write_energy;
  }
  for (size_t e = 0; e < w.size(); ++e)
    w[e].lifetime_inferences =
        w[e].reprogrammed == 0 ? std::numeric_limits<double>::infinity()
                               : p.engines[e].endurance / static_cast<double>(w[e].reprogrammed);
  return w;
}

double transfer_time(const MultiProblem& p, size_t e, int link) {
  const MultiLink& l = p.links[static_cast<size_t>(link)];
  return l.latency + p.edge_bytes[e] / l.bandwidth;
}

double transfer_energy(const MultiProblem& p, size_t e, int link) {
  return p.links[static_cast<size_t>(link)].e_byte * p.edge_bytes[e];
}

}  // namespace hetcim::partition
