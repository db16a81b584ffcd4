#include "partition/schedule.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "partition/exact.h"
#include "util/error.h"

namespace hetcim::partition {

Assignment all_host(const Problem& p) { return Assignment{std::vector<int>(p.size(), kHost)}; }

int64_t crossbars_used(const Problem& p, const Assignment& a) {
  int64_t c = 0;
  for (size_t v = 0; v < p.size(); ++v) c += p.crossbars(static_cast<int>(v), a.mode[v]);
  return c;
}

namespace {

bool mode_ok(const Problem& p, int v, int mode) {
  return mode == kHost ||
         (mode >= 0 && static_cast<size_t>(mode) < p.acc[static_cast<size_t>(v)].size());
}

void require_valid_assignment(const Problem& p, const Assignment& a) {
  if (a.mode.size() != p.size())
    throw user_error("assignment: ", a.mode.size(), " modes for ", p.size(), " operators");
  for (size_t v = 0; v < p.size(); ++v)
    if (!mode_ok(p, static_cast<int>(v), a.mode[v]))
      throw user_error("assignment: operator '", p.names[v], "' has no mode ", a.mode[v], " (it has ",
                       p.acc[v].size(), " accelerator modes; -1 = host)");
}

std::vector<Transfer> transfers_of(const Problem& p, const Assignment& a,
                                   const std::vector<double>& finish) {
  std::vector<Transfer> out;
  // Per producer and direction (to_host) -> index in out, for the per-tensor model.
  std::map<std::pair<int, bool>, size_t> tensor;
  for (size_t e = 0; e < p.dag.edges.size(); ++e) {
    const auto [u, v] = p.dag.edges[e];
    const bool u_host = a.mode[static_cast<size_t>(u)] == kHost;
    if (u_host == (a.mode[static_cast<size_t>(v)] == kHost)) continue;
    const double f = finish[static_cast<size_t>(u)];
    if (p.transfer_model == TransferModel::PerEdge) {
      out.push_back(Transfer{u, {v}, !u_host, f, f + p.t_transfer[e]});
      continue;
    }
    auto [it, fresh] = tensor.try_emplace({u, !u_host}, out.size());
    if (fresh) out.push_back(Transfer{u, {}, !u_host, f, f + p.t_out[static_cast<size_t>(u)]});
    out[it->second].consumers.push_back(v);
  }
  return out;
}

}  // namespace

Schedule simulate(const Problem& p, const Assignment& a, const std::vector<int>& host_order) {
  require_valid_assignment(p, a);
  const size_t n = p.size();
  // host_prev[v]: the host operator run just before v (-1 for the first, -2 for non-host).
  std::vector<int> host_prev(n, -2);
  size_t n_host = 0;
  for (size_t v = 0; v < n; ++v) n_host += a.mode[v] == kHost ? 1 : 0;
  if (host_order.size() != n_host)
    throw user_error("host order lists ", host_order.size(), " operators, the assignment puts ",
                     n_host, " on the host");
  for (size_t i = 0; i < host_order.size(); ++i) {
    const int v = host_order[i];
    if (v < 0 || static_cast<size_t>(v) >= n)
      throw user_error("host order: operator index ", v, " out of range 0..", n - 1);
    if (a.mode[static_cast<size_t>(v)] != kHost)
      throw user_error("host order lists operator '", p.names[static_cast<size_t>(v)],
                       "', which the assignment puts on the accelerator");
    if (host_prev[static_cast<size_t>(v)] != -2)
      throw user_error("host order lists operator '", p.names[static_cast<size_t>(v)], "' twice");
    host_prev[static_cast<size_t>(v)] = i == 0 ? -1 : host_order[i - 1];
  }
  // Kahn's algorithm over the DAG plus the host chain.
  std::vector<int> indeg(n, 0);
  for (size_t v = 0; v < n; ++v)
    indeg[v] = static_cast<int>(p.dag.pred[v].size()) + (host_prev[v] >= 0 ? 1 : 0);
  std::vector<int> host_next(n, -1);
  for (size_t i = 0; i + 1 < host_order.size(); ++i)
    host_next[static_cast<size_t>(host_order[i])] = host_order[i + 1];
  std::vector<double> ready(n, 0.0);
  std::vector<int> stack;
  for (size_t v = 0; v < n; ++v)
    if (indeg[v] == 0) stack.push_back(static_cast<int>(v));
  Schedule s;
  s.assignment = a;
  s.host_order = host_order;
  s.start.assign(n, 0.0);
  s.finish.assign(n, 0.0);
  std::vector<std::vector<std::pair<int, size_t>>> out_edges(n);
  for (size_t e = 0; e < p.dag.edges.size(); ++e)
    out_edges[static_cast<size_t>(p.dag.edges[e].first)].emplace_back(p.dag.edges[e].second, e);
  size_t done = 0;
  while (!stack.empty()) {
    const auto v = static_cast<size_t>(stack.back());
    stack.pop_back();
    ++done;
    s.start[v] = ready[v];
    s.finish[v] = ready[v] + p.duration(static_cast<int>(v), a.mode[v]);
    const bool v_host = a.mode[v] == kHost;
    for (auto [w, e] : out_edges[v]) {
      const bool cross = v_host != (a.mode[static_cast<size_t>(w)] == kHost);
      const double arrive = s.finish[v] + (cross ? p.edge_transfer(e) : 0.0);
      ready[static_cast<size_t>(w)] = std::max(ready[static_cast<size_t>(w)], arrive);
      if (--indeg[static_cast<size_t>(w)] == 0) stack.push_back(w);
    }
    if (const int w = host_next[v]; w >= 0) {
      ready[static_cast<size_t>(w)] = std::max(ready[static_cast<size_t>(w)], s.finish[v]);
      if (--indeg[static_cast<size_t>(w)] == 0) stack.push_back(w);
    }
  }
  if (done != n) {
    for (size_t i = 0; i < host_order.size(); ++i)
      if (indeg[static_cast<size_t>(host_order[i])] > 0)
        throw user_error("host order: operator '", p.names[static_cast<size_t>(host_order[i])],
                         "' is placed before one of its (transitive) predecessors");
    throw internal_error("simulate: deadlock without a misplaced host operator");
  }
  s.makespan = n == 0 ? 0.0 : *std::max_element(s.finish.begin(), s.finish.end());
  s.transfers = transfers_of(p, a, s.finish);
  return s;
}

Schedule simulate_best(const Problem& p, const Assignment& a) {
  require_valid_assignment(p, a);
  ExactResult r = sequence_exact(p, a);
  if (r.status != SolveStatus::Optimal)
    throw internal_error("simulate_best: exact sequencing did not finish without a time limit");
  return std::move(r.schedule);
}

const char* violation_kind_name(ViolationKind k) {
  switch (k) {
    case ViolationKind::Shape: return "shape";
    case ViolationKind::UnsupportedMode: return "unsupported-mode";
    case ViolationKind::Budget: return "budget";
    case ViolationKind::Duration: return "duration";
    case ViolationKind::NegativeStart: return "negative-start";
    case ViolationKind::Precedence: return "precedence";
    case ViolationKind::HostOverlap: return "host-overlap";
    case ViolationKind::HostOrder: return "host-order";
    case ViolationKind::Makespan: return "makespan";
  }
  return "?";
}

double time_tolerance(const Problem& p) {
  double total = 0.0;
  for (size_t v = 0; v < p.size(); ++v) {
    double m = p.t_host[v];
    for (const AccMode& k : p.acc[v]) m = std::max(m, k.t_acc);
    total += m;
  }
  for (size_t e = 0; e < p.dag.edges.size(); ++e) total += p.edge_transfer(e);
  return 1e-9 * std::max(total, 1e-12);
}

std::vector<Violation> check(const Problem& p, const Schedule& s) {
  std::vector<Violation> out;
  const size_t n = p.size();
  const auto name = [&](int v) { return "'" + p.names[static_cast<size_t>(v)] + "'"; };
  if (s.assignment.mode.size() != n || s.start.size() != n || s.finish.size() != n) {
    out.push_back({ViolationKind::Shape, -1, -1,
                   detail::concat("schedule has ", s.assignment.mode.size(), " modes, ",
                                  s.start.size(), " starts and ", s.finish.size(),
                                  " finishes for ", n, " operators")});
    return out;
  }
  const double tol = time_tolerance(p);
  bool modes_valid = true;
  for (size_t v = 0; v < n; ++v) {
    const int iv = static_cast<int>(v);
    if (!mode_ok(p, iv, s.assignment.mode[v])) {
      modes_valid = false;
      out.push_back({ViolationKind::UnsupportedMode, iv, -1,
                     detail::concat("operator ", name(iv), " runs in mode ", s.assignment.mode[v],
                                    ", it offers ", p.acc[v].size(), " accelerator modes")});
    }
  }
  if (modes_valid) {
    const int64_t used = crossbars_used(p, s.assignment);
    if (used > p.crossbar_budget)
      out.push_back({ViolationKind::Budget, -1, -1,
                     detail::concat("crossbars used ", used, " > budget ", p.crossbar_budget)});
  }
  for (size_t v = 0; v < n; ++v) {
    const int iv = static_cast<int>(v);
    if (s.start[v] < -tol)
      out.push_back({ViolationKind::NegativeStart, iv, -1,
                     detail::concat("operator ", name(iv), " starts at ", s.start[v])});
    if (modes_valid) {
      const double d = p.duration(iv, s.assignment.mode[v]);
      if (std::abs(s.finish[v] - s.start[v] - d) > tol)
        out.push_back({ViolationKind::Duration, iv, -1,
                       detail::concat("operator ", name(iv), " runs ", s.finish[v] - s.start[v],
                                      " s, its mode takes ", d, " s")});
    }
  }
  for (size_t e = 0; e < p.dag.edges.size(); ++e) {
    const auto [u, v] = p.dag.edges[e];
    const bool cross = (s.assignment.mode[static_cast<size_t>(u)] == kHost) !=
                       (s.assignment.mode[static_cast<size_t>(v)] == kHost);
    const double need = s.finish[static_cast<size_t>(u)] + (cross ? p.edge_transfer(e) : 0.0);
    if (s.start[static_cast<size_t>(v)] < need - tol)
      out.push_back({ViolationKind::Precedence, v, u,
                     detail::concat("operator ", name(v), " starts at ",
                                    s.start[static_cast<size_t>(v)], " before ", need, " (finish of ",
                                    name(u), cross ? " plus its transfer)" : ")")});
  }
  std::vector<int> host;
  for (size_t v = 0; v < n; ++v)
    if (s.assignment.mode[v] == kHost) host.push_back(static_cast<int>(v));
  std::stable_sort(host.begin(), host.end(), [&](int x, int y) {
    const auto xi = static_cast<size_t>(x), yi = static_cast<size_t>(y);
    return s.start[xi] < s.start[yi] || (s.start[xi] == s.start[yi] && s.finish[xi] < s.finish[yi]);
  });
  for (size_t i = 1; i < host.size(); ++i) {
    const auto a = static_cast<size_t>(host[i - 1]), b = static_cast<size_t>(host[i]);
    if (s.start[b] < s.finish[a] - tol)
      out.push_back({ViolationKind::HostOverlap, host[i], host[i - 1],
                     detail::concat("host operators ", name(host[i - 1]), " [", s.start[a], ", ",
                                    s.finish[a], ") and ", name(host[i]), " [", s.start[b], ", ",
                                    s.finish[b], ") overlap")});
  }
  if (!s.host_order.empty() || !host.empty()) {
    bool same = s.host_order.size() == host.size();
    for (size_t i = 0; same && i < host.size(); ++i) {
      const auto a = static_cast<size_t>(host[i]);
      const int listed = s.host_order[i];
      // Equal starts (zero-length operators) may be listed either way.
      same = listed == host[i] ||
             (listed >= 0 && static_cast<size_t>(listed) < n &&
              std::abs(s.start[static_cast<size_t>(listed)] - s.start[a]) <= tol);
    }
    if (!same)
      out.push_back({ViolationKind::HostOrder, -1, -1,
                     "host_order does not list the host operators in order of their start"});
  }
  const double fmax = n == 0 ? 0.0 : *std::max_element(s.finish.begin(), s.finish.end());
  if (std::abs(fmax - s.makespan) > tol)
    out.push_back({ViolationKind::Makespan, -1, -1,
                   detail::concat("makespan ", s.makespan, " != latest finish ", fmax)});
  return out;
}

}  // namespace hetcim::partition
