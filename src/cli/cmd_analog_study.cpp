// hetcim analog study: seed 002's experiments end to end. Trains (or reuses) N models with a
// held-out calibration subset of the training set, simulates each chip of the pool once per model
// into a logit cache, replays the protocol and its ablations from the cache (select/study.h) and
// writes Table II / Table III / ablation tables, Fig. 2 a-d analogues and report.html.
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "api_torch/study.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/race_study.h"
#include "util/error.h"
#include "util/output_set.h"

namespace hetcim::cli {
namespace {

std::vector<double> parse_list(const std::string& text, const char* flag) {
  std::vector<double> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || !std::isfinite(v))
      throw user_error(flag, ": expected comma-separated numbers, got '", item, "'");
    out.push_back(v);
  }
  if (out.empty()) throw user_error(flag, ": expected comma-separated numbers");
  return out;
}

}  // namespace

void register_analog_study(CLI::App& analog) {
  struct Args {
    std::string dataset = "fashion-mnist", data_dir, chips, pool, mode, out, preset = "paper";
    std::string paper_data = HETCIM_DEFAULT_DATA_DIR "/paper/seed002.yaml";
    std::string design_risks = "0.05,0.06,0.07,0.08,0.09,0.10", fallback = "4uJ";
    int models = 5, epochs = 0;
    double lr = 0.0;
    int64_t train_limit = 0, holdout = 10000, test_images = -1;
    uint64_t holdout_seed = 1, seed = 1;
    int threads = 1, availability = 3;
    int64_t batch_size = 128;
    bool quiet = false;
    select::RaceOptions race;
  };
  auto a = std::make_shared<Args>();
  a->race.splits = select::SplitSizes{3000, 2000, 5000, 0};
  CLI::App* cmd = analog.add_subcommand(
      "study",
      "Seed 002's experiments: train or reuse N models with held-out calibration images, "
      "simulate each chip once per model (logit cache), replay the protocol and its ablations, "
      "write Table II / III, Fig. 2 a-d analogues and report.html");
  cmd->add_option("--dataset", a->dataset, "fashion-mnist or cifar10")
      ->check(CLI::IsMember({"fashion-mnist", "cifar10"}))
      ->capture_default_str();
  cmd->add_option("--data-dir", a->data_dir, "Directory of the data set files");
  cmd->add_option("--models", a->models, "Independently trained models (runs); model i has seed i")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--preset", a->preset, "Training: paper (30 epochs, lr 2e-3) or fast (2 epochs)")
      ->check(CLI::IsMember({"paper", "fast"}))
      ->capture_default_str();
  cmd->add_option("--epochs", a->epochs, "Epochs (default: the preset's)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--lr", a->lr, "Peak learning rate (default: the preset's)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--train-limit", a->train_limit,
                  "Train on the first N images not held out (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--holdout", a->holdout, "Training images held out: the calibration pool")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--holdout-seed", a->holdout_seed, "Seed of the held-out subset")
      ->capture_default_str();
  cmd->add_option("--chips", a->chips, "Chip profiles file (e.g. data/chips.yaml)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--pool", a->pool,
                  "Comma-separated units, mildest first (availability drops the first ones)");
  cmd->add_option("--mode", a->mode, "Override the profiles' simulation mode")
      ->check(CLI::IsMember({"physical", "reference"}));
  cmd->add_option("--seed", a->seed,
                  "Run i (1-based) trains with seed + i - 1 and simulates chips with base chip "
                  "and read seeds seed + i - 1 (derived per unit name)")
      ->capture_default_str();
  cmd->add_option("--split-seed", a->race.split_seed, "Run i splits H/P/C with split-seed + i - 1")
      ->capture_default_str();
  cmd->add_option("--hardware", a->race.splits.hardware, "Rows of H")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--policy", a->race.splits.policy, "Rows of P")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--certificate", a->race.splits.certificate, "Rows of C")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--test", a->test_images, "First N official test images as T (default: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--design-risks", a->design_risks, "Design risks of the sweep (Fig. 2b)")
      ->capture_default_str();
  cmd->add_option("--availability", a->availability,
                  "Drop the first 1..N units of the pool (Fig. 2c)")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  cmd->add_option("--fallback-energy", a->fallback, "Operating point of the fallback cost F")
      ->capture_default_str();
  cmd->add_option("--batch-size", a->batch_size, "Images per analog read")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "libtorch threads")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--out", a->out, "Output directory")->required();
  cmd->add_option("--paper-data", a->paper_data,
                  "The paper's published values, drawn as markers in Fig. 2 a-d")
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a] {
    api::AnalogStudyRequest q;
    q.dataset = a->dataset;
    q.data_dir = a->data_dir;
    q.models = a->models;
    q.preset = a->preset;
    q.epochs = a->epochs;
    q.lr = a->lr;
    q.train_limit = a->train_limit;
    q.holdout = a->holdout;
    q.holdout_seed = a->holdout_seed;
    q.chips = a->chips;
    q.pool = a->pool;
    q.mode = a->mode;
    q.seed = a->seed;
    q.race = a->race;
    q.test_images = a->test_images;
    q.design_risks = parse_list(a->design_risks, "--design-risks");
    q.availability = a->availability;
    q.fallback_energy = a->fallback;
    q.batch_size = a->batch_size;
    q.threads = a->threads;
    q.out = a->out;
    q.paper_data = a->paper_data;
    q.over_ranks = true;  // the simulations of every model over the MPI ranks of the run
    if (!a->quiet)
      q.on_training = [](size_t i, size_t n, int epochs) {
        std::fprintf(stderr, "training model %zu of %zu (%d epochs)...\n", i + 1, n, epochs);
      };
    q.on_simulation = options::stderr_lines(a->quiet);
    const api::AnalogStudyResult r = api::analog_study(q);
    if (!r.root) return;  // rank 0 writes the outputs
    const std::string text = report::race_study_text(r.study, r.info);
    OutputSet outputs;
    const std::vector<report::Figure> figs =
        report::write_race_study_figures(outputs, r.study, r.info, &r.paper, a->out);
    report::write_race_study_html(outputs, r.study, r.info, figs, a->out);
    const nlohmann::json j = report::race_study_json(r.study, r.info, r.options);
    outputs.add(a->out + "/study.json", j.dump(1) + "\n");
    outputs.add(a->out + "/study.txt", text);
    outputs.commit();
    std::fputs(text.c_str(), stdout);
  });
}

}  // namespace hetcim::cli
