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
    std::string model, chip, policy, times = "1s,1h,1d,1mo,1y", dataset = "fashion-mnist", data_dir,
                                     split = "test", compensation = "both", out;
    uint64_t seed = 1, read_seed = 1;
    int64_t audit = 0;
    bool quiet = false;
    train::EvalOptions options;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = analog.add_subcommand(
      "drift",
      "Accuracy of seed 002's CNN on one chip read at increasing times after programming "
      "(conductance drift from the chip profile), without and with global drift compensation");
  cmd->add_option("model", a->model, "ONNX model (race_cnn with weights, e.g. from `hetcim train`)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--chip", a->chip,
                  "FILE:PROFILE, a profile with drift fields (not with --policy)");
  cmd->add_option("--policy", a->policy,
                  "A frozen policy (`analog select --policy-out`) for this model: its chip and "
                  "seeds, and its coverage and accepted error rate at each time");
  cmd->add_option("--times", a->times,
                  "Read times after programming, increasing (units s, min, h, d, w, mo, y)")
      ->capture_default_str();
  cmd->add_option("--compensation", a->compensation, "none, global or both")
      ->check(CLI::IsMember({"none", "global", "both"}))
      ->capture_default_str();
  options::dataset(cmd, a->dataset, a->data_dir);
  options::split(cmd, a->split);
  options::limit(cmd, a->options.limit);
  options::chip_seeds(cmd, a->seed, a->read_seed,
                      "Chip seed: programming noise, stuck devices, drift exponents",
                      "Seed of the read noise (the same at every time)");
  cmd->add_option("--batch-size", a->options.batch_size,
                  "Images per analog read (default with --policy: the policy's)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  options::threads(cmd, a->options.threads, "libtorch threads (0: libtorch's default)");
  cmd->add_option("--out", a->out, "Output directory: drift.txt, drift.json, drift.{svg,pdf,png}")
      ->required();
  cmd->add_option("--audit", a->audit,
                  "With --policy: a labelled audit of the first N accepted queries at each time "
                  "(anytime-valid upper bound on the accepted error rate; 0: none)")
      ->check(CLI::NonNegativeNumber);
  options::quiet(cmd, a->quiet);
  cmd->callback([a, cmd, &provenance] {
    api::AnalogDriftRequest q;
    q.model = a->model;
    q.chip = a->chip;
    q.policy = a->policy;
    q.times = a->times;
    q.compensation = a->compensation;
    q.dataset = a->dataset;
    q.data_dir = a->data_dir;
    q.split = a->split;
    if (cmd->count("--chip-seed") + cmd->count("--seed") > 0) q.chip_seed = a->seed;
    if (cmd->count("--read-seed") > 0) q.read_seed = a->read_seed;
    if (cmd->count("--batch-size") > 0) q.batch_size = a->options.batch_size;
    q.audit = a->audit;
    q.eval = a->options;
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
