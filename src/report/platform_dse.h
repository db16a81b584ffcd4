// Reports of a platform DSE (dse/platform_dse.h): a CSV and a JSON document with the provenance,
// a text table, and one figure (latency per grid point, one bar per model) in the shared style of
// figure_style.h.
#pragma once

#include <string>
#include <vector>

#include "dse/platform_dse.h"
#include "platform/sweep.h"
#include "report/figure_style.h"
#include "report/gnuplot.h"
#include "util/output_set.h"
#include "util/provenance.h"

namespace hetcim::report {

struct PlatformDseRun {
  std::string platform;  // as given
  const std::vector<platform::SweepAxis>* axes = nullptr;
  const std::vector<dse::PlatformDsePoint>* points = nullptr;
  Provenance provenance;
};

[[nodiscard]] std::string platform_dse_csv(const PlatformDseRun& r);
[[nodiscard]] std::string platform_dse_json(const PlatformDseRun& r);
[[nodiscard]] std::string platform_dse_text(const PlatformDseRun& r);
// <dir>/platform_dse_latency.{svg,pdf,png} (the directory is made if missing).
Figure write_platform_dse_figure(OutputSet& out, const std::string& dir, const PlatformDseRun& r,
                                 const FigureOptions& fig_options = {});

}  // namespace hetcim::report
