#include "partition/multi_milp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "graph/dag.h"
#include "partition/cbc.h"
#include "util/error.h"

namespace hetcim::partition {
namespace {

using Terms = std::vector<std::pair<int, double>>;

std::string number(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

void validate_options(const MultiMilpOptions& o) {
  if (!(o.time_limit_seconds > 0.0))
    throw user_error("K-engine MILP options: time_limit_seconds = ", o.time_limit_seconds,
                     ", expected > 0");
  if (!(o.relative_gap >= 0.0) || !std::isfinite(o.relative_gap))
    throw user_error("K-engine MILP options: relative_gap = ", o.relative_gap, ", expected >= 0");
  if (o.threads < 1)
    throw user_error("K-engine MILP options: threads = ", o.threads, ", expected >= 1");
  if (!(o.time_unit_seconds >= 0.0) || !std::isfinite(o.time_unit_seconds))
    throw user_error("K-engine MILP options: time_unit_seconds = ", o.time_unit_seconds,
                     ", expected >= 0");
}

// The links that may carry edge e: one per pair of engines its endpoints' options can sit on.
std::vector<int> usable_links(const MultiProblem& p, const MultiMachines& mm, size_t e) {
  const auto [u, v] = p.dag.edges[e];
  std::vector<int> links;
  for (const MultiOption& a : p.options[static_cast<size_t>(u)])
    for (const MultiOption& b : p.options[static_cast<size_t>(v)]) {
      if (a.engine == b.engine) continue;
      const int l = mm.link(a.engine, b.engine);
      if (l >= 0 && std::find(links.begin(), links.end(), l) == links.end()) links.push_back(l);
    }
  std::sort(links.begin(), links.end());
  return links;
}

struct Model : LinearModel {
  std::vector<std::vector<int>> y;  // per operator and option
  std::vector<int> s, f;
  int cmax = -1;
  std::vector<std::map<int, int>> t;  // per edge: link -> t column
  std::vector<std::map<int, int>> b;  // per edge: serial link -> start column
  double unit = 1.0;
  MultiMilpStats stats;
};

class Builder {
 public:
  explicit Builder(const MultiProblem& p, const MultiMilpOptions& opt)
      : p_(p), opt_(opt), mm_(multi_machines(p)) {}

  Model build() {
    const size_t n = p_.size(), ne = p_.dag.edges.size();
    const double big_m_s = multi_milp_big_m(p_);
    m_.unit = opt_.time_unit_seconds > 0.0 ? opt_.time_unit_seconds
              : big_m_s > 0.0              ? std::pow(10.0, std::floor(std::log10(big_m_s / 1e3)))
                                           : 1.0;
    const double big_m = big_m_s / m_.unit;
    const double lw = p_.latency_weight, ew = p_.energy_weight;

    // Assignment, times, finish.
    m_.y.resize(n);
    for (size_t v = 0; v < n; ++v) {
      Terms one;
      for (size_t k = 0; k < p_.options[v].size(); ++k) {
        const MultiOption& o = p_.options[v][k];
        const MultiEngine& g = p_.engines[static_cast<size_t>(o.engine)];
        // Energy of the option, less the idle power its engine saves while running it.
        const double cost = ew * (o.energy - g.idle_power * o.duration) / m_.unit;
        const int c =
            m_.add_col("y" + std::to_string(v) + "_" + std::to_string(k), 0, 1, cost, true);
        m_.y[v].push_back(c);
        one.push_back({c, 1.0});
        ++m_.stats.options;
      }
      m_.add_row("one" + std::to_string(v), std::move(one), 1, 1);
    }
    for (size_t v = 0; v < n; ++v)
      m_.s.push_back(m_.add_col("s" + std::to_string(v), 0, kInf, 0, false));
    for (size_t v = 0; v < n; ++v)
      m_.f.push_back(m_.add_col("f" + std::to_string(v), 0, kInf, 0, false));
    double power = 0.0;
    for (const MultiEngine& g : p_.engines) power += g.static_power + g.idle_power;
    m_.cmax = m_.add_col("Cmax", 0, kInf, lw + ew * power, false);
    for (size_t v = 0; v < n; ++v) {
      Terms r = {{m_.f[v], 1.0}, {m_.s[v], -1.0}};
      for (size_t k = 0; k < p_.options[v].size(); ++k)
        r.push_back({m_.y[v][k], -p_.options[v][k].duration / m_.unit});
      m_.add_row("fin" + std::to_string(v), std::move(r), 0, 0);
    }
    // Capacities: resident options add up; reprogrammed ones share a reserved area, a continuous
    // column R_g >= capacity * y of every reprogram option (the largest chosen footprint).
    for (size_t g = 0; g < p_.engines.size(); ++g) {
      if (p_.engines[g].capacity < 0) continue;
      Terms r;
      int reserve = -1;
      for (size_t v = 0; v < n; ++v)
        for (size_t k = 0; k < p_.options[v].size(); ++k) {
          const MultiOption& o = p_.options[v][k];
          if (o.engine != static_cast<int>(g) || o.capacity == 0) continue;
          if (!o.reprogram) {
            r.push_back({m_.y[v][k], static_cast<double>(o.capacity)});
            continue;
          }
          if (reserve < 0) {
            reserve = m_.add_col("R_" + p_.engines[g].name, 0,
                                 static_cast<double>(p_.engines[g].capacity), 0, false);
            r.push_back({reserve, 1.0});
          }
          m_.add_row("res" + std::to_string(v) + "_" + std::to_string(k),
                     {{reserve, 1.0}, {m_.y[v][k], -static_cast<double>(o.capacity)}}, 0, kInf);
        }
      if (!r.empty())
        m_.add_row("cap_" + p_.engines[g].name, std::move(r), -kInf,
                   static_cast<double>(p_.engines[g].capacity));
    }
    // Edges: links, transfers, precedence.
    m_.t.resize(ne);
    m_.b.resize(ne);
    std::vector<std::pair<size_t, int>> serial_jobs;  // (edge, link)
    for (size_t e = 0; e < ne; ++e) {
      const auto u = static_cast<size_t>(p_.dag.edges[e].first);
      const auto v = static_cast<size_t>(p_.dag.edges[e].second);
      const std::string tag = std::to_string(u) + "_" + std::to_string(v);
      forbid_unlinked(e, u, v, tag);
      Terms prec = {{m_.s[v], 1.0}, {m_.f[u], -1.0}};
      for (int l : usable_links(p_, mm_, e)) {
        const MultiLink& link = p_.links[static_cast<size_t>(l)];
        const double te = transfer_time(p_, e, l) / m_.unit;
        const int tc = m_.add_col("t" + tag + "_" + link.name, 0, 1,
                                  ew * transfer_energy(p_, e, l) / m_.unit, false);
        m_.t[e][l] = tc;
        for (int a : link.engines) {
          Terms r = {{tc, 1.0}};
          append(r, on_engine(u, a), -1.0);
          const size_t from = r.size();
          for (int bb : link.engines)
            if (bb != a) append(r, on_engine(v, bb), -1.0);
          if (from == 1 || r.size() == from) continue;  // u never on a, or v never across
          m_.add_row("cross" + tag + "_" + link.name + "_" + std::to_string(a), std::move(r), -1,
                     kInf);
        }
        if (!link.serial) {
          prec.push_back({tc, -te});
          continue;
        }
        const int bc = m_.add_col("b" + tag + "_" + link.name, 0, kInf, 0, false);
        m_.b[e][l] = bc;
        serial_jobs.emplace_back(e, l);
        m_.add_row("bready" + tag + "_" + link.name, {{bc, 1.0}, {m_.f[u], -1.0}}, 0, kInf);
        m_.add_row("bwait" + tag + "_" + link.name, {{m_.s[v], 1.0}, {bc, -1.0}, {tc, -te}}, 0,
                   kInf);
      }
      m_.add_row("prec" + tag, std::move(prec), 0, kInf);
    }
    // Machines: parallel pairs that may share one.
    const std::vector<DynBitset> reach = graph::transitive_closure(p_.dag);
    const std::vector<std::pair<int, int>> pairs = graph::parallel_pairs(reach);
    m_.stats.parallel_pairs = pairs.size();
    const size_t machines = mm_.machine_names.size();
    for (auto [uu, vv] : pairs) {
      const auto u = static_cast<size_t>(uu), v = static_cast<size_t>(vv);
      int o = -1;
      const std::string tag = std::to_string(u) + "_" + std::to_string(v);
      for (size_t mi = 0; mi < machines; ++mi) {
        const Terms au = on_machine(u, static_cast<int>(mi)),
                    av = on_machine(v, static_cast<int>(mi));
        if (au.empty() || av.empty()) continue;
        if (o < 0) o = m_.add_col("o" + tag, 0, 1, 0, true);
        const std::string mt = tag + "_m" + std::to_string(mi);
        Terms r1 = {{m_.s[v], 1.0}, {m_.f[u], -1.0}, {o, -big_m}};
        append(r1, au, -big_m);
        append(r1, av, -big_m);
        m_.add_row("ordA" + mt, std::move(r1), -3 * big_m, kInf);
        Terms r2 = {{m_.s[u], 1.0}, {m_.f[v], -1.0}, {o, big_m}};
        append(r2, au, -big_m);
        append(r2, av, -big_m);
        m_.add_row("ordB" + mt, std::move(r2), -2 * big_m, kInf);
        ++m_.stats.machine_pairs;
      }
    }
    // Serial links: transfers whose order the DAG leaves open are disjoint.
    const auto before = [&](size_t e1, size_t e2) {  // e1's consumer is, or reaches, e2's producer
      const int c = p_.dag.edges[e1].second, q = p_.dag.edges[e2].first;
      return c == q || reach[static_cast<size_t>(c)].test(static_cast<size_t>(q));
    };
    m_.stats.transfer_jobs = serial_jobs.size();
    for (size_t i = 0; i < serial_jobs.size(); ++i)
      for (size_t j = i + 1; j < serial_jobs.size(); ++j) {
        const auto [e1, l1] = serial_jobs[i];
        const auto [e2, l2] = serial_jobs[j];
        if (l1 != l2 || before(e1, e2) || before(e2, e1)) continue;
        const int b1 = m_.b[e1].at(l1), b2 = m_.b[e2].at(l2);
        const int t1 = m_.t[e1].at(l1), t2 = m_.t[e2].at(l2);
        const double d1 = transfer_time(p_, e1, l1) / m_.unit;
        const double d2 = transfer_time(p_, e2, l2) / m_.unit;
        const std::string tag = std::to_string(e1) + "_" + std::to_string(e2) + "_" +
                                p_.links[static_cast<size_t>(l1)].name;
        const int q = m_.add_col("q" + tag, 0, 1, 0, true);
        // q = 1: e1 first. b2 >= b1 + d1 - M (1 - q) - M (1 - t1) - M (1 - t2)
        m_.add_row("xferA" + tag, {{b2, 1.0}, {b1, -1.0}, {q, -big_m}, {t1, -big_m}, {t2, -big_m}},
                   d1 - 3 * big_m, kInf);
        // q = 0: e2 first. b1 >= b2 + d2 - M q - M (1 - t1) - M (1 - t2)
        m_.add_row("xferB" + tag, {{b1, 1.0}, {b2, -1.0}, {q, big_m}, {t1, -big_m}, {t2, -big_m}},
                   d2 - 2 * big_m, kInf);
        ++m_.stats.transfer_pairs;
      }
    for (size_t v = 0; v < n; ++v)
      if (p_.dag.succ[v].empty())
        m_.add_row("sink" + std::to_string(v), {{m_.cmax, 1.0}, {m_.f[v], -1.0}}, 0, kInf);

    MultiMilpStats& st = m_.stats;
    st.operators = n;
    st.edges = ne;
    for (char c : m_.is_int) st.binaries += c ? 1 : 0;
    st.continuous = m_.cols() - st.binaries;
    st.rows = m_.rows.size();
    st.big_m_seconds = big_m_s;
    st.time_unit_seconds = m_.unit;
    return std::move(m_);
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  Terms on_engine(size_t v, int g) const {
    Terms r;
    for (size_t k = 0; k < p_.options[v].size(); ++k)
      if (p_.options[v][k].engine == g) r.push_back({m_.y[v][k], 1.0});
    return r;
  }
  Terms on_machine(size_t v, int machine) const {
    Terms r;
    for (size_t k = 0; k < p_.options[v].size(); ++k)
      if (mm_.engine_machine[static_cast<size_t>(p_.options[v][k].engine)] == machine)
        r.push_back({m_.y[v][k], 1.0});
    return r;
  }
  static void append(Terms& r, const Terms& add, double scale) {
    for (auto [c, a] : add) r.push_back({c, a * scale});
  }

  // A_u,a + A_v,b <= 1 for every pair of distinct engines (a, b) that no link joins.
  void forbid_unlinked(size_t e, size_t u, size_t v, const std::string& tag) {
    (void)e;
    std::vector<std::pair<int, int>> done;
    for (const MultiOption& a : p_.options[u])
      for (const MultiOption& b : p_.options[v]) {
        if (a.engine == b.engine || mm_.link(a.engine, b.engine) >= 0) continue;
        const std::pair<int, int> key{a.engine, b.engine};
        if (std::find(done.begin(), done.end(), key) != done.end()) continue;
        done.push_back(key);
        Terms r = on_engine(u, a.engine);
        append(r, on_engine(v, b.engine), 1.0);
        m_.add_row("nolink" + tag + "_" + std::to_string(a.engine) + "_" + std::to_string(b.engine),
                   std::move(r), -kInf, 1);
      }
  }

  const MultiProblem& p_;
  const MultiMilpOptions& opt_;
  MultiMachines mm_;
  Model m_;
};

// The incumbent's jobs (operators and the transfers on serial links its assignment implies) as a
// list in the order of their MILP times that respects every input (Kahn's algorithm taking the
// earliest among the ready jobs, so tolerance-level ties cannot invert an arc). Jobs are keyed by
// the midpoints of their MILP intervals: two jobs that the MILP keeps apart on one machine (up to
// its tolerance) keep their order even when one of them lasts 0 s and starts where the other
// does, so the list schedule starts no job later than the MILP.
std::vector<int> order_by_start(const MultiProblem& p, const Model& m,
                                const std::vector<int>& option, const std::vector<double>& sol) {
  const size_t n = p.size(), ne = p.dag.edges.size();
  const MultiMachines mm = multi_machines(p);
  std::vector<std::vector<int>> succ(n + ne);
  std::vector<int> indeg(n + ne, 0);
  std::vector<double> start(n + ne, 0.0);
  std::vector<char> present(n + ne, 0);
  for (size_t v = 0; v < n; ++v) {
    present[v] = 1;
    start[v] = 0.5 * (sol[static_cast<size_t>(m.s[v])] + sol[static_cast<size_t>(m.f[v])]);
  }
  for (size_t e = 0; e < ne; ++e) {
    const auto [u, v] = p.dag.edges[e];
    const int a = p.option(u, option[static_cast<size_t>(u)]).engine;
    const int b = p.option(v, option[static_cast<size_t>(v)]).engine;
    const int l = a == b ? -1 : mm.link(a, b);
    if (l >= 0 && p.links[static_cast<size_t>(l)].serial) {
      const size_t j = n + e;
      present[j] = 1;
      start[j] = sol[static_cast<size_t>(m.b[e].at(l))] + 0.5 * transfer_time(p, e, l) / m.unit;
      succ[static_cast<size_t>(u)].push_back(static_cast<int>(j));
      succ[j].push_back(v);
      ++indeg[j];
      ++indeg[static_cast<size_t>(v)];
    } else {
      succ[static_cast<size_t>(u)].push_back(v);
      ++indeg[static_cast<size_t>(v)];
    }
  }
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (size_t j = 0; j < n + ne; ++j)
    if (present[j] && indeg[j] == 0) ready.push({start[j], static_cast<int>(j)});
  std::vector<int> order;
  while (!ready.empty()) {
    const int j = ready.top().second;
    ready.pop();
    order.push_back(j);
    for (int w : succ[static_cast<size_t>(j)])
      if (--indeg[static_cast<size_t>(w)] == 0) ready.push({start[static_cast<size_t>(w)], w});
  }
  return order;
}

}  // namespace

double multi_milp_big_m(const MultiProblem& p) {
  const MultiMachines mm = multi_machines(p);
  double m = 0.0;
  for (const std::vector<MultiOption>& opts : p.options) {
    double w = 0.0;
    for (const MultiOption& o : opts) w = std::max(w, o.duration);
    m += w;
  }
  for (size_t e = 0; e < p.dag.edges.size(); ++e) {
    double w = 0.0;
    for (int l : usable_links(p, mm, e)) w = std::max(w, transfer_time(p, e, l));
    m += w;
  }
  return m;
}

std::string multi_milp_file_text(const MultiProblem& p, MilpFileFormat format,
                                 const MultiMilpOptions& opt) {
  p.validate();
  validate_options(opt);
  const Model m = Builder(p, opt).build();
  return linear_model_text(
      m, m.unit, format, "objective",
      {"hetcim: the K-engine partitioning MILP (partition/multi_milp.h)",
       "s, f, b, Cmax, durations, transfer times, big-M",
       number(p.latency_weight) + " * makespan in seconds + " + number(p.energy_weight) +
           " * energy in joules",
       {"columns: y<v>_<k> operator v takes its option k (in the order of the problem JSON's "
        "options), s<v> / f<v> its start / finish, Cmax the makespan; t, b: transfers on links; "
        "o, q: order of two jobs on one machine or serial link; R_<engine>: its reprogramming "
        "area"}});
}

MultiMilpResult solve_multi_milp(const MultiProblem& p, const MultiMilpOptions& opt) {
  p.validate();
  validate_options(opt);
  const Model m = Builder(p, opt).build();
  MultiMilpResult r;
  r.stats = m.stats;
  const CbcOutcome cbc = run_cbc(m, cbc_options(opt));
  if (!take_outcome(cbc, m.unit, r)) return r;
  r.solver_objective = cbc.objective * m.unit;

  // Replay: per operator the option of largest y, jobs in the order of their start times.
  std::vector<int> option(p.size(), 0);
  for (size_t v = 0; v < p.size(); ++v)
    for (size_t k = 1; k < m.y[v].size(); ++k)
      if (cbc.solution[static_cast<size_t>(m.y[v][k])] >
          cbc.solution[static_cast<size_t>(m.y[v][static_cast<size_t>(option[v])])])
        option[v] = static_cast<int>(k);
  r.schedule = multi_simulate(p, option, order_by_start(p, m, option, cbc.solution));
  r.objective = r.schedule.objective;
  for (const MultiViolation& v : multi_check(p, r.schedule))
    throw internal_error("K-engine MILP incumbent replays to an invalid schedule: ", v.message);
  double power = 0.0;
  for (const MultiEngine& g : p.engines) power += g.static_power + g.idle_power;
  const double scale = (p.latency_weight + p.energy_weight * power) * m.stats.big_m_seconds;
  const double eps = 1e-6 * (scale + std::abs(r.solver_objective)) +
                     (p.latency_weight + p.energy_weight * power) * multi_time_tolerance(p);
  if (r.objective > r.solver_objective + eps)
    throw internal_error("K-engine MILP incumbent replays to objective ", r.objective,
                         ", above CBC's objective ", r.solver_objective);
  if (r.status == SolveStatus::Optimal && opt.relative_gap == 0.0 &&
      r.objective < r.solver_objective - eps)
    throw internal_error("CBC's proven optimum ", r.solver_objective,
                         " is beaten by its own replayed schedule, ", r.objective);
  r.bound = std::min(r.bound, r.objective);
  if (r.status == SolveStatus::Optimal && opt.relative_gap == 0.0) r.bound = r.objective;
  r.gap = r.objective > 0.0 ? std::max(0.0, (r.objective - r.bound) / r.objective) : 0.0;
  return r;
}

}  // namespace hetcim::partition
