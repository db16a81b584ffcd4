#include "api/seed000_calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "cost/host_costs.h"
#include "util/error.h"

namespace hetcim::api {
namespace {

using Key = results::Seed000FitPoint;

std::string ns(double t) {
  return std::to_string(std::lround(t * 1e9));
}

bool in_grid(const std::vector<double>& ts, double t) {
  return std::any_of(ts.begin(), ts.end(), [&](double x) { return std::fabs(x - t) < 1e-12; });
}

struct Targets {
  std::vector<cost::HostFitTarget> targets;
  std::vector<Key> keys;
};

Targets collect(const std::vector<dse::DseModel>& models, const formats::PaperData& paper,
                const Seed000CalibrationRequest& q) {
  Targets out;
  auto has_model = [&](const std::string& m) {
    return std::any_of(models.begin(), models.end(),
                       [&](const dse::DseModel& d) { return d.name == m; });
  };
  auto add = [&](const std::string& table, const std::string& row, const std::string& model,
                 double t, bool latency, const std::string& cell_prefix) {
    const formats::PaperTable* pt = paper.table(table);
    if (!pt || !has_model(model) || !in_grid(q.t_mvm, t)) return;
    for (int64_t c : q.crossbars) {
      const formats::PaperValue* v = pt->find(row, std::to_string(c));
      if (!v || !v->present || !(v->value > 0)) continue;
      out.targets.push_back(
          {table,
           cell_prefix + std::to_string(c) + " crossbars" + (latency ? ": latency (ms)" : ""),
           v->value, 0, 0});
      out.keys.push_back({model, c, t, latency});
    }
  };
  // Sec. V-B: YOLOv5n's two stated latencies.
  add("fig5_latency", "arm 50ns", "yolov5n", 50e-9, true, "arm, 50 ns, ");
  // Fig. 4: every model at 50 ns.
  for (const dse::DseModel& m : models)
    add("fig4", "arm " + m.name, m.name, 50e-9, false, "arm, " + m.name + ", ");
  // Fig. 3: ResNet-18 at the other MVM latencies (its 50 ns row is Fig. 4's).
  for (double t : q.t_mvm)
    if (std::fabs(t - 50e-9) > 1e-12)
      add("fig3", "arm " + ns(t) + "ns", "resnet18", t, false, "arm, " + ns(t) + " ns, ");
  return out;
}

}  // namespace

results::Seed000Calibration calibrate_seed000_arm(const std::vector<dse::DseModel>& models,
                                                  const cost::Hardware& arm,
                                                  const formats::PaperData& paper,
                                                  const Seed000CalibrationRequest& q) {
  const Targets t = collect(models, paper, q);
  if (t.targets.empty())
    throw user_error("calibrate: the grid holds none of the paper's ARM values (", paper.origin,
                     ": fig5_latency, fig4, fig3 rows 'arm ...')");
  if (!arm.host.profile.empty())
    throw user_error("calibrate: the ARM host is a profile (", arm.host.profile,
                     "); only an analytical host model can be fitted");
  // The solves each prediction needs: per model, its budgets and MVM latencies.
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<double>>> need;
  for (const Key& k : t.keys) {
    auto& [cs, ts] = need[k.model];
    if (std::find(cs.begin(), cs.end(), k.crossbars) == cs.end()) cs.push_back(k.crossbars);
    if (!in_grid(ts, k.t_mvm)) ts.push_back(k.t_mvm);
  }
  const cost::HostFitPredict predict = [&](const cost::HostModel& m) {
    std::vector<dse::DsePoint> points;
    for (const dse::DseModel& model : models) {
      const auto it = need.find(model.name);
      if (it == need.end()) continue;
      dse::DseHost host;
      host.name = "arm-fit";
      host.hardware = arm;
      host.costs = {cost::host_costs_from_model(model.workload, m, true)};
      dse::DseOptions o;
      o.crossbars = it->second.first;
      o.t_mvm = it->second.second;
      o.threads = std::max(1, q.threads);
      o.build = q.build;
      std::vector<dse::DsePoint> p = dse::run_dse({model}, {host}, o);
      points.insert(points.end(), p.begin(), p.end());
    }
    std::vector<double> v;
    for (const Key& k : t.keys) {
      const auto p = std::find_if(points.begin(), points.end(), [&](const dse::DsePoint& d) {
        return d.model == k.model && d.crossbars == k.crossbars &&
               std::fabs(d.t_mvm - k.t_mvm) < 1e-12;
      });
      if (p == points.end())
        throw internal_error("calibrate: no DSE point for ", k.model, " at ", k.crossbars);
      v.push_back(k.latency ? p->latency * 1e3 : p->speedup);
    }
    return v;
  };
  cost::HostFitOptions fo;
  fo.max_evaluations = q.max_evaluations;
  results::Seed000Calibration c;
  c.host = "arm-calibrated";
  c.fit = cost::fit_host_model(cost::host_model_preset(arm.host.model), t.targets, predict, fo);
  c.points = t.keys;
  return c;
}

}  // namespace hetcim::api
