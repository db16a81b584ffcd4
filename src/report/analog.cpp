#include "report/analog.h"

#include "graph/graph.h"
#include "report/printf.h"
#include "report/provenance.h"

namespace hetcim::report {

std::string analog_audit_text(const std::vector<xbar::MappingAudit>& audits,
                              const std::vector<std::string>& skipped) {
  std::string out;
  appendf(out, "%-16s %11s %8s %10s %8s %11s %11s %9s %11s %11s %9s %8s %6s\n", "layer", "matrix",
          "gamma", "levels", "clipped", "MAE q", "RMSE q", "relL2 q", "MAE prog", "RMSE prog",
          "relL2 prog", "clamped", "stuck");
  for (const auto& a : audits) {
    const std::string shape = std::to_string(a.rows) + "x" + std::to_string(a.cols);
    appendf(out,
            "%-16s %11s %8.4f %10lld %8lld %11.3e %11.3e %9.5f %11.3e %11.3e %9.5f %8lld %6lld\n",
            a.layer.c_str(), shape.c_str(), a.gamma, static_cast<long long>(a.distinct_levels),
            static_cast<long long>(a.clipped_weights), a.quantized.mae, a.quantized.rmse,
            a.quantized.rel_l2, a.programmed.mae, a.programmed.rmse, a.programmed.rel_l2,
            static_cast<long long>(a.clamped_devices),
            static_cast<long long>(a.stuck_low + a.stuck_high));
  }
  for (const auto& s : skipped) appendf(out, "not mapped: %s\n", s.c_str());
  return out;
}

std::string analog_eval_text(const std::vector<results::AnalogEvalRow>& rows) {
  std::string out;
  if (rows.empty()) return out;
  appendf(out, "%-10s %-10s %10s %9s %9s\n", "chip", "mode", "accuracy", "images", "seconds");
  for (const results::AnalogEvalRow& r : rows)
    appendf(out, "%-10s %-10s %9.2f%% %9lld %9.2f\n", r.chip.c_str(), r.mode.c_str(),
            100.0 * r.accuracy, static_cast<long long>(r.images), r.seconds);
  return out;
}

nlohmann::json analog_eval_json(const std::vector<results::AnalogEvalRow>& rows,
                                const std::string& dataset, const std::string& split,
                                const Provenance& provenance) {
  nlohmann::json runs = nlohmann::json::array();
  for (const results::AnalogEvalRow& r : rows)
    runs.push_back({{"chip", r.chip},
                    {"mode", r.mode},
                    {"accuracy", r.accuracy},
                    {"images", r.images},
                    {"seconds", r.seconds}});
  return {{"dataset", dataset},
          {"split", split},
          {"runs", runs},
          {"seconds_source", "measured: wall time of each run on this machine"},
          {"provenance", formats::provenance_json(provenance)}};
}

std::string analog_run_text(const std::map<std::string, exec::Tensor>& outputs,
                            int64_t analog_layers, const xbar::ForwardStats& stats) {
  std::string out;
  for (const auto& [name, t] : outputs)
    appendf(out, "output %s: %s\n", name.c_str(), graph::shape_str(t.shape).c_str());
  appendf(out, "analog layers: %lld, DAC conversions %lld, ADC conversions %lld (%lld clipped)\n",
          static_cast<long long>(analog_layers), static_cast<long long>(stats.dac_conversions),
          static_cast<long long>(stats.adc_conversions), static_cast<long long>(stats.adc_clipped));
  return out;
}

std::string analog_serve_csv_header() {
  return "query,route,label,score\n";
}

std::string analog_serve_rows(int64_t first, std::span<const select::Decision> decisions) {
  std::string rows;
  for (size_t k = 0; k < decisions.size(); ++k) {
    const select::Decision& d = decisions[k];
    appendf(rows, "%lld,%s,%d,%.9g\n", static_cast<long long>(first + static_cast<int64_t>(k)),
            select::route_name(d.route), d.route == select::Route::Accept ? d.label : -1, d.score);
  }
  return rows;
}

std::string analog_serve_text(const results::AnalogServeSummary& s) {
  const select::ControllerCounts& c = s.counts;
  std::string out;
  appendf(out,
          "policy %s: unit %s, threshold %.6g (%s)\n"
          "%lld queries: %lld accepted (coverage %.2f%%), %lld to the fallback, %lld abstained\n"
          "energy (modelled, the policy's energy model): %.4f uJ per query\n",
          s.policy_file.c_str(), s.unit.empty() ? "none" : s.unit.c_str(), s.threshold,
          s.score.c_str(), static_cast<long long>(c.queries), static_cast<long long>(c.accepted),
          100.0 * c.coverage(), static_cast<long long>(c.fallback),
          static_cast<long long>(c.abstained), c.energy / static_cast<double>(c.queries) * 1e6);
  if (s.labelled && c.accepted > 0)
    appendf(out, "accepted answers wrong: %lld (%.2f%%, measured against %s labels)\n",
            static_cast<long long>(s.accepted_wrong),
            100.0 * static_cast<double>(s.accepted_wrong) / static_cast<double>(c.accepted),
            s.queries.c_str());
  appendf(
      out,
      "coverage monitor (label-free): running coverage %.2f%%, anytime 95%% interval [%.2f, "
      "%.2f]%%, certified [%.2f, %.2f]%%: %s\n",
      100.0 * s.coverage, 100.0 * s.coverage_lower, 100.0 * s.coverage_upper,
      100.0 * s.certified_lower, 100.0 * s.certified_upper,
      s.shifted_at >= 0
          ? ("SHIFTED (first at query " + std::to_string(s.shifted_at) + "): re-calibrate").c_str()
          : "consistent");
  if (s.labelled)
    appendf(
        out,
        "audit (labelled, every accepted query): accepted error rate anytime 95%% bounds "
        "[%.2f, %.2f]%% against r = %.2f%%: %s\n",
        100.0 * s.audit_lower, 100.0 * s.audit_upper, 100.0 * s.risk_target,
        s.broken_at >= 0
            ? ("BROKEN (first at query " + std::to_string(s.broken_at) + "): re-calibrate").c_str()
            : "not broken");
  return out;
}

nlohmann::json analog_serve_json(const results::AnalogServeSummary& s) {
  const select::ControllerCounts& c = s.counts;
  nlohmann::json j = {{"policy", s.policy_file},
                      {"unit", s.unit},
                      {"queries", c.queries},
                      {"accepted", c.accepted},
                      {"fallback", c.fallback},
                      {"abstained", c.abstained},
                      {"coverage", c.coverage()},
                      {"energy_uJ_per_query", c.energy / static_cast<double>(c.queries) * 1e6},
                      {"energy_source", "modelled: the policy's energy model"}};
  j["coverage_monitor"] = {
      {"lower", s.coverage_lower},
      {"upper", s.coverage_upper},
      {"certified_lower", s.certified_lower},
      {"certified_upper", s.certified_upper},
      {"shifted_at", s.shifted_at >= 0 ? nlohmann::json(s.shifted_at) : nlohmann::json(nullptr)}};
  if (s.labelled) {
    j["accepted_wrong"] = s.accepted_wrong;
    j["audit"] = {
        {"lower", s.audit_lower},
        {"upper", s.audit_upper},
        {"broken_at", s.broken_at >= 0 ? nlohmann::json(s.broken_at) : nlohmann::json(nullptr)}};
  }
  return j;
}

}  // namespace hetcim::report
