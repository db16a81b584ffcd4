#include "report/execution.h"

#include <cstdio>

#include "report/provenance.h"

namespace hetcim::report {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

nlohmann::json cost_json(const results::PathCost& c) {
  return {{"latency_s", c.latency_s}, {"energy_j", c.energy_j}};
}

}  // namespace

nlohmann::json execution_json(const results::Execution& e) {
  nlohmann::json j = {
      {"model", e.model},
      {"plan", e.plan},
      {"chip", e.chip},
      {"chip_seed", e.chip_seed},
      {"read_seed", e.read_seed},
      {"weights", e.weights},
      {"dataset", e.dataset},
      {"images", e.images},
      {"batch", e.batch},
      {"threads", e.threads},
      {"cim_operators", e.cim_operators},
      {"host_operators", e.host_operators},
      {"accuracy",
       {{"source",
         "measured: top-1 over the data set, host operators on oneDNN (fp32), CIM "
         "operators on the simulated chip"},
        {"plan", e.accuracy},
        {"plan_correct", e.correct},
        {"digital", e.digital_accuracy},
        {"digital_correct", e.digital_correct},
        {"drop", e.digital_accuracy - e.accuracy},
        {"drop_lo", e.paired.lo},
        {"drop_hi", e.paired.hi},
        {"level", e.paired.level},
        {"discordant", {{"b", e.paired.b}, {"c", e.paired.c}}},
        {"interval",
         "exact paired interval conditional on the discordant images (accuracy/paired.h)"}}},
      {"modelled",
       {{"source", "modelled: the plan replayed on the partition problem of " + e.hardware +
                       " (host " + e.host_source + "), per query"},
        {"plan", cost_json(e.plan_cost)},
        {"host_only", cost_json(e.host_only_cost)}}},
      {"wall_time",
       {{"source", "measured on this machine (" + e.provenance.machine + ")"},
        {"simulator_s", e.simulator_seconds},
        {"simulator_build_s", e.simulator_build_seconds},
        {"digital_s", e.digital_seconds},
        {"simulator_cpu_s", e.simulator_cpu_seconds},
        {"digital_cpu_s", e.digital_cpu_seconds}}},
      {"conversions",
       {{"dac", e.dac_conversions}, {"adc", e.adc_conversions}, {"adc_clipped", e.adc_clipped}}},
      {"warnings", e.warnings},
      {"provenance", formats::provenance_json(e.provenance)}};
  if (e.certificate) {
    const results::ExecutionCertificate& c = *e.certificate;
    j["certify"] = {
        {"source",
         "computed: RACE-AIMC's RACE-AIMC pipeline (select::run_race) on the plan's logits, the "
         "all-digital logits as the fallback"},
        {"risk", c.risk},
        {"certificate_delta", c.delta},
        {"design_risk", c.design_risk},
        {"design_delta", c.design_delta},
        {"score", c.score},
        {"bias_correction", c.bias_correction},
        {"split_seed", c.split_seed},
        {"splits",
         {{"hardware", c.hardware_rows},
          {"policy", c.policy_rows},
          {"certificate", c.certificate_rows},
          {"test", c.test_rows}}},
        {"feasible", c.feasible},
        {"threshold", c.feasible ? nlohmann::json(c.threshold) : nlohmann::json(nullptr)},
        {"upper_bound", c.upper_bound},
        {"certified", c.certified},
        {"certificate_coverage", c.certificate_coverage},
        {"test",
         {{"coverage", c.test_coverage},
          {"selective_risk", c.test_selective_risk},
          {"hybrid_accuracy", c.hybrid_accuracy},
          {"plan_accuracy", c.analog_accuracy},
          {"digital_accuracy", c.digital_accuracy}}},
        {"accounting",
         {{"source",
           "modelled: every query runs the plan; a deferred one then runs the all-host path"},
          {"expected_energy_j", c.expected_energy_j},
          {"expected_latency_s", c.expected_latency_s},
          {"worst_latency_s", c.worst_latency_s}}}};
  }
  return j;
}

std::string execution_text(const results::Execution& e) {
  std::string s = "execution of " + e.plan + " (" + e.model + ") on " + e.chip + "\n";
  const auto row = [&](const std::string& k, const std::string& v) {
    s += "  " + k + std::string(k.size() < 26 ? 26 - k.size() : 1, ' ') + v + "\n";
  };
  std::string ops;
  for (const std::string& o : e.cim_operators) ops += (ops.empty() ? "" : ", ") + o;
  row("CIM operators", ops.empty() ? "none" : ops);
  row("data set",
      e.dataset + ", " + std::to_string(e.images) + " images, batch " + std::to_string(e.batch));
  row("weights", e.weights);
  row("accuracy (measured)", fmt("%.2f %%", 100 * e.accuracy) + " on the chip, " +
                                 fmt("%.2f %%", 100 * e.digital_accuracy) + " all digital (drop " +
                                 fmt("%.2f", 100 * (e.digital_accuracy - e.accuracy)) +
                                 " points, " + fmt("%.0f %%", 100 * e.paired.level) + " [" +
                                 fmt("%.2f", 100 * e.paired.lo) + ", " +
                                 fmt("%.2f", 100 * e.paired.hi) + "])");
  row("latency (modelled)", fmt("%.4g us", e.plan_cost.latency_s * 1e6) + " (all host " +
                                fmt("%.4g us", e.host_only_cost.latency_s * 1e6) + ")");
  row("energy (modelled)", fmt("%.4g uJ", e.plan_cost.energy_j * 1e6) + " (all host " +
                               fmt("%.4g uJ", e.host_only_cost.energy_j * 1e6) + ")");
  row("wall time (measured)", fmt("%.3f s", e.simulator_seconds) + " with the chip, " +
                                  fmt("%.3f s", e.digital_seconds) + " all digital (" +
                                  std::to_string(e.threads) + " thread" +
                                  (e.threads == 1 ? "" : "s") + ")");
  if (e.certificate) {
    const results::ExecutionCertificate& c = *e.certificate;
    row("certificate", std::string(c.certified ? "certified" : "not certified") + ": risk <= " +
                           fmt("%.3f", c.upper_bound) + " (target " + fmt("%.3f", c.risk) +
                           ") at coverage " + fmt("%.2f %%", 100 * c.certificate_coverage));
    row("hybrid on T", fmt("%.2f %%", 100 * c.hybrid_accuracy) + " accuracy, coverage " +
                           fmt("%.2f %%", 100 * c.test_coverage));
    row("expected per query", fmt("%.4g uJ", c.expected_energy_j * 1e6) + ", " +
                                  fmt("%.4g us", c.expected_latency_s * 1e6) + " (worst " +
                                  fmt("%.4g us", c.worst_latency_s * 1e6) + ")");
  }
  for (const std::string& w : e.warnings) row("warning", w);
  s += provenance_text(e.provenance, "  ");
  return s;
}

}  // namespace hetcim::report
