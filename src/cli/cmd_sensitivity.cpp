// hetcim sensitivity: the accuracy a network loses per operator on a simulated analog chip
// (issue 13), with additivity checks; writes the sensitivity file `hetcim partition
// --sensitivity` reads.
#include <cstdio>
#include <memory>

#include "api/accuracy.h"
#include "api/common.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "report/accuracy.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"

namespace hetcim::cli {
namespace {

struct SensitivityArgs {
  ModelSource model;
  api::SensitivityRequest request;
  std::string out;
  bool quiet = false;
};

void run(SensitivityArgs a, const Provenance& provenance) {
  api::SensitivityRequest& q = a.request;
  q.validate();
  const api::Model model = load_api_model(a.model);
  OutputSet files;
  if (!a.out.empty()) (void)resolve_output_path(a.out);
  api::SensitivityResult r;
  {
    Progress progress("sensitivity of " + model.spec + " on " + q.setup.chip, "network runs", 0,
                      !a.quiet);
    q.progress = [&](size_t done, size_t total) {
      progress.set_total(total);
      progress.update(done);
    };
    r = api::sensitivity(model, q);
    q.progress = nullptr;
  }
  const Provenance prov = api::with_caller(r.provenance, provenance);
  if (!a.out.empty()) files.add(a.out, api::sensitivity_file_json(r, prov).dump(1) + "\n");
  files.commit();
  if (!a.quiet)
    std::fputs(report::sensitivity_text(r.sensitivity, model.spec, q.setup.chip, prov).c_str(),
               stdout);
}

}  // namespace

void register_sensitivity(CLI::App& app, const Provenance& provenance) {
  auto a = std::make_shared<SensitivityArgs>();
  api::AccuracySetup& s = a->request.setup;
  s.dataset = "fashion-mnist";
  CLI::App* cmd = app.add_subcommand(
      "sensitivity",
      "Measure the accuracy each offloadable operator loses on a simulated analog chip (alone, "
      "then greedy and pairwise sets to check additivity); write the file `partition "
      "--sensitivity` reads");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  cmd->add_option("--chip", s.chip, "Chip profile FILE:PROFILE, e.g. data/chips.yaml:A3")
      ->required();
  options::dataset(cmd, s.dataset, s.data_dir, {"fashion-mnist", "cifar10", "synthetic"},
                   "fashion-mnist, cifar10 (--samples images of --calibration, pixels / 255) or "
                   "synthetic (seeded inputs labelled by the fp32 model's own top-1)",
                   "Directory of the data set (default: its usual place)");
  cmd->add_option("--calibration", s.calibration,
                  "Images of a data set: holdout (default: the first --samples of the seeded "
                  "held-out training images, those of the model's .train.json when it has one, "
                  "which it never trained on) or test (the first --samples test images; a plan "
                  "later evaluated on the test set then reuses them)")
      ->check(CLI::IsMember({"holdout", "test"}));
  cmd->add_option_function<int64_t>(
         "--holdout", [a](int64_t n) { a->request.setup.holdout = n; },
         "Held-out training images (default: the model's .train.json's, else 10000)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option_function<uint64_t>(
      "--holdout-seed", [a](uint64_t v) { a->request.setup.holdout_seed = v; },
      "Seed of the held-out subset (default: the model's .train.json's, else 1)");
  cmd->add_option("--samples", s.samples, "Images of the calibration set")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24))
      ->capture_default_str();
  options::chip_seeds(cmd, s.chip_seed, s.read_seed, "Chip instance (programmed state)",
                      "Read noise");
  cmd->add_option("--input-seed", s.input_seed, "Synthetic inputs")->capture_default_str();
  cmd->add_option("--weight-seed", s.weight_seed, "Weights a model does not carry (zoo models)")
      ->capture_default_str();
  cmd->add_option("--cache", s.cache_dir, "Logit cache directory (content-addressed)");
  cmd->add_option("--level", a->request.level, "Confidence level of the intervals")
      ->check(CLI::Range(0.5, 0.999999))
      ->capture_default_str();
  cmd->add_option("--max-pairs", a->request.max_pairs,
                  "Pairwise additivity checks, at most this many (0 = none)")
      ->capture_default_str();
  cmd->add_option("--operators", a->request.operators,
                  "Only these operators (default: every operator the chip can run)")
      ->delimiter(',');
  cmd->add_option("--cost", s.cost,
                  "The cost hetcim partition budgets: top1 (single top-1 drops, points; the "
                  "default) or logit (relative mean squared logit error, mapped to points by a fit "
                  "on the greedy check); orders the greedy check, recorded in the file")
      ->check(CLI::IsMember({"top1", "logit"}));
  cmd->add_option("--out", a->out, "Write the sensitivity file (JSON)");
  add_input_shape_option(cmd, a->model);
  cmd->add_option("--batch", a->model.batch, "Batch size of a zoo model")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "Print nothing (no table, no progress)");
  cmd->callback([a, &provenance] { run(*a, provenance); });
}

}  // namespace hetcim::cli
