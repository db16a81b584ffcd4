// hetcim analog study: seed 002's experiments end to end. Trains (or reuses) N models with a
// held-out calibration subset of the training set, simulates each chip of the pool once per model
// into a logit cache, replays the protocol and its ablations from the cache (select/study.h) and
// writes Table II / Table III / ablation tables, Fig. 2 a-d analogues and report.html.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "api_torch/pool.h"
#include "api_torch/training.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "dist/dist.h"
#include "report/race_study.h"
#include "select/study.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/provenance.h"
#include "util/units.h"

namespace hetcim::cli {
namespace {

namespace fs = std::filesystem;

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
    // Every check before the first minute of training.
    if (dist::size() > 1)
      throw user_error("analog study runs as one process (its training and simulations are not ",
                       "split over MPI ranks yet; `analog select` and `dse` are): run it without ",
                       "mpirun/srun");
    select::StudyOptions so;
    so.race = a->race;
    so.race.energy.fallback = parse_quantity(a->fallback, Quantity::Energy, "--fallback-energy");
    so.design_risks = parse_list(a->design_risks, "--design-risks");
    so.availability_drops = a->availability;
    const std::vector<api::PoolUnit> units0 =
        api::parse_pool(a->chips, a->pool, a->mode, a->seed, a->seed);
    select::validate(so.race, a->holdout, true);
    for (double r : so.design_risks)
      if (!(r > 0.0 && r < 1.0)) throw user_error("--design-risks: ", r, " is outside (0, 1)");
    if (fs::exists(a->out) && !fs::is_directory(a->out))
      throw user_error("--out ", a->out, ": exists and is not a directory");
    const std::string models_dir = a->out + "/models", cache_dir = a->out + "/cache";
    const report::PaperData paper = report::load_paper_data(a->paper_data);
    paper.require({"table2", "fig2b", "fig2c"},
                  {"e_fallback", "e_selective", "break_even_fallback", "e_always_on"});

    std::vector<api::TrainJob> jobs;
    for (int i = 1; i <= a->models; ++i) {
      api::TrainJob job;
      job.dataset = a->dataset;
      job.data_dir = a->data_dir;
      job.preset = a->preset;
      job.holdout = a->holdout;
      job.holdout_seed = a->holdout_seed;
      job.out = models_dir + "/run" + std::to_string(i) + ".onnx";
      train::TrainOptions& o = job.options;
      o.epochs = a->preset == "fast" ? 2 : 30;
      o.lr = 2e-3;
      if (a->epochs > 0) o.epochs = a->epochs;
      if (a->lr > 0.0) o.lr = a->lr;
      o.seed = a->seed + static_cast<uint64_t>(i - 1);
      o.train_limit = a->train_limit;
      o.threads = a->threads;
      o.crop_padding = -1;
      if (fs::exists(job.out)) {  // reuse only a model trained exactly so
        const std::optional<api::TrainRecord> rec = api::read_train_record(job.out);
        if (!rec)
          throw user_error(job.out,
                           ": exists without its training record (.train.json); "
                           "remove it or choose another --out");
        std::ifstream in(rec->file);
        const std::string why =
            api::record_mismatch(nlohmann::json::parse(in, nullptr, false), job);
        if (!why.empty())
          throw user_error(rec->file, ": ", why, "; remove the model or choose another --out");
      }
      jobs.push_back(job);
    }
    fs::create_directories(models_dir);

    int trained = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (fs::exists(jobs[i].out)) continue;
      if (!a->quiet)
        std::fprintf(stderr, "training model %zu of %zu (%d epochs)...\n", i + 1, jobs.size(),
                     jobs[i].options.epochs);
      (void)api::train_to_files(jobs[i]);
      ++trained;
    }

    api::DataRequest dr;
    dr.dataset = a->dataset;
    dr.data_dir = a->data_dir;
    dr.calibration = "holdout";
    dr.holdout = a->holdout;
    dr.holdout_seed = a->holdout_seed;
    dr.test_images = a->test_images;
    const api::ProtocolData d = api::load_protocol_data(dr);
    std::vector<select::PoolLogits> runs;
    int64_t simulated = 0, cached = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      api::PoolRequest pr;
      pr.model = jobs[i].out;
      const uint64_t s = a->seed + i;
      pr.units = api::parse_pool(a->chips, a->pool, a->mode, s, s);
      pr.eval.batch_size = a->batch_size;
      pr.eval.threads = a->threads;
      pr.cache_dir = cache_dir;
      pr.on_simulation = options::stderr_lines(a->quiet);
      api::PoolResult p = api::pool_logits(pr, d);
      simulated += p.simulated;
      cached += p.cached;
      runs.push_back(std::move(p.logits));
    }
    const select::StudyResult st = select::run_study(runs, so);

    report::RaceStudyInfo info;
    info.risk_target = so.race.risk;
    info.fallback = so.race.energy.fallback;
    std::string pool_names;
    for (const api::PoolUnit& u : units0) pool_names += (pool_names.empty() ? "" : ",") + u.name;
    const train::TrainOptions& o0 = jobs[0].options;
    info.provenance = {
        {"data", d.description},
        {"models", std::to_string(jobs.size()) + " x race_cnn, " + std::to_string(o0.epochs) +
                       " epochs, lr " + report::gnuplot_number(o0.lr) + ", seeds " +
                       std::to_string(a->seed) + ".." + std::to_string(a->seed + jobs.size() - 1) +
                       " (" + std::to_string(trained) + " trained now, " +
                       std::to_string(jobs.size() - trained) + " reused from " + models_dir + ")"},
        {"chips", a->chips + ": " + pool_names +
                      (a->mode.empty() ? "" : " (mode " + a->mode + ")") +
                      "; run i: chip and read seeds derived from seed + i - 1 and the unit name"},
        {"logits", "simulated (hetcim xbar, classifier layers on chip) " +
                       std::to_string(simulated) + " now, " + std::to_string(cached) +
                       " from the cache " + cache_dir},
        {"protocol", "r = " + report::gnuplot_number(so.race.risk) +
                         ", delta_C = " + report::gnuplot_number(so.race.certificate_delta) +
                         ", r_d = " + report::gnuplot_number(so.race.design_risk) +
                         ", delta_d = " + report::gnuplot_number(so.race.design_delta) +
                         ", H/P/C = " + std::to_string(so.race.splits.hardware) + "/" +
                         std::to_string(so.race.splits.policy) + "/" +
                         std::to_string(so.race.splits.certificate) + ", split seeds " +
                         std::to_string(so.race.split_seed) + "+i"},
        {"energy",
         "modelled: seed 002's component model, Table I energies, C 0.12 uJ, "
         "controller 0.003 uJ, 0.0002 uJ per class, fallback " +
             a->fallback},
        {"published values", paper.origin + " (the paper: CIFAR-10; markers in the figures)"},
        {"version", version_string()},
        {"machine", machine_description()}};
    const std::string text = report::race_study_text(st, info);
    OutputSet outputs;
    const std::vector<report::Figure> figs =
        report::write_race_study_figures(outputs, st, info, &paper, a->out);
    report::write_race_study_html(outputs, st, info, figs, a->out);
    nlohmann::json pool_json = nlohmann::json::array();
    for (const api::PoolUnit& u : units0) pool_json.push_back(u.name);
    const nlohmann::json options = {{"dataset", a->dataset},
                                    {"models", jobs.size()},
                                    {"epochs", o0.epochs},
                                    {"lr", o0.lr},
                                    {"seed", a->seed},
                                    {"holdout", a->holdout},
                                    {"pool", pool_json},
                                    {"mode", a->mode.empty() ? "profiles" : a->mode},
                                    {"risk", so.race.risk},
                                    {"certificate_delta", so.race.certificate_delta},
                                    {"design_risk", so.race.design_risk},
                                    {"design_delta", so.race.design_delta},
                                    {"splits",
                                     {{"hardware", so.race.splits.hardware},
                                      {"policy", so.race.splits.policy},
                                      {"certificate", so.race.splits.certificate},
                                      {"test", d.test ? d.test->count : int64_t{0}}}},
                                    {"split_seed", so.race.split_seed},
                                    {"design_risks", so.design_risks},
                                    {"availability", so.availability_drops},
                                    {"fallback_uJ", so.race.energy.fallback * 1e6}};
    const nlohmann::json j = report::race_study_json(st, info, options);
    outputs.add(a->out + "/study.json", j.dump(1) + "\n");
    outputs.add(a->out + "/study.txt", text);
    outputs.commit();
    std::fputs(text.c_str(), stdout);
  });
}

}  // namespace hetcim::cli
