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
#include "report/drift.h"
#include "util/output_set.h"
#include "util/progress.h"

namespace hetcim::cli {
void register_analog_drift(CLI::App& analog, const Provenance& provenance) {
  struct Args {
    api::AnalogDriftRequest request;
    std::string out;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = analog.add_subcommand(
      "drift",
      "Accuracy of RACE-AIMC's CNN on one chip read at increasing times after programming "
      "(conductance drift from the chip profile), without and with global drift compensation");
  cmd->add_option("model", a->request.model,
                  "ONNX model (race_cnn with weights, e.g. from `hetcim train`)")
      ->required()
      ->check(CLI::ExistingFile);
  // The request's fields from api::analog_drift_fields().
  options::add_fields(cmd, api::analog_drift_fields(), a->request);
  cmd->add_option("--out", a->out, "Output directory: drift.txt, drift.json, drift.{svg,pdf,png}")
      ->required();
  options::quiet(cmd, a->quiet);
  cmd->callback([a, &provenance] {
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
    const report::Figure f = report::write_drift_figure(outputs, a->out, "drift", r.report, prov);
    const std::string text = report::drift_text(r.report, prov);
    outputs.add(a->out + "/drift.txt", text);
    outputs.add(a->out + "/drift.json", report::drift_json(r.report, prov).dump(1) + "\n");
    outputs.commit();
    std::fputs(text.c_str(), stdout);
    (void)f;
  });
}

}  // namespace hetcim::cli
