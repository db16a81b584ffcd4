#include "partition/milp_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "graph/dag.h"
#include "util/error.h"

namespace hetcim::partition {

double milp_big_m(const Problem& p) {
  double m = 0.0;
  for (size_t v = 0; v < p.size(); ++v) {
    double w = p.t_host[v];
    for (const AccMode& k : p.acc[v]) w = std::max(w, k.t_acc);
    m += w;
  }
  for (size_t e = 0; e < p.dag.edges.size(); ++e) m += p.edge_transfer(e);
  return m;
}

namespace {

double pick_unit(const Problem& p, const MilpOptions& opt) {
  if (opt.time_unit_seconds > 0.0) return opt.time_unit_seconds;
  const double m = milp_big_m(p);
  if (!(m > 0.0)) return 1.0;
  return std::pow(10.0, std::floor(std::log10(m / 1000.0)));
}

class Builder {
 public:
  Builder(const Problem& p, const MilpOptions& opt) : p_(p), opt_(opt) {}

  MilpModel build() {
    const size_t n = p_.size();
    m_.unit = pick_unit(p_, opt_);
    const double big_m = milp_big_m(p_) / m_.unit;
    const std::vector<DynBitset> reach = graph::transitive_closure(p_.dag);
    m_.pairs = graph::parallel_pairs(reach);

    m_.x0 = static_cast<int>(cols());
    for (size_t v = 0; v < n; ++v) add_col("x" + std::to_string(v), 0, 1, 0, true);
    m_.o0 = static_cast<int>(cols());
    for (auto [u, v] : m_.pairs)
      add_col("o" + std::to_string(u) + "_" + std::to_string(v), 0, 1, 0, true);
    m_.y_first.assign(n, -1);
    for (size_t v = 0; v < n; ++v) {
      if (p_.acc[v].size() < 2) continue;
      m_.y_first[v] = static_cast<int>(cols());
      for (size_t k = 0; k < p_.acc[v].size(); ++k)
        add_col("y" + std::to_string(v) + "_" + std::to_string(k), 0, 1, 0, true);
    }
    m_.z0 = static_cast<int>(cols());
    for (auto [u, v] : p_.dag.edges)
      add_col("z" + std::to_string(u) + "_" + std::to_string(v), 0, 1, 0, opt_.binary_z);
    m_.s0 = static_cast<int>(cols());
    for (size_t v = 0; v < n; ++v) add_col("s" + std::to_string(v), 0, kInf, 0, false);
    m_.f0 = static_cast<int>(cols());
    for (size_t v = 0; v < n; ++v) add_col("f" + std::to_string(v), 0, kInf, 0, false);
    m_.cmax = static_cast<int>(cols());
    add_col("Cmax", 0, kInf, 1, false);

    // (7) finish times.
    for (size_t v = 0; v < n; ++v) {
      const double th = p_.t_host[v] / m_.unit;
      std::vector<std::pair<int, double>> r = {{f(v), 1.0}, {s(v), -1.0}};
      double rhs = 0.0;
      if (p_.acc[v].size() == 1) {  // f = s + x th + (1 - x) ta
        const double ta = p_.acc[v][0].t_acc / m_.unit;
        r.push_back({x(v), -(th - ta)});
        rhs = ta;
      } else {
        r.push_back({x(v), -th});
        for (size_t k = 0; k < p_.acc[v].size(); ++k)
          r.push_back({m_.y_first[v] + static_cast<int>(k), -p_.acc[v][k].t_acc / m_.unit});
      }
      add_row("fin" + std::to_string(v), std::move(r), rhs, rhs);
    }
    // (5) host-only operators.
    for (size_t v = 0; v < n; ++v)
      if (p_.acc[v].empty()) add_row("host" + std::to_string(v), {{x(v), 1.0}}, 1, 1);
    // Mode link of multi-mode operators: sum_k y_vk + x_v = 1.
    for (size_t v = 0; v < n; ++v) {
      if (m_.y_first[v] < 0) continue;
      std::vector<std::pair<int, double>> r = {{x(v), 1.0}};
      for (size_t k = 0; k < p_.acc[v].size(); ++k)
        r.push_back({m_.y_first[v] + static_cast<int>(k), 1.0});
      add_row("mode" + std::to_string(v), std::move(r), 1, 1);
    }
    // (9) and (8) per edge.
    for (size_t e = 0; e < p_.dag.edges.size(); ++e) {
      const auto [u, v] = p_.dag.edges[e];
      const std::string tag = std::to_string(u) + "_" + std::to_string(v);
      const int z = m_.z0 + static_cast<int>(e);
      const auto uu = static_cast<size_t>(u), vv = static_cast<size_t>(v);
      add_row("zp" + tag, {{z, 1.0}, {x(uu), -1.0}, {x(vv), 1.0}}, 0, kInf);
      add_row("zn" + tag, {{z, 1.0}, {x(uu), 1.0}, {x(vv), -1.0}}, 0, kInf);
      add_row("prec" + tag, {{s(vv), 1.0}, {f(uu), -1.0}, {z, -p_.edge_transfer(e) / m_.unit}}, 0,
              kInf);
    }
    if (p_.bus_model == BusModel::Serial) add_bus(reach, big_m);
    if (p_.energy_weight > 0.0) add_energy_objective();
    // (11), (12) per parallel pair.
    for (size_t i = 0; i < m_.pairs.size(); ++i) {
      const auto u = static_cast<size_t>(m_.pairs[i].first),
                 v = static_cast<size_t>(m_.pairs[i].second);
      const int o = m_.o0 + static_cast<int>(i);
      const std::string tag = std::to_string(u) + "_" + std::to_string(v);
      add_row("ordA" + tag,
              {{s(v), 1.0}, {f(u), -1.0}, {x(u), -big_m}, {x(v), -big_m}, {o, -big_m}}, -3 * big_m,
              kInf);
      add_row("ordB" + tag, {{s(u), 1.0}, {f(v), -1.0}, {x(u), -big_m}, {x(v), -big_m}, {o, big_m}},
              -2 * big_m, kInf);
    }
    // (6) one row per sink.
    size_t sinks = 0;
    for (size_t v = 0; v < n; ++v) {
      if (!p_.dag.succ[v].empty()) continue;
      ++sinks;
      add_row("sink" + std::to_string(v), {{m_.cmax, 1.0}, {f(v), -1.0}}, 0, kInf);
    }
    // (14) budget: sum_single (1 - x_v) c_v + sum_multi sum_k y_vk c_vk <= C.
    {
      std::vector<std::pair<int, double>> r;
      double constant = 0.0;
      for (size_t v = 0; v < n; ++v) {
        if (p_.acc[v].size() == 1) {
          const auto c = static_cast<double>(p_.acc[v][0].crossbars);
          constant += c;
          if (c != 0.0) r.push_back({x(v), -c});
        } else {
          for (size_t k = 0; k < p_.acc[v].size(); ++k)
            if (p_.acc[v][k].crossbars != 0)
              r.push_back({m_.y_first[v] + static_cast<int>(k),
                           static_cast<double>(p_.acc[v][k].crossbars)});
        }
      }
      add_row("budget", std::move(r), -kInf, static_cast<double>(p_.crossbar_budget) - constant);
    }
    // Beyond the paper: the accuracy budget, sum_v drop_v (1 - x_v) <= D (drops in ppm).
    if (p_.has_accuracy()) {
      std::vector<std::pair<int, double>> r;
      double constant = 0.0;
      for (size_t v = 0; v < n; ++v) {
        if (p_.acc[v].empty() || p_.drop_ppm[v] == 0) continue;
        const auto d = static_cast<double>(p_.drop_ppm[v]);
        constant += d;
        r.push_back({x(v), -d});
      }
      if (!r.empty())
        add_row("accuracy", std::move(r), -kInf,
                static_cast<double>(p_.drop_budget_ppm) - constant);
    }

    MilpStats& st = m_.stats;
    st.operators = n;
    st.edges = p_.dag.edges.size();
    st.parallel_pairs = m_.pairs.size();
    st.offloadable = p_.num_offloadable();
    st.sinks = sinks;
    for (size_t v = 0; v < n; ++v) st.multi_mode_operators += p_.acc[v].size() >= 2 ? 1 : 0;
    st.paper_binaries = n + st.parallel_pairs;
    st.paper_constraints = 3 * st.edges + 2 * st.parallel_pairs + n + (n - st.offloadable) + 2;
    st.bus_jobs = m_.bus.size();
    st.bus_pairs = bus_pairs_;
    for (char c : m_.is_int) st.binaries += c ? 1 : 0;
    st.continuous = cols() - st.binaries;
    st.rows = m_.rows.size();
    st.big_m_seconds = milp_big_m(p_);
    st.time_unit_seconds = m_.unit;
    return std::move(m_);
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  size_t cols() const { return m_.col_lb.size(); }
  int x(size_t v) const { return m_.x0 + static_cast<int>(v); }
  int s(size_t v) const { return m_.s0 + static_cast<int>(v); }
  int f(size_t v) const { return m_.f0 + static_cast<int>(v); }

  // Serial bus: one job per potential transfer (per edge, or per producer and direction) with a
  // start column b and an activity a (z_e, or a continuous w >= the crossing indicators of the
  // producer's edges in that direction). Consumers wait for the job; two active jobs whose order
  // the DAG does not fix are disjoint on the bus (order binary q, big-M relaxed when either is
  // inactive).
  void add_bus(const std::vector<DynBitset>& reach, double big_m) {
    const bool per_tensor = p_.transfer_model == TransferModel::PerTensorDirection;
    const auto add_job = [&](int producer, bool to_host, std::vector<int> consumers, int key) {
      MilpModel::BusJob j{producer, to_host, std::move(consumers), key, -1, -1};
      const std::string tag = std::to_string(m_.bus.size());
      j.b = static_cast<int>(cols());
      add_col("b" + tag, 0, kInf, 0, false);
      m_.bus.push_back(std::move(j));
    };
    if (!per_tensor) {
      for (size_t e = 0; e < p_.dag.edges.size(); ++e)
        add_job(p_.dag.edges[e].first, false, {p_.dag.edges[e].second}, static_cast<int>(e));
    } else {
      for (size_t u = 0; u < p_.size(); ++u) {
        if (p_.dag.succ[u].empty()) continue;
        for (bool to_host : {false, true})
          add_job(static_cast<int>(u), to_host, p_.dag.succ[u], -1);
      }
    }
    for (size_t i = 0; i < m_.bus.size(); ++i) {
      MilpModel::BusJob& j = m_.bus[i];
      const std::string tag = std::to_string(i);
      const auto u = static_cast<size_t>(j.producer);
      const double t =
          (per_tensor ? p_.t_out[u] : p_.t_transfer[static_cast<size_t>(j.key)]) / m_.unit;
      if (per_tensor) {
        j.active = crossing(u, j.to_host);
        const double sign = j.to_host ? -1.0 : 1.0;
        for (int v : j.consumers) {
          const auto vv = static_cast<size_t>(v);
          // s_v >= b + t - M (1 - sign (x_u - x_v))
          add_row("bw" + tag + "_" + std::to_string(v),
                  {{s(vv), 1.0}, {j.b, -1.0}, {x(u), -sign * big_m}, {x(vv), sign * big_m}},
                  t - big_m, kInf);
        }
      } else {
        j.active = m_.z0 + j.key;
        const auto vv = static_cast<size_t>(j.consumers[0]);
        add_row("bw" + tag, {{s(vv), 1.0}, {j.b, -1.0}, {j.active, -t}}, 0,
                kInf);  // s_v >= b + t z
      }
      add_row("br" + tag, {{j.b, 1.0}, {f(u), -1.0}}, 0, kInf);  // b >= f_u
    }
    // A job surely ends before another starts when every consumer it may feed is, or reaches,
    // the other's producer.
    const auto before = [&](const MilpModel::BusJob& j, const MilpModel::BusJob& k) {
      for (int c : j.consumers)
        if (c != k.producer && !reach[static_cast<size_t>(c)].test(static_cast<size_t>(k.producer)))
          return false;
      return true;
    };
    for (size_t i = 0; i < m_.bus.size(); ++i)
      for (size_t k = i + 1; k < m_.bus.size(); ++k) {
        const MilpModel::BusJob &a = m_.bus[i], &b = m_.bus[k];
        if (per_tensor && a.producer == b.producer) continue;  // one device, one direction
        if (before(a, b) || before(b, a)) continue;
        const int q = static_cast<int>(cols());
        const std::string tag = std::to_string(i) + "_" + std::to_string(k);
        add_col("q" + tag, 0, 1, 0, true);
        const auto ta = [&](const MilpModel::BusJob& j) {
          return (per_tensor ? p_.t_out[static_cast<size_t>(j.producer)]
                             : p_.t_transfer[static_cast<size_t>(j.key)]) /
                 m_.unit;
        };
        // q = 1: a before b.  b_b >= b_a + t_a - M (1 - q) - M (1 - act_a) - M (1 - act_b)
        add_row("busA" + tag,
                {{b.b, 1.0}, {a.b, -1.0}, {q, -big_m}, {a.active, -big_m}, {b.active, -big_m}},
                ta(a) - 3 * big_m, kInf);
        // q = 0: b before a.  b_a >= b_b + t_b - M q - M (1 - act_a) - M (1 - act_b)
        add_row("busB" + tag,
                {{a.b, 1.0}, {b.b, -1.0}, {q, big_m}, {a.active, -big_m}, {b.active, -big_m}},
                ta(b) - 2 * big_m, kInf);
        ++bus_pairs_;
      }
  }

  // Per tensor: a continuous w_u,dir in [0, 1] with w >= x_u - x_v (to the accelerator) or
  // x_v - x_u (to the host) for every consumer v: 1 whenever u's output crosses that way (and,
  // being minimised or free, 0 otherwise at an optimum). One column per producer and direction.
  int crossing(size_t u, bool to_host) {
    const auto key = std::make_pair(u, to_host);
    if (const auto it = crossing_.find(key); it != crossing_.end()) return it->second;
    const int w = static_cast<int>(cols());
    const std::string tag = std::to_string(u) + (to_host ? "h" : "a");
    add_col("w" + tag, 0, 1, 0, false);
    const double sign = to_host ? -1.0 : 1.0;
    for (int v : p_.dag.succ[u])
      add_row("wa" + tag + "_" + std::to_string(v),
              {{w, 1.0}, {x(u), -sign}, {x(static_cast<size_t>(v)), sign}}, 0, kInf);
    crossing_[key] = w;
    return w;
  }

  // Energy objective: + energy_weight * (sum of operator energies + bus energies), in model
  // units. A single-mode operator's energy is e_acc + x (e_host - e_acc); its constant part goes
  // on a column fixed at 1 so that exported files keep the exact objective.
  void add_energy_objective() {
    const double w = p_.energy_weight / m_.unit;
    double constant = 0.0;
    for (size_t v = 0; v < p_.size(); ++v) {
      const double eh = p_.e_host[v];
      if (p_.acc[v].size() == 1) {
        const double ea = p_.acc[v][0].energy;
        m_.obj[static_cast<size_t>(x(v))] += w * (eh - ea);
        constant += w * ea;
      } else {
        m_.obj[static_cast<size_t>(x(v))] += w * eh;
        for (size_t k = 0; k < p_.acc[v].size(); ++k)
          m_.obj[static_cast<size_t>(m_.y_first[v]) + k] += w * p_.acc[v][k].energy;
      }
    }
    if (p_.transfer_model == TransferModel::PerEdge) {
      for (size_t e = 0; e < p_.dag.edges.size(); ++e)
        m_.obj[static_cast<size_t>(m_.z0) + e] += w * p_.e_transfer[e];
    } else {
      for (size_t u = 0; u < p_.size(); ++u) {
        if (p_.dag.succ[u].empty() || p_.e_out[u] == 0.0) continue;
        for (bool to_host : {false, true})
          m_.obj[static_cast<size_t>(crossing(u, to_host))] += w * p_.e_out[u];
      }
    }
    if (constant != 0.0) add_col("energy_constant", 1, 1, constant, false);
  }

  void add_col(std::string name, double lb, double ub, double obj, bool integer) {
    (void)m_.add_col(std::move(name), lb, ub, obj, integer);
  }
  void add_row(std::string name, std::vector<std::pair<int, double>> coefs, double lb, double ub) {
    m_.add_row(std::move(name), std::move(coefs), lb, ub);
  }

  const Problem& p_;
  const MilpOptions& opt_;
  MilpModel m_;
  size_t bus_pairs_ = 0;
  std::map<std::pair<size_t, bool>, int> crossing_;  // (producer, to_host) -> w column
};

}  // namespace

MilpModel build_milp_model(const Problem& p, const MilpOptions& opt) {
  p.validate();
  if (!(opt.time_unit_seconds >= 0.0) || !std::isfinite(opt.time_unit_seconds))
    throw user_error("MILP options: time_unit_seconds = ", opt.time_unit_seconds,
                     ", expected >= 0 (0 = automatic)");
  return Builder(p, opt).build();
}

MilpStats milp_stats(const Problem& p, const MilpOptions& opt) {
  return build_milp_model(p, opt).stats;
}

}  // namespace hetcim::partition
