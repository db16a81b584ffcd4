// Text of the analog chip commands: the per-layer mapping report (`hetcim analog audit`,
// api::analog_audit), the accuracy per chip (`hetcim analog eval`, api::analog_eval) and the
// outputs and converter counts of one run (`hetcim analog run`, api::analog_run), and the
// decisions and summary of a frozen policy served query by query (`hetcim analog serve`,
// api::analog_serve).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "exec/tensor.h"
#include "select/controller.h"
#include "util/provenance.h"
#include "xbar/mapping.h"
#include "xbar/programmed_layer.h"

namespace hetcim::report {

// One line per layer: matrix, gamma, levels, clipping, MAE / RMSE / relative L2 of the quantized
// and the programmed weights, clamped and stuck devices; then "not mapped: ..." per skipped layer.
[[nodiscard]] std::string analog_audit_text(const std::vector<xbar::MappingAudit>& audits,
                                            const std::vector<std::string>& skipped);

struct AnalogEvalRow {
  std::string chip;  // profile name, or "digital"
  std::string mode;  // simulation mode, "-" for the digital model
  double accuracy = 0.0;
  int64_t images = 0;
  double seconds = 0.0;
};

[[nodiscard]] std::string analog_eval_text(const std::vector<AnalogEvalRow>& rows);

// `hetcim analog eval --json` (and hetcim.analog.evaluate): the data set and split, one entry per
// run (chip, mode, accuracy, images, seconds: measured on this machine) and the provenance.
[[nodiscard]] nlohmann::json analog_eval_json(const std::vector<AnalogEvalRow>& rows,
                                              const std::string& dataset, const std::string& split,
                                              const Provenance& provenance);

[[nodiscard]] std::string analog_run_text(const std::map<std::string, exec::Tensor>& outputs,
                                          int64_t analog_layers, const xbar::ForwardStats& stats);

// `hetcim analog serve`: what the policy did with the queries and what its monitors say.
struct AnalogServeSummary {
  std::string policy_file;
  std::string unit;  // "" when the policy selected none
  double threshold = 0.0;
  std::string score;  // confidence score name
  select::ControllerCounts counts;
  std::string queries;    // the queries' origin (data set name, file, <stdin>)
  bool labelled = false;  // queries from a data set: accepted answers checked, audit run
  int64_t accepted_wrong = 0;
  // The label-free coverage monitor against the certificate's coverage (anytime 95 %).
  double coverage = 0, coverage_lower = 0, coverage_upper = 1, certified_lower = 0,
         certified_upper = 1;
  int64_t shifted_at = -1;  // first query where it shifted (-1: never)
  // The labelled audit of every accepted query (anytime 95 % bounds on the error rate).
  double audit_lower = 0, audit_upper = 1, risk_target = 0;
  int64_t broken_at = -1;
};

// "query,route,label,score\n" and one such row per decision, the first numbered `first`.
[[nodiscard]] std::string analog_serve_csv_header();
[[nodiscard]] std::string analog_serve_rows(int64_t first,
                                            std::span<const select::Decision> decisions);
[[nodiscard]] std::string analog_serve_text(const AnalogServeSummary& s);
[[nodiscard]] nlohmann::json analog_serve_json(const AnalogServeSummary& s);

}  // namespace hetcim::report
