#include "report/analog.h"

#include "graph/graph.h"
#include "report/printf.h"

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

std::string analog_eval_text(const std::vector<AnalogEvalRow>& rows) {
  std::string out;
  if (rows.empty()) return out;
  appendf(out, "%-10s %-10s %10s %9s %9s\n", "chip", "mode", "accuracy", "images", "seconds");
  for (const AnalogEvalRow& r : rows)
    appendf(out, "%-10s %-10s %9.2f%% %9lld %9.2f\n", r.chip.c_str(), r.mode.c_str(),
            100.0 * r.accuracy, static_cast<long long>(r.images), r.seconds);
  return out;
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

}  // namespace hetcim::report
