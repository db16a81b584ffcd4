// `hetcim reproduce seed000 --calibrate`: seed 000's ARM host model (cost/host_model.h,
// arm-cortex-a72) fitted to what Klein et al. publish for that host (cost/host_fit.h): the two
// YOLOv5n latencies of Sec. V-B (270 ms at 25 and 127 ms at 100 crossbars, 50 ns), the speedups of
// Fig. 4 (every model at 50 ns) and of Fig. 3 (ResNet-18 at the other MVM latencies), each as the
// exact solver's optimum on the DSE grid of the run. A CALIBRATION: the fitted model reproduces
// the paper's numbers by construction as far as three parameters allow; what it is worth is what
// the figures not fitted become (Fig. 5's operator counts, the schedule, the energies).
#pragma once

#include <cstdint>
#include <vector>

#include "cost/hardware.h"
#include "cost/host_fit.h"
#include "dse/dse.h"
#include "formats/paper_data.h"
#include "results/reproduce.h"

namespace hetcim::api {

struct Seed000CalibrationRequest {
  // The grid the targets are taken from (a published value outside it is not a target).
  std::vector<int64_t> crossbars = {25, 50, 100, 200};
  std::vector<double> t_mvm = {50e-9, 100e-9, 500e-9, 1000e-9};
  int threads = 1;
  int max_evaluations = 60;  // of the whole target set (each one DSE over the targets)
  partition::BuildOptions build;
};

// Fits `arm.host.model` (an analytical preset) on the exact solver's optima at the targets of
// `paper` (seed000.yaml: fig5_latency, fig4, fig3, rows "arm ...") that `models` and the
// request's grid hold; UserError when the grid holds no published ARM value. `host` of the
// result: "arm-calibrated".
[[nodiscard]] results::Seed000Calibration calibrate_seed000_arm(
    const std::vector<dse::DseModel>& models, const cost::Hardware& arm,
    const formats::PaperData& paper, const Seed000CalibrationRequest& request);

}  // namespace hetcim::api
