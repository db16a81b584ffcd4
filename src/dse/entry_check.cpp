#include "dse/entry_check.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <tuple>
#include <vector>

#include "partition/energy.h"
#include "partition/summary.h"
#include "util/error.h"

namespace hetcim::dse {
namespace {

// Replayed numbers equal the solver's to the last bit (the same simulator on the same plan); the
// tolerance only absorbs a JSON round trip.
constexpr double kRel = 1e-9;

bool close(double stored, double derived) {
  return std::fabs(stored - derived) <= kRel * std::max(std::fabs(stored), std::fabs(derived));
}

std::string num(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

// An array of integers in [lo, hi] under `field`, or a reason.
std::string int_array(const nlohmann::json& j, const char* field, int64_t lo, int64_t hi,
                      std::vector<int>& out) {
  const auto it = j.find(field);
  if (it == j.end() || !it->is_array()) return std::string("no '") + field + "' array";
  out.clear();
  for (const nlohmann::json& v : *it) {
    if (!v.is_number_integer()) return std::string("'") + field + "' holds a non-integer";
    const int64_t x =
        v.is_number_unsigned() &&
                v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
            ? std::numeric_limits<int64_t>::max()
            : v.get<int64_t>();
    if (x < lo || x > hi)
      return std::string("'") + field + "' holds " + std::to_string(x) + " (expected " +
             std::to_string(lo) + ".." + std::to_string(hi) + ")";
    out.push_back(static_cast<int>(x));
  }
  return "";
}

std::string key_mismatch(const std::string& key, const nlohmann::json& j) {
  const auto it = j.find("key");
  if (it == j.end() || !it->is_string()) return "no 'key' field";
  if (it->get<std::string>() != key)
    return "written for the point of key " + it->get<std::string>() +
           " (an entry copied over another's)";
  return "";
}

std::string status_mismatch(const std::string& stored, double bound, double objective,
                            const std::string& limited) {
  if (bound > objective * (1 + kRel))
    return "a bound " + num(bound) + " above its plan's objective " + num(objective);
  const std::string derived = derived_status(bound, objective, limited);
  if (stored == derived) return "";
  if (stored == "optimal")
    return "status 'optimal' with a bound " + num(bound) + " below its plan's objective " +
           num(objective);
  return "status '" + stored + "' but its bound equals its plan's objective (proven optimal)";
}

}  // namespace

void derive_point_fields(const partition::Problem& p, const partition::Schedule& s, DsePoint& d) {
  const partition::Summary sum = partition::summarize(p, s);
  d.latency = s.makespan;
  d.cpu_only = sum.cpu_only;
  d.speedup = sum.speedup;
  d.host_ops = sum.host_ops;
  d.cim_ops = sum.cim_ops;
  d.host_busy = sum.host_busy;
  d.cim_busy = sum.cim_busy;
  d.crossbars_used = sum.crossbars_used;
  d.energy = d.cpu_only_energy = 0;
  if (p.has_energy()) {
    d.energy = partition::energy_of(p, s).total;
    d.cpu_only_energy =
        partition::energy_of(p, partition::simulate_in_topological_order(p, partition::all_host(p)))
            .total;
  }
}

std::string derived_status(double bound, double objective, const std::string& limited) {
  return bound >= objective * (1 - kRel) ? "optimal" : limited;
}

nlohmann::json plan_fields(const partition::Schedule& s) {
  return {
      {"assignment", s.assignment.mode}, {"host_order", s.host_order}, {"bus_order", s.bus_order}};
}

nlohmann::json multi_plan_fields(const partition::MultiSchedule& s) {
  return {{"option", s.option}, {"order", s.order}};
}

std::string entry_mismatch(const partition::Problem& p, const std::string& key,
                           const nlohmann::json& j, const DsePoint& d) {
  if (std::string why = key_mismatch(key, j); !why.empty()) return why;
  const auto n = static_cast<int64_t>(p.size());
  partition::Assignment a;
  std::vector<int> host_order, bus_order;
  std::string why = int_array(j, "assignment", partition::kHost, 1 << 20, a.mode);
  if (why.empty()) why = int_array(j, "host_order", 0, n - 1, host_order);
  if (why.empty())
    why = int_array(j, "bus_order", 0, static_cast<int64_t>(p.dag.edges.size()) - 1, bus_order);
  if (!why.empty()) return why;
  if (static_cast<int64_t>(a.mode.size()) != n)
    return "a plan of " + std::to_string(a.mode.size()) + " operators for a problem of " +
           std::to_string(n);
  partition::Schedule s;
  try {
    s = partition::simulate(p, a, host_order, bus_order);
  } catch (const UserError& e) {
    return std::string("a plan that does not replay on this point: ") + e.what();
  }
  if (const auto v = partition::check(p, s); !v.empty())
    return "a plan that breaks this point's problem: " + v.front().message;
  DsePoint r = d;
  derive_point_fields(p, s, r);
  for (const auto& [stored, derived, name] :
       {std::tuple{d.latency, r.latency, "latency"}, std::tuple{d.cpu_only, r.cpu_only, "cpu_only"},
        std::tuple{d.speedup, r.speedup, "speedup"},
        std::tuple{d.host_busy, r.host_busy, "host_busy"},
        std::tuple{d.cim_busy, r.cim_busy, "cim_busy"}, std::tuple{d.energy, r.energy, "energy"},
        std::tuple{d.cpu_only_energy, r.cpu_only_energy, "cpu_only_energy"}})
    if (!close(stored, derived))
      return std::string(name) + " " + num(stored) + " but its plan replays to " + num(derived);
  if (d.host_ops != r.host_ops || d.cim_ops != r.cim_ops)
    return "an operator split " + std::to_string(d.host_ops) + " host / " +
           std::to_string(d.cim_ops) + " CIM but its plan has " + std::to_string(r.host_ops) +
           " / " + std::to_string(r.cim_ops);
  if (d.crossbars_used != r.crossbars_used)
    return "crossbars_used " + std::to_string(d.crossbars_used) + " but its plan uses " +
           std::to_string(r.crossbars_used);
  return status_mismatch(d.status, d.bound, partition::objective_value(p, s), "time-limit");
}

std::string platform_entry_mismatch(const partition::MultiProblem& p, const std::string& key,
                                    const nlohmann::json& j, const PlatformDsePoint& d) {
  if (std::string why = key_mismatch(key, j); !why.empty()) return why;
  const auto n = static_cast<int64_t>(p.size());
  std::vector<int> option, order;
  std::string why = int_array(j, "option", 0, 1 << 20, option);
  if (why.empty())
    why = int_array(j, "order", 0, n + static_cast<int64_t>(p.dag.edges.size()) - 1, order);
  if (!why.empty()) return why;
  if (static_cast<int64_t>(option.size()) != n)
    return "a plan of " + std::to_string(option.size()) + " operators for a problem of " +
           std::to_string(n);
  partition::MultiSchedule s;
  try {
    s = partition::multi_simulate(p, option, order);
  } catch (const UserError& e) {
    return std::string("a plan that does not replay on this point: ") + e.what();
  }
  if (const auto v = partition::multi_check(p, s); !v.empty())
    return "a plan that breaks this point's problem: " + v.front().message;
  for (const auto& [stored, derived, name] :
       {std::tuple{d.latency, s.makespan, "latency"}, std::tuple{d.energy, s.energy, "energy"},
        std::tuple{d.objective, s.objective, "objective"}})
    if (!close(stored, derived))
      return std::string(name) + " " + num(stored) + " but its plan replays to " + num(derived);
  std::vector<int64_t> on(p.engines.size(), 0);
  for (size_t v = 0; v < p.size(); ++v)
    ++on[static_cast<size_t>(p.option(static_cast<int>(v), option[v]).engine)];
  if (d.operators_on != on) return "operator counts per engine that its plan does not have";
  if (d.capacity_used != partition::multi_capacity_used(p, option))
    return "capacity used per engine that its plan does not use";
  // A node limit is never set by the platform DSE: its limited solves stop on the clock.
  return status_mismatch(d.status, d.bound, s.objective,
                         d.status == "node-limit" ? "node-limit" : "time-limit");
}

}  // namespace hetcim::dse
