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
  std::snprintf(line, sizeof line, "cost budgeted by hetcim partition: %s%s\n\n",
                accuracy::cost_kind_name(s.cost),
                s.cost == accuracy::CostKind::Top1
                    ? " (the single top-1 drops)"
                    : " (logit cost: relative mean squared logit error, Student t interval)");
  out += line;
  std::snprintf(line, sizeof line, "  %-28s %9s %8s %18s %6s %6s %10s %24s\n", "operator",
                "accuracy", "drop", "interval", "b", "c", "logit err", "logit cost [interval]");
  out += line;
  for (const auto& o : s.operators) {
    std::snprintf(
        line, sizeof line, "  %-28s %8.2f%% %8s %18s %6lld %6lld %10.4f %8.2e [%.1e, %.1e]\n",
        o.name.c_str(), o.drop.chip_accuracy() * 100, points(o.drop.drop()).c_str(),
        interval(o.drop).c_str(), static_cast<long long>(o.drop.b),
        static_cast<long long>(o.drop.c), o.output_error, o.logit.value, o.logit.lo, o.logit.hi);
    out += line;
  }
  const auto checks = [&](const char* title, const std::vector<accuracy::SetCheck>& v) {
    if (v.empty()) return;
    out += std::string("\nadditivity, ") + title +
           " (predicted = sum of single drops; logit cost: sum of singles / measured)\n";
    std::snprintf(line, sizeof line, "  %-48s %9s %9s %18s %19s\n", "operators on the chip",
                  "predicted", "measured", "interval", "logit cost sum/meas");
    out += line;
    for (const auto& c : v) {
      std::string ops = join(c.operators);
      if (ops.size() > 48) ops = ops.substr(0, 45) + "...";
      std::snprintf(line, sizeof line, "  %-48s %9s %9s %18s %9.2e/%9.2e\n", ops.c_str(),
                    points(c.predicted).c_str(), points(c.measured.drop()).c_str(),
                    interval(c.measured).c_str(), c.predicted_logit, c.measured_logit.value);
      out += line;
    }
  };
  checks(s.cost == accuracy::CostKind::Top1 ? "greedy: operators added in ascending single drop"
                                            : "greedy: operators added in ascending logit cost",
         s.greedy);
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
                "  predicted drop %s points (%s)%s%s%s\n"
                "  measured drop  %s points, interval %s at %.0f %% (accuracy %.2f %% vs digital "
                "%.2f %%)\n  on %s\n",
                a.analog.size(), points(a.predicted).c_str(),
                a.cost == accuracy::CostKind::Top1
                    ? "sum of single drops"
                    : ("logit cost " + std::to_string(a.predicted_cost) +
                       " summed, mapped by the fit on the greedy check")
                          .c_str(),
                budget >= 0 ? ", budget " : "", budget >= 0 ? points(budget).c_str() + 1 : "",
                budget >= 0 ? " points" : "", points(a.measured.drop()).c_str(),
                interval(a.measured).c_str(), a.measured.level * 100,
                a.measured.chip_accuracy() * 100, a.measured.digital_accuracy() * 100, set.c_str());
  out += line;
  return out;
}

namespace {

// The measured drop of a plan and its interval, as every plan-accuracy object carries them.
nlohmann::json measured_json(const accuracy::PlanAccuracy& a) {
  return {{"measured_drop", a.measured.drop()},
          {"measured_lo", a.measured.lo},
          {"measured_hi", a.measured.hi},
          {"level", a.measured.level},
          {"accuracy", a.measured.chip_accuracy()},
          {"digital_accuracy", a.measured.digital_accuracy()},
          {"discordant", {{"b", a.measured.b}, {"c", a.measured.c}}}};
}

}  // namespace

nlohmann::json plan_accuracy_json(const accuracy::PlanAccuracy& a, const std::string& set,
                                  double budget) {
  nlohmann::json j = {{"analog_operators", a.analog},
                      {"predicted_drop", a.predicted},
                      {"cost", accuracy::cost_kind_name(a.cost)},
                      {"predicted_cost", a.predicted_cost},
                      {"predicted_how", a.cost == accuracy::CostKind::Top1
                                            ? "sum of the single top-1 drops"
                                            : "summed single logit costs mapped to points by "
                                              "the fit on the greedy check (accuracy/cost.h)"},
                      {"images", set},
                      {"source", "measured by the crossbar simulator (simulated chip)"}};
  j.update(measured_json(a));
  // Which images: `hetcim execute` warns when it evaluates the plan on the same ones.
  nlohmann::json cal = {
      {"dataset", a.source.dataset}, {"split", a.source.split}, {"samples", a.measured.n}};
  if (a.source.split == "holdout")
    cal["holdout"] = {{"images", a.source.holdout}, {"seed", a.source.holdout_seed}};
  j["calibration"] = cal;
  j["budget"] = budget >= 0 ? nlohmann::json(budget) : nlohmann::json(nullptr);
  return j;
}

std::string tightening_text(const accuracy::Tightening& t, const std::string& set) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "verification: %zu solve(s); the returned plan is %s: upper end of its measured "
                "drop's interval %s points %s budget %s points\n",
                t.steps.size(), t.verified ? "VERIFIED" : "NOT VERIFIED (iteration limit)",
                points(t.steps.back().accuracy.measured.hi).c_str(), t.verified ? "<=" : ">",
                points(t.budget).c_str());
  out += line;
  std::snprintf(line, sizeof line, "  %4s %14s %14s %10s %9s %9s %18s  %s\n", "step", "cost budget",
                "cost used", "latency", "predicted", "measured", "interval", "kept off the chip");
  out += line;
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const accuracy::TighteningStep& s = t.steps[i];
    std::snprintf(line, sizeof line, "  %4zu %14lld %14lld %8.1fus %9s %9s %18s  %s\n", i + 1,
                  static_cast<long long>(s.cost_budget_ppm),
                  static_cast<long long>(s.cost_used_ppm), s.latency_s * 1e6,
                  points(s.accuracy.predicted).c_str(), points(s.accuracy.measured.drop()).c_str(),
                  interval(s.accuracy.measured).c_str(),
                  s.forbidden.empty() ? "" : s.forbidden.c_str());
    out += line;
  }
  out += "  " + tightening_guarantee(t, set) + "\n";
  return out;
}

std::string tightening_guarantee(const accuracy::Tightening& t, const std::string& set) {
  const accuracy::PairedDrop& m = t.steps.back().accuracy.measured;
  char b[64];
  std::snprintf(b, sizeof b, "%.0f %%", m.level * 100);
  return std::string("guarantee: ") +
         (t.verified ? "on the calibration set only (" : "none: the plan is not within budget (") +
         set + ", this chip instance and read-noise stream), the exact " + b +
         " paired interval of the returned plan's drop (conditional on its discordant images) "
         "ends at or below the budget; it is not a bound for other images or chips, and the plan "
         "was chosen after " +
         std::to_string(t.steps.size()) +
         " look(s) at these images (evaluate it on test images: hetcim execute)";
}

std::string heldout_accuracy_text(const accuracy::PlanAccuracy& a, const std::string& set,
                                  double budget) {
  char line[1024];
  std::snprintf(
      line, sizeof line,
      "held-out evaluation (inputs neither the sensitivities nor the verification "
      "saw): measured drop %s points, interval %s at %.0f %%%s%s%s\n  on %s\n",
      points(a.measured.drop()).c_str(), interval(a.measured).c_str(), a.measured.level * 100,
      budget >= 0 ? "; upper end " : "",
      budget < 0 ? "" : (a.measured.hi <= budget + 1e-12 ? "<= budget" : "> budget"),
      budget < 0 ? ""
                 : (a.measured.drop() <= budget + 1e-12 ? ", drop <= budget" : ", drop > budget"),
      set.c_str());
  return line;
}

nlohmann::json heldout_accuracy_json(const accuracy::PlanAccuracy& a, const std::string& set,
                                     double budget) {
  nlohmann::json j = {{"samples", a.measured.n},
                      {"images", set},
                      {"source",
                       "measured by the crossbar simulator (simulated chip) on held-out inputs: "
                       "none equals an input of the sensitivity file"}};
  j.update(measured_json(a));
  if (budget >= 0) {
    j["hi_within_budget"] = a.measured.hi <= budget + 1e-12;
    j["drop_within_budget"] = a.measured.drop() <= budget + 1e-12;
  }
  return j;
}

nlohmann::json tightening_json(const accuracy::Tightening& t, const std::string& set) {
  nlohmann::json steps = nlohmann::json::array();
  for (const accuracy::TighteningStep& s : t.steps)
    steps.push_back({{"cost_budget_ppm", s.cost_budget_ppm},
                     {"cost_used_ppm", s.cost_used_ppm},
                     {"kept_off_chip",
                      s.forbidden.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.forbidden)},
                     {"latency_s", s.latency_s},
                     {"analog_operators", s.accuracy.analog},
                     {"predicted_drop", s.accuracy.predicted},
                     {"measured_drop", s.accuracy.measured.drop()},
                     {"measured_lo", s.accuracy.measured.lo},
                     {"measured_hi", s.accuracy.measured.hi}});
  return {{"budget", t.budget},
          {"verified", t.verified},
          {"iterations", t.steps.size()},
          {"guarantee", tightening_guarantee(t, set)},
          {"rule",
           "after a failing plan, cost budget = min(used - 1, floor(used x budget / upper end)) "
           "ppm, or with used 0 the chip operator of largest logit error kept off; solved again"},
          {"steps", steps}};
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
          {"complete", f.complete}, {"provenance", formats::provenance_json(provenance)}};
}

}  // namespace hetcim::report
