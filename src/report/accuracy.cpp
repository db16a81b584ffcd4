#include "report/accuracy.h"

#include <cstdio>

#include "report/provenance.h"

namespace hetcim::report {
namespace {

// A drop as accuracy points with a sign: "+0.35".
std::string points(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", fraction * 100.0);
  return buf;
}

std::string interval(const accuracy::PairedDrop& d) {
  return "[" + points(d.lo) + ", " + points(d.hi) + "]";
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "(none)" : s;
}

}  // namespace

std::string sensitivity_text(const accuracy::Sensitivity& s, const std::string& model,
                             const std::string& chip, const Provenance& provenance) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "accuracy sensitivity of %s on %s (simulated), %lld images: %s\n"
                "digital fp32 accuracy %.2f %%; drops in accuracy points, measured with one "
                "operator on the chip, interval at %.0f %%\n\n",
                model.c_str(), chip.c_str(), static_cast<long long>(s.samples),
                s.set_description.c_str(), s.digital_accuracy * 100,
                s.operators.empty() ? 95.0 : s.operators.front().drop.level * 100);
  out += line;
  std::snprintf(line, sizeof line, "  %-28s %9s %8s %18s %6s %6s %10s\n", "operator", "accuracy",
                "drop", "interval", "b", "c", "logit err");
  out += line;
  for (const auto& o : s.operators) {
    std::snprintf(line, sizeof line, "  %-28s %8.2f%% %8s %18s %6lld %6lld %10.4f\n",
                  o.name.c_str(), o.drop.chip_accuracy() * 100, points(o.drop.drop()).c_str(),
                  interval(o.drop).c_str(), static_cast<long long>(o.drop.b),
                  static_cast<long long>(o.drop.c), o.output_error);
    out += line;
  }
  const auto checks = [&](const char* title, const std::vector<accuracy::SetCheck>& v) {
    if (v.empty()) return;
    out += std::string("\nadditivity, ") + title + " (predicted = sum of single drops)\n";
    std::snprintf(line, sizeof line, "  %-48s %9s %9s %18s\n", "operators on the chip", "predicted",
                  "measured", "interval");
    out += line;
    for (const auto& c : v) {
      std::string ops = join(c.operators);
      if (ops.size() > 48) ops = ops.substr(0, 45) + "...";
      std::snprintf(line, sizeof line, "  %-48s %9s %9s %18s\n", ops.c_str(),
                    points(c.predicted).c_str(), points(c.measured.drop()).c_str(),
                    interval(c.measured).c_str());
      out += line;
    }
  };
  checks("greedy: operators added in ascending single drop", s.greedy);
  checks("pairs", s.pairs);
  std::snprintf(line, sizeof line, "\n%zu network runs, %zu from the logit cache\n", s.runs,
                s.cached_runs);
  out += line;
  out += provenance_text(provenance, "# ");
  return out;
}

std::string plan_accuracy_text(const accuracy::PlanAccuracy& a, const std::string& set,
                               double budget) {
  char line[512];
  std::string out;
  std::snprintf(line, sizeof line,
                "accuracy (simulated chip): %zu operators on the chip\n"
                "  predicted drop %s points (sum of single drops)%s%s%s\n"
                "  measured drop  %s points, interval %s at %.0f %% (accuracy %.2f %% vs digital "
                "%.2f %%)\n  on %s\n",
                a.analog.size(), points(a.predicted).c_str(), budget >= 0 ? ", budget " : "",
                budget >= 0 ? points(budget).c_str() + 1 : "", budget >= 0 ? " points" : "",
                points(a.measured.drop()).c_str(), interval(a.measured).c_str(),
                a.measured.level * 100, a.measured.chip_accuracy() * 100,
                a.measured.digital_accuracy() * 100, set.c_str());
  out += line;
  return out;
}

nlohmann::json plan_accuracy_json(const accuracy::PlanAccuracy& a, const std::string& set,
                                  double budget) {
  nlohmann::json j = {{"analog_operators", a.analog},
                      {"predicted_drop", a.predicted},
                      {"measured_drop", a.measured.drop()},
                      {"measured_lo", a.measured.lo},
                      {"measured_hi", a.measured.hi},
                      {"level", a.measured.level},
                      {"accuracy", a.measured.chip_accuracy()},
                      {"digital_accuracy", a.measured.digital_accuracy()},
                      {"discordant", {{"b", a.measured.b}, {"c", a.measured.c}}},
                      {"images", set},
                      {"source", "measured by the crossbar simulator (simulated chip)"}};
  // Which images: `hetcim execute` warns when it evaluates the plan on the same ones.
  nlohmann::json cal = {
      {"dataset", a.source.dataset}, {"split", a.source.split}, {"samples", a.measured.n}};
  if (a.source.split == "holdout")
    cal["holdout"] = {{"images", a.source.holdout}, {"seed", a.source.holdout_seed}};
  j["calibration"] = cal;
  j["budget"] = budget >= 0 ? nlohmann::json(budget) : nlohmann::json(nullptr);
  return j;
}

std::string front3d_text(const std::string& title, const partition::Front3d& f,
                         const std::vector<accuracy::PlanAccuracy>& accuracy,
                         const std::string& set, const Provenance& provenance) {
  std::string out = title + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %3s %12s %12s %10s %10s %18s %5s\n", "#", "latency ms",
                "energy mJ", "predicted", "measured", "interval", "ops");
  out += line;
  for (size_t i = 0; i < f.points.size(); ++i) {
    const auto& pt = f.points[i];
    const bool m = i < accuracy.size();
    size_t ops = 0;
    for (int mode : pt.schedule.assignment.mode) ops += mode != partition::kHost ? 1 : 0;
    std::snprintf(line, sizeof line, "  %3zu %12.4f %12.4f %10s %10s %18s %5zu\n", i,
                  pt.makespan * 1e3, pt.energy * 1e3,
                  points(static_cast<double>(pt.drop_ppm) * 1e-6).c_str(),
                  m ? points(accuracy[i].measured.drop()).c_str() : "-",
                  m ? interval(accuracy[i].measured).c_str() : "-", ops);
    out += line;
  }
  std::snprintf(line, sizeof line,
                "%zu points from %zu latency-energy fronts (%zu exact solves)%s; drops in "
                "accuracy points\n",
                f.points.size(), f.fronts, f.solves, f.complete ? "" : ", INCOMPLETE");
  out += line;
  if (!accuracy.empty()) out += "measured on " + set + "\n";
  out += provenance_text(provenance, "# ");
  return out;
}

nlohmann::json front3d_json(const std::string& title, const partition::Problem& p,
                            const partition::Front3d& f,
                            const std::vector<accuracy::PlanAccuracy>& accuracy,
                            const std::string& set, const Provenance& provenance) {
  nlohmann::json pts = nlohmann::json::array();
  for (size_t i = 0; i < f.points.size(); ++i) {
    const auto& pt = f.points[i];
    nlohmann::json ops = nlohmann::json::array();
    for (size_t v = 0; v < p.size(); ++v)
      if (pt.schedule.assignment.mode[v] != partition::kHost)
        ops.push_back({{"name", p.names[v]}, {"mode", pt.schedule.assignment.mode[v]}});
    nlohmann::json j = {{"latency_s", pt.makespan},
                        {"energy_j", pt.energy},
                        {"predicted_drop", static_cast<double>(pt.drop_ppm) * 1e-6},
                        {"budget", static_cast<double>(pt.budget_ppm) * 1e-6},
                        {"cim_operators", ops}};
    if (i < accuracy.size()) j["accuracy"] = plan_accuracy_json(accuracy[i], set, -1);
    pts.push_back(j);
  }
  return {{"title", title},         {"points", pts},
          {"fronts", f.fronts},     {"solves", f.solves},
          {"complete", f.complete}, {"provenance", provenance_json(provenance)}};
}

}  // namespace hetcim::report
