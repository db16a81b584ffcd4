// hetcim analog drift: seed 002's CNN with its classifier layers on one simulated chip, read at
// increasing times after programming (xbar's conductance-drift model: chip_profile.h, fields
// drift_nu / drift_nu_sd / drift_t0 of the chips file), without and with global drift
// compensation; accuracy vs time as a table, JSON and a figure in the shared style. The chip
// state (programming noise, stuck devices, drift exponents) and the read-noise stream are the same
// at every time, so the differences between times are the drift's alone.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "api/common.h"
#include "api_torch/drift.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/torch_flags.h"
#include "report/drift.h"
#include "util/output_set.h"
#include "util/progress.h"

namespace hetcim::cli {
void register_analog_drift(CLI::App& analog, const Provenance& provenance) {
  auto a = std::make_shared<AnalogDriftArgs>();
  add_analog_drift(analog, *a)->callback([a, &provenance] {
    api::AnalogDriftRequest q = a->request;
    std::optional<Progress> progress;
    q.progress = [&](size_t done, size_t total) {
      if (!progress) progress.emplace("analog drift", "reads", total, !a->quiet);
      if (done > 0) progress->update(done);
    };
    const api::AnalogDriftResult r = api::analog_drift(q);
    progress.reset();
    const Provenance prov = api::with_caller(r.provenance, provenance);
    OutputSet outputs;
    outputs.make_directory(a->out);
    const report::Figure f =
        report::write_drift_figure(outputs, a->out, "drift", r.report, prov, a->drawing);
    const std::string text = report::drift_text(r.report, prov);
    outputs.add(a->out + "/drift.txt", text);
    outputs.add(a->out + "/drift.json", report::drift_json(r.report, prov).dump(1) + "\n");
    outputs.commit();
    std::fputs(text.c_str(), stdout);
    (void)f;
  });
}

}  // namespace hetcim::cli
