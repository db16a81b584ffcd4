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
#include "results/analog.h"
#include "select/controller.h"
#include "util/provenance.h"
#include "xbar/mapping.h"
#include "xbar/programmed_layer.h"

namespace hetcim::report {

// One line per layer: matrix, gamma, levels, clipping, MAE / RMSE / relative L2 of the quantized
// and the programmed weights, clamped and stuck devices; then "not mapped: ..." per skipped layer.
[[nodiscard]] std::string analog_audit_text(const std::vector<xbar::MappingAudit>& audits,
                                            const std::vector<std::string>& skipped);

[[nodiscard]] std::string analog_eval_text(const std::vector<results::AnalogEvalRow>& rows);

// `hetcim analog eval --json` (and hetcim.analog.evaluate): the data set and split, one entry per
// run (chip, mode, accuracy, images, seconds: measured on this machine) and the provenance.
[[nodiscard]] nlohmann::json analog_eval_json(const std::vector<results::AnalogEvalRow>& rows,
                                              const std::string& dataset, const std::string& split,
                                              const Provenance& provenance);

[[nodiscard]] std::string analog_run_text(const std::map<std::string, exec::Tensor>& outputs,
                                          int64_t analog_layers, const xbar::ForwardStats& stats);

// "query,route,label,score\n" and one such row per decision, the first numbered `first`.
[[nodiscard]] std::string analog_serve_csv_header();
[[nodiscard]] std::string analog_serve_rows(int64_t first,
                                            std::span<const select::Decision> decisions);
[[nodiscard]] std::string analog_serve_text(const results::AnalogServeSummary& s);
[[nodiscard]] nlohmann::json analog_serve_json(const results::AnalogServeSummary& s);

}  // namespace hetcim::report
