#include "report/drift.h"

#include <cmath>
#include <cstdio>

#include "formats/number_text.h"
#include "report/figure_style.h"
#include "report/provenance.h"

namespace hetcim::report {
namespace {

std::string pct(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", 100 * *v);
  return b;
}

nlohmann::json opt(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json policy_json(const std::optional<results::DriftPolicyPoint>& p) {
  if (!p) return nullptr;
  nlohmann::json j = {
      {"coverage", p->coverage},
      {"accepted_risk", std::isfinite(p->accepted_risk) ? nlohmann::json(p->accepted_risk)
                                                        : nlohmann::json(nullptr)}};
  if (const auto& c = p->check) {
    j["monitor"] = {{"coverage_lower", c->coverage_lower},
                    {"coverage_upper", c->coverage_upper},
                    {"certified_coverage_lower", c->certified_lower},
                    {"certified_coverage_upper", c->certified_upper},
                    {"coverage_shift", c->coverage_shifted},
                    {"score_ks_distance", c->score.distance},
                    {"score_ks_critical", c->score.critical},
                    {"score_shift", c->score.shifted()},
                    {"audited", c->audited},
                    {"audit_errors", c->audit_errors},
                    {"audit_upper_bound",
                     c->audited > 0 ? nlohmann::json(c->audit_upper) : nlohmann::json(nullptr)},
                    {"recalibrate", c->recalibrate},
                    {"reason", c->reason}};
  }
  return j;
}

std::string monitor_cell(const std::optional<results::DriftPolicyPoint>& p) {
  if (!p || !p->check) return "-";
  const select::StateCheck& c = *p->check;
  char b[160];
  std::snprintf(b, sizeof b, "KS %.3f/%.3f%s%s", c.score.distance, c.score.critical,
                c.audited > 0 ? (" audit<=" + pct(c.audit_upper) + "%").c_str() : "",
                c.recalibrate ? (": RE-CERTIFY (" + c.reason + ")").c_str() : ": ok");
  return b;
}

// The x of a point on the log time axis: reads at or before t0 sit at t0.
double x_of(const results::DriftPoint& p, double t0) {
  return std::max(p.seconds, t0);
}

}  // namespace

std::string drift_text(const results::DriftReport& r, const Provenance& provenance) {
  std::string o = provenance_text(provenance, "# ");
  const bool policy = !r.policy_file.empty();
  char b[256];
  std::snprintf(b, sizeof b, "%-8s %12s %10s %10s", "time", "seconds", "acc. (%)", "acc. GDC");
  o += b;
  if (policy) {
    std::snprintf(b, sizeof b, " %9s %9s %9s %9s", "cov.", "risk", "cov. GDC", "risk GDC");
    o += b;
  }
  o += "\n";
  for (const results::DriftPoint& p : r.points) {
    std::snprintf(b, sizeof b, "%-8s %12.6g %10s %10s", p.label.c_str(), p.seconds,
                  pct(p.accuracy).c_str(), pct(p.accuracy_compensated).c_str());
    o += b;
    if (policy) {
      auto cov = [](const std::optional<results::DriftPolicyPoint>& q) {
        return q ? std::optional<double>(q->coverage) : std::nullopt;
      };
      auto risk = [](const std::optional<results::DriftPolicyPoint>& q) {
        return q ? std::optional<double>(q->accepted_risk) : std::nullopt;
      };
      std::snprintf(b, sizeof b, " %9s %9s %9s %9s", pct(cov(p.policy)).c_str(),
                    pct(risk(p.policy)).c_str(), pct(cov(p.policy_compensated)).c_str(),
                    pct(risk(p.policy_compensated)).c_str());
      o += b;
      o += "  " + monitor_cell(p.policy);
      if (p.policy_compensated) o += " | GDC " + monitor_cell(p.policy_compensated);
    }
    o += "\n";
  }
  if (policy) {
    std::snprintf(b, sizeof b,
                  "(policy %s: certificate at t0: accepted error <= %.2f %% at 95 %%, target %.2f "
                  "%%; a later risk above the bound means the certificate no longer holds)\n",
                  r.policy_file.c_str(), 100 * r.certificate_bound, 100 * r.risk_target);
    o += b;
    o += "(monitor, select/state_check.h: KS = score-distribution distance to t0 / its 5 % "
         "critical value (label-free); coverage monitor against the certified coverage "
         "(label-free, anytime 95 %); " +
         (r.audit > 0 ? "audit<= the anytime 95 % upper bound on the accepted error rate over the "
                        "first " +
                            std::to_string(r.audit) + " accepted labelled queries; "
                      : std::string("no labelled audit (--audit N); ")) +
         "RE-CERTIFY when the coverage or score shifts or the audit bound exceeds r)\n";
  }
  return o;
}

nlohmann::json drift_json(const results::DriftReport& r, const Provenance& provenance) {
  nlohmann::json pts = nlohmann::json::array();
  for (const results::DriftPoint& p : r.points)
    pts.push_back({{"label", p.label},
                   {"seconds", p.seconds},
                   {"accuracy", opt(p.accuracy)},
                   {"accuracy_compensated", opt(p.accuracy_compensated)},
                   {"policy", policy_json(p.policy)},
                   {"policy_compensated", policy_json(p.policy_compensated)}});
  nlohmann::json j = {{"chip", r.chip},
                      {"drift", {{"nu", r.nu}, {"nu_sd", r.nu_sd}, {"t0_s", r.t0}}},
                      {"data", r.dataset},
                      {"points", pts},
                      {"provenance", formats::provenance_json(provenance)}};
  if (!r.policy_file.empty())
    j["policy"] = {{"file", r.policy_file},
                   {"certificate_upper_bound", r.certificate_bound},
                   {"risk_target", r.risk_target},
                   {"audit", r.audit},
                   {"recalibration_rule",
                    "re-certify when the label-free coverage monitor shifts, the score KS distance "
                    "to t0 exceeds its 5 % critical value, or the audit's anytime 95 % upper bound "
                    "on the accepted error rate exceeds the target r"}};
  return j;
}

Figure write_drift_figure(OutputSet& out, const std::string& dir, const std::string& name,
                          const results::DriftReport& r, const Provenance& provenance,
                          const FigureOptions& fig_options) {
  Chart c;
  c.title = "Accuracy after programming (conductance drift)";
  c.footnote = "Modelled drift: G(t) = G(t0) (t/t0)^-nu, nu ~ N(" + formats::number_g9(r.nu) +
               ", " + formats::number_g9(r.nu_sd) + "^2), t0 = " + formats::number_g9(r.t0) +
               " s; " + r.chip + "; " + r.dataset + "; seeds and version in drift.json.";
  (void)provenance;
  LineSeries raw{"no compensation", {}, {}, false, true};
  LineSeries gdc{"global drift compensation", {}, {}, true, true};
  for (const results::DriftPoint& p : r.points) {
    if (p.accuracy) {
      raw.x.push_back(x_of(p, r.t0));
      raw.y.push_back(100 * *p.accuracy);
    }
    if (p.accuracy_compensated) {
      gdc.x.push_back(x_of(p, r.t0));
      gdc.y.push_back(100 * *p.accuracy_compensated);
    }
  }
  // The x axis in log seconds, ticked at the read times with the names they were asked by
  // ("1 h", "1 y"): gnuplot's own labels ran together ("1000100001000001e+06", issue 36).
  std::vector<std::pair<double, std::string>> tics;
  for (const results::DriftPoint& p : r.points) {
    const double x = x_of(p, r.t0);
    if (tics.empty() || tics.back().first != x) tics.emplace_back(x, p.label);
  }
  Lines acc{{}, true, false, tics};
  if (!raw.x.empty()) acc.series.push_back(raw);
  if (!gdc.x.empty()) acc.series.push_back(gdc);
  c.panels.push_back({r.policy_file.empty() ? "" : "accuracy", "time after programming (log scale)",
                      "accuracy (%)", 0, 100, acc});
  if (!r.policy_file.empty()) {
    Lines sel{{}, true, false, tics};
    LineSeries cov{"coverage", {}, {}, false, true, false, 0};
    LineSeries risk{"accepted error", {}, {}, false, true, false, 1};
    LineSeries cov_c{"coverage (GDC)", {}, {}, true, true, false, 0};
    LineSeries risk_c{"accepted error (GDC)", {}, {}, true, true, false, 1};
    LineSeries bound{"certificate bound at t0", {}, {}, true, false, false, 7};
    LineSeries audit{"audit bound (anytime 95%)", {}, {}, false, true, false, 5};
    for (const results::DriftPoint& p : r.points) {
      const double x = x_of(p, r.t0);
      if (p.policy) {
        cov.x.push_back(x);
        cov.y.push_back(100 * p.policy->coverage);
        if (std::isfinite(p.policy->accepted_risk)) {
          risk.x.push_back(x);
          risk.y.push_back(100 * p.policy->accepted_risk);
        }
      }
      if (p.policy_compensated) {
        cov_c.x.push_back(x);
        cov_c.y.push_back(100 * p.policy_compensated->coverage);
        if (std::isfinite(p.policy_compensated->accepted_risk)) {
          risk_c.x.push_back(x);
          risk_c.y.push_back(100 * p.policy_compensated->accepted_risk);
        }
      }
      bound.x.push_back(x);
      bound.y.push_back(100 * r.certificate_bound);
      if (p.policy && p.policy->check && p.policy->check->audited > 0) {
        audit.x.push_back(x);
        audit.y.push_back(100 * p.policy->check->audit_upper);
      }
    }
    for (const LineSeries* s : {&cov, &risk, &cov_c, &risk_c, &bound, &audit})
      if (!s->x.empty()) sel.series.push_back(*s);
    c.panels.push_back({"frozen policy", "time after programming (log scale)",
                        "share of queries (%)", 0, 100, sel});
    c.key_columns = 4;
  }
  const Figure f{name, c.title,
                 "Accuracy of the model with its classifier layers on " + r.chip +
                     " read at increasing times after programming (modelled conductance drift, "
                     "src/xbar/README.md)" +
                     (r.policy_file.empty()
                          ? std::string(".")
                          : "; right: the frozen policy's coverage and accepted error rate, the "
                            "certificate made at t0 as a line" +
                                std::string(r.audit > 0 ? ", and the anytime 95 % upper bound of a "
                                                          "labelled audit of the first " +
                                                              std::to_string(r.audit) +
                                                              " accepted queries at each time."
                                                        : ".")) +
                     " Data: " + r.dataset + ".",
                 r.policy_file.empty() ? 5.0 : 7.16, 3.0};
  plot_chart(out, dir, f, c, fig_options);
  return f;
}

}  // namespace hetcim::report
