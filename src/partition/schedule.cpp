#include "partition/schedule.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "graph/dag.h"
#include "util/error.h"

namespace hetcim::partition {

Assignment all_host(const Problem& p) {
  return Assignment{std::vector<int>(p.size(), kHost)};
}

int64_t crossbars_used(const Problem& p, const Assignment& a) {
  int64_t c = 0;
  for (size_t v = 0; v < p.size(); ++v) c += p.crossbars(static_cast<int>(v), a.mode[v]);
  return c;
}

int64_t drop_used(const Problem& p, const Assignment& a) {
  int64_t d = 0;
  for (size_t v = 0; v < p.size(); ++v) d += p.drop(static_cast<int>(v), a.mode[v]);
  return d;
}

namespace {

bool mode_ok(const Problem& p, int v, int mode) {
  return mode == kHost ||
         (mode >= 0 && static_cast<size_t>(mode) < p.acc[static_cast<size_t>(v)].size());
}

}  // namespace

void require_valid_assignment(const Problem& p, const Assignment& a) {
  if (a.mode.size() != p.size())
    throw user_error("assignment: ", a.mode.size(), " modes for ", p.size(), " operators");
  for (size_t v = 0; v < p.size(); ++v)
    if (!mode_ok(p, static_cast<int>(v), a.mode[v]))
      throw user_error("assignment: operator '", p.names[v], "' has no mode ", a.mode[v],
                       " (it has ", p.acc[v].size(), " accelerator modes; -1 = host)");
}

std::vector<Transfer> implied_transfers(const Problem& p, const Assignment& a) {
  std::vector<Transfer> out;
  // Per producer and direction (to_host) -> index in out, for the per-tensor model.
  std::map<std::pair<int, bool>, size_t> tensor;
  for (size_t e = 0; e < p.dag.edges.size(); ++e) {
    const auto [u, v] = p.dag.edges[e];
    const bool u_host = a.mode[static_cast<size_t>(u)] == kHost;
    if (u_host == (a.mode[static_cast<size_t>(v)] == kHost)) continue;
    if (p.transfer_model == TransferModel::PerEdge) {
      out.push_back(Transfer{static_cast<int>(e), u, {v}, !u_host, 0.0, 0.0});
      continue;
    }
    auto [it, fresh] = tensor.try_emplace({u, !u_host}, out.size());
    if (fresh) out.push_back(Transfer{static_cast<int>(e), u, {}, !u_host, 0.0, 0.0});
    out[it->second].consumers.push_back(v);
  }
  return out;
}

double transfer_duration(const Problem& p, const Transfer& t) {
  return p.transfer_model == TransferModel::PerEdge ? p.t_transfer[static_cast<size_t>(t.key)]
                                                    : p.t_out[static_cast<size_t>(t.producer)];
}

namespace {

// Index of every host operator's predecessor in host_order (-1 for the first, -2 for operators
// not on the host), after checking that host_order lists exactly the host operators.
std::vector<int> host_chain(const Problem& p, const Assignment& a,
                            const std::vector<int>& host_order) {
  const size_t n = p.size();
  std::vector<int> prev(n, -2);
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
    if (prev[static_cast<size_t>(v)] != -2)
      throw user_error("host order lists operator '", p.names[static_cast<size_t>(v)], "' twice");
    prev[static_cast<size_t>(v)] = i == 0 ? -1 : host_order[i - 1];
  }
  return prev;
}

// Position of every transfer in bus_order (serial bus), after checking that it lists exactly the
// transfers of `transfers` by key.
std::vector<int> bus_positions(const Problem& p, const std::vector<Transfer>& transfers,
                               const std::vector<int>& bus_order) {
  std::vector<int> pos(transfers.size(), -1);
  if (p.bus_model == BusModel::Parallel) {
    if (!bus_order.empty())
      throw user_error("bus order given (", bus_order.size(),
                       " transfers) but the bus is parallel");
    return pos;
  }
  if (bus_order.size() != transfers.size())
    throw user_error("bus order lists ", bus_order.size(), " transfers, the assignment implies ",
                     transfers.size());
  std::map<int, size_t> by_key;
  for (size_t i = 0; i < transfers.size(); ++i) by_key[transfers[i].key] = i;
  for (size_t i = 0; i < bus_order.size(); ++i) {
    const auto it = by_key.find(bus_order[i]);
    if (it == by_key.end())
      throw user_error("bus order: no transfer with key ", bus_order[i],
                       " (a key is the index of the transfer's first edge)");
    if (pos[it->second] >= 0) throw user_error("bus order lists transfer ", bus_order[i], " twice");
    pos[it->second] = static_cast<int>(i);
  }
  return pos;
}

}  // namespace

std::optional<Schedule> try_simulate(const Problem& p, const Assignment& a,
                                     const std::vector<int>& host_order,
                                     const std::vector<int>& bus_order) {
  require_valid_assignment(p, a);
  const size_t n = p.size();
  const std::vector<int> host_prev = host_chain(p, a, host_order);
  std::vector<Transfer> transfers = implied_transfers(p, a);
  const std::vector<int> bus_pos = bus_positions(p, transfers, bus_order);
  const size_t nt = transfers.size();
  // Jobs: operators 0..n-1, transfers n..n+nt-1. Arcs: non-crossing edges, producer -> transfer
  // -> consumers, the host chain and the bus chain; every arc carries no delay.
  std::vector<std::vector<int>> succ(n + nt);
  std::vector<int> indeg(n + nt, 0);
  const auto arc = [&](size_t from, size_t to) {
    succ[from].push_back(static_cast<int>(to));
    ++indeg[to];
  };
  std::map<std::pair<int, int>, size_t> crossing;  // (producer, consumer) -> transfer
  for (size_t t = 0; t < nt; ++t) {
    arc(static_cast<size_t>(transfers[t].producer), n + t);
    for (int v : transfers[t].consumers) {
      arc(n + t, static_cast<size_t>(v));
      crossing[{transfers[t].producer, v}] = t;
    }
  }
  for (auto [u, v] : p.dag.edges)
    if (!crossing.count({u, v})) arc(static_cast<size_t>(u), static_cast<size_t>(v));
  for (size_t v = 0; v < n; ++v)
    if (host_prev[v] >= 0) arc(static_cast<size_t>(host_prev[v]), v);
  if (p.bus_model == BusModel::Serial) {
    std::vector<size_t> by_pos(nt);
    for (size_t t = 0; t < nt; ++t) by_pos[static_cast<size_t>(bus_pos[t])] = t;
    for (size_t i = 1; i < nt; ++i) arc(n + by_pos[i - 1], n + by_pos[i]);
  }
  std::vector<double> ready(n + nt, 0.0), finish(n + nt, 0.0);
  std::vector<int> stack;
  for (size_t j = 0; j < n + nt; ++j)
    if (indeg[j] == 0) stack.push_back(static_cast<int>(j));
  size_t done = 0;
  while (!stack.empty()) {
    const auto j = static_cast<size_t>(stack.back());
    stack.pop_back();
    ++done;
    const double d =
        j < n ? p.duration(static_cast<int>(j), a.mode[j]) : transfer_duration(p, transfers[j - n]);
    finish[j] = ready[j] + d;
    for (int w : succ[j]) {
      ready[static_cast<size_t>(w)] = std::max(ready[static_cast<size_t>(w)], finish[j]);
      if (--indeg[static_cast<size_t>(w)] == 0) stack.push_back(w);
    }
  }
  if (done != n + nt) return std::nullopt;
  Schedule s;
  s.assignment = a;
  s.host_order = host_order;
  s.bus_order = bus_order;
  s.start.assign(ready.begin(), ready.begin() + static_cast<std::ptrdiff_t>(n));
  s.finish.assign(finish.begin(), finish.begin() + static_cast<std::ptrdiff_t>(n));
  for (size_t t = 0; t < nt; ++t) {
    transfers[t].start = ready[n + t];
    transfers[t].finish = finish[n + t];
  }
  s.transfers = std::move(transfers);
  s.makespan = n == 0 ? 0.0 : *std::max_element(s.finish.begin(), s.finish.end());
  return s;
}

Schedule simulate(const Problem& p, const Assignment& a, const std::vector<int>& host_order,
                  const std::vector<int>& bus_order) {
  std::optional<Schedule> s = try_simulate(p, a, host_order, bus_order);
  if (s) return std::move(*s);
  const std::vector<DynBitset> reach = graph::transitive_closure(p.dag);
  for (size_t i = 0; i < host_order.size(); ++i)
    for (size_t j = i + 1; j < host_order.size(); ++j)
      if (reach[static_cast<size_t>(host_order[j])].test(static_cast<size_t>(host_order[i])))
        throw user_error("host order: operator '", p.names[static_cast<size_t>(host_order[i])],
                         "' is placed before one of its (transitive) predecessors, '",
                         p.names[static_cast<size_t>(host_order[j])], "'");
  throw user_error(
      "host and bus orders deadlock: a transfer or host operator is placed before "
      "something it waits for");
}

Schedule simulate_in_topological_order(const Problem& p, const Assignment& a) {
  require_valid_assignment(p, a);
  const std::vector<int> topo = graph::topological_order(p.dag);
  std::vector<int> pos(p.size());
  std::vector<int> host_order, bus_order;
  for (size_t i = 0; i < topo.size(); ++i) {
    pos[static_cast<size_t>(topo[i])] = static_cast<int>(i);
    if (a.mode[static_cast<size_t>(topo[i])] == kHost) host_order.push_back(topo[i]);
  }
  if (p.bus_model == BusModel::Serial) {
    std::vector<Transfer> ts = implied_transfers(p, a);
    std::stable_sort(ts.begin(), ts.end(), [&](const Transfer& x, const Transfer& y) {
      return pos[static_cast<size_t>(x.producer)] < pos[static_cast<size_t>(y.producer)];
    });
    for (const Transfer& t : ts) bus_order.push_back(t.key);
  }
  return simulate(p, a, host_order, bus_order);
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

namespace {

// The transfers of `s` against those its assignment implies: the same set, each as long as its
// model says, starting after its producer and arriving before its consumers; on a serial bus,
// one at a time and listed by bus_order in start order.
void check_transfers(const Problem& p, const Schedule& s, double tol, std::vector<Violation>& out) {
  const auto name = [&](int v) { return "'" + p.names[static_cast<size_t>(v)] + "'"; };
  const std::vector<Transfer> want = implied_transfers(p, s.assignment);
  std::map<int, const Transfer*> have;
  for (const Transfer& t : s.transfers) have[t.key] = &t;
  bool complete = have.size() == s.transfers.size() && have.size() == want.size();
  for (const Transfer& w : want) {
    const auto it = have.find(w.key);
    if (it == have.end() || it->second->producer != w.producer ||
        it->second->consumers != w.consumers || it->second->to_host != w.to_host) {
      complete = false;
      out.push_back({ViolationKind::Transfer, w.producer, -1,
                     detail::concat("the transfer of ", name(w.producer), "'s output to the ",
                                    w.to_host ? "host" : "accelerator",
                                    " is missing or differs from the assignment")});
      continue;
    }
    const Transfer& t = *it->second;
    const double d = transfer_duration(p, w);
    if (std::abs(t.finish - t.start - d) > tol)
      out.push_back({ViolationKind::Transfer, w.producer, -1,
                     detail::concat("the transfer of ", name(w.producer), " takes ",
                                    t.finish - t.start, " s, the bus needs ", d, " s")});
    if (t.start < s.finish[static_cast<size_t>(w.producer)] - tol)
      out.push_back({ViolationKind::Transfer, w.producer, -1,
                     detail::concat("the transfer of ", name(w.producer), " starts at ", t.start,
                                    " before its producer finishes at ",
                                    s.finish[static_cast<size_t>(w.producer)])});
    for (int v : w.consumers)
      if (s.start[static_cast<size_t>(v)] < t.finish - tol)
        out.push_back({ViolationKind::Transfer, v, w.producer,
                       detail::concat("operator ", name(v), " starts at ",
                                      s.start[static_cast<size_t>(v)], " before the transfer of ",
                                      name(w.producer), " arrives at ", t.finish)});
  }
  if (!complete && have.size() != want.size())
    out.push_back({ViolationKind::Transfer, -1, -1,
                   detail::concat("the schedule lists ", s.transfers.size(),
                                  " transfers, the assignment implies ", want.size())});
  if (p.bus_model != BusModel::Serial || !complete) return;
  std::vector<const Transfer*> by_start;
  for (const Transfer& t : s.transfers) by_start.push_back(&t);
  std::stable_sort(by_start.begin(), by_start.end(), [](const Transfer* x, const Transfer* y) {
    return x->start < y->start || (x->start == y->start && x->finish < y->finish);
  });
  for (size_t i = 1; i < by_start.size(); ++i)
    if (by_start[i]->start < by_start[i - 1]->finish - tol)
      out.push_back({ViolationKind::BusOverlap, by_start[i]->producer, by_start[i - 1]->producer,
                     detail::concat("transfers of ", name(by_start[i - 1]->producer), " [",
                                    by_start[i - 1]->start, ", ", by_start[i - 1]->finish, ") and ",
                                    name(by_start[i]->producer), " [", by_start[i]->start, ", ",
                                    by_start[i]->finish, ") overlap on the serial bus")});
  bool same = s.bus_order.size() == by_start.size();
  for (size_t i = 0; same && i < by_start.size(); ++i)
    same = s.bus_order[i] == by_start[i]->key ||
           (have.count(s.bus_order[i]) &&
            std::abs(have.at(s.bus_order[i])->start - by_start[i]->start) <= tol);
  if (!same)
    out.push_back({ViolationKind::BusOrder, -1, -1,
                   "bus_order does not list the transfers in order of their start"});
}

}  // namespace

std::vector<Violation> check(const Problem& p, const Schedule& s) {
  std::vector<Violation> out;
  const size_t n = p.size();
  const auto name = [&](int v) { return "'" + p.names[static_cast<size_t>(v)] + "'"; };
  if (s.assignment.mode.size() != n || s.start.size() != n || s.finish.size() != n) {
    out.push_back(
        {ViolationKind::Shape, -1, -1,
         detail::concat("schedule has ", s.assignment.mode.size(), " modes, ", s.start.size(),
                        " starts and ", s.finish.size(), " finishes for ", n, " operators")});
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
    const int64_t drop = drop_used(p, s.assignment);
    if (p.has_accuracy() && drop > p.drop_budget_ppm)
      out.push_back(
          {ViolationKind::AccuracyBudget, -1, -1,
           detail::concat("accuracy cost ", drop, " ppm > budget ", p.drop_budget_ppm, " ppm")});
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
                                    s.start[static_cast<size_t>(v)], " before ", need,
                                    " (finish of ", name(u), cross ? " plus its transfer)" : ")")});
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
      same =
          listed == host[i] || (listed >= 0 && static_cast<size_t>(listed) < n &&
                                std::abs(s.start[static_cast<size_t>(listed)] - s.start[a]) <= tol);
    }
    if (!same)
      out.push_back({ViolationKind::HostOrder, -1, -1,
                     "host_order does not list the host operators in order of their start"});
  }
  if (modes_valid) check_transfers(p, s, tol, out);
  const double fmax = n == 0 ? 0.0 : *std::max_element(s.finish.begin(), s.finish.end());
  if (std::abs(fmax - s.makespan) > tol)
    out.push_back({ViolationKind::Makespan, -1, -1,
                   detail::concat("makespan ", s.makespan, " != latest finish ", fmax)});
  return out;
}

}  // namespace hetcim::partition
