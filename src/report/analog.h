// Text of the analog chip commands: the per-layer mapping report (`hetcim analog audit`,
// api::analog_audit), the accuracy per chip (`hetcim analog eval`, api::analog_eval) and the
// outputs and converter counts of one run (`hetcim analog run`, api::analog_run).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "exec/tensor.h"
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

[[nodiscard]] std::string analog_run_text(const std::map<std::string, exec::Tensor>& outputs,
                                          int64_t analog_layers, const xbar::ForwardStats& stats);

}  // namespace hetcim::report
