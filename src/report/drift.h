// Renderings of `hetcim analog drift` (beyond seed 002): accuracy of a model on one simulated chip
// read at increasing times after programming (xbar's drift model, chip_profile.h), without and
// with global drift compensation, and, with a frozen policy, the selective coverage and the
// accepted error rate at each time beside the certificate's bound made at t0. A table, JSON and
// one figure in the shared style (report/figure_style.h), each with its provenance.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/figure_style.h"
#include "report/gnuplot.h"
#include "results/drift.h"
#include "util/provenance.h"

namespace hetcim::report {

[[nodiscard]] std::string drift_text(const results::DriftReport& r, const Provenance& provenance);
[[nodiscard]] nlohmann::json drift_json(const results::DriftReport& r,
                                        const Provenance& provenance);
// Stages <dir>/<name>.{svg,pdf,png}: accuracy vs time (log axis), and with a policy a second panel
// of coverage and accepted error rate vs time with the certificate's bound.
Figure write_drift_figure(OutputSet& out, const std::string& dir, const std::string& name,
                          const results::DriftReport& r, const Provenance& provenance,
                          const FigureOptions& fig_options = {});

}  // namespace hetcim::report
