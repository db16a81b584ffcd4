#include "api_torch/study.h"

#include <filesystem>
#include <optional>

#include "api/common.h"
#include "api_torch/training.h"
#include "data/dataset.h"
#include "dist/dist.h"
#include "formats/number_text.h"
#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "util/shipped_data.h"
#include "util/units.h"

namespace hetcim::api {
namespace {

namespace fs = std::filesystem;

// The fallback cost as a user writes it ("4uJ").
std::string fallback_text(double joules) {
  std::string s = format_quantity(joules, Quantity::Energy);
  std::erase(s, ' ');
  return s;
}

}  // namespace

std::vector<double> parse_design_risks(const std::string& text) {
  std::vector<double> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    item.erase(0, item.find_first_not_of(' '));  // "0.05, 0.1" as "0.05,0.1"
    item.erase(item.find_last_not_of(' ') + 1);
    const std::optional<double> v = parse_finite(item);
    if (!v) throw user_error("design_risks: expected comma-separated numbers, got '", item, "'");
    out.push_back(*v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

void AnalogStudyRequest::validate() const {
  if (chips.empty()) throw user_error("chips: required (a chip profiles file)");
  if (out.empty()) throw user_error("out: required (the output directory)");
  check_fields(*this, analog_study_fields());
  data::check_dataset_name("dataset", dataset);
  if (lr > 0.0 && lr < 1e-12)
    throw user_error("lr: expected 0 (the preset's) or a number in [1e-12, 10], got ", lr);
  if (design_risks.empty()) throw user_error("design_risks: expected comma-separated numbers");
  for (double r : design_risks)
    if (!(r > 0.0 && r < 1.0))
      throw user_error("design_risks: expected numbers in (0, 1), got ", r);
}

AnalogStudyResult analog_study(const AnalogStudyRequest& a) {
  const bool root = !a.over_ranks || dist::is_root();
  a.validate();
  select::StudyOptions so;
  so.race = a.race;
  so.design_risks = a.design_risks;
  so.availability_drops = a.availability;
  const std::vector<PoolUnit> units0 = parse_pool(a.chips, a.pool, a.mode, a.seed, a.seed);
  select::validate(so.race, a.holdout, true);
  if (fs::exists(a.out) && !fs::is_directory(a.out))
    throw user_error("--out ", a.out, ": exists and is not a directory");
  const std::string models_dir = a.out + "/models", cache_dir = a.out + "/cache";
  AnalogStudyResult r;
  r.paper = formats::load_paper_data(a.paper_data.empty() ? shipped_data_path("paper/seed002.yaml")
                                                          : a.paper_data);
  r.paper.require({"table2", "fig2b", "fig2c"},
                  {"e_fallback", "e_selective", "break_even_fallback", "e_always_on"});

  std::vector<TrainJob> jobs;
  for (int i = 1; i <= a.models; ++i) {
    TrainJob job;
    job.dataset = a.dataset;
    job.data_dir = a.data_dir;
    job.preset = a.preset;
    job.holdout = a.holdout;
    job.holdout_seed = a.holdout_seed;
    job.out = models_dir + "/run" + std::to_string(i) + ".onnx";
    train::TrainOptions& o = job.options;
    o.epochs = a.preset == "fast" ? 2 : 30;
    o.lr = 2e-3;
    if (a.epochs > 0) o.epochs = a.epochs;
    if (a.lr > 0.0) o.lr = a.lr;
    o.seed = a.seed + static_cast<uint64_t>(i - 1);
    o.train_limit = a.train_limit;
    o.threads = a.threads;
    o.crop_padding = -1;
    // A model's training writes a checkpoint after every epoch (train/train.h): a study stopped
    // mid-training (Ctrl-C, a session's end) continues where it stopped on the next call.
    o.checkpoint = job.out + ".checkpoint";
    if (fs::exists(job.out)) {  // reuse only a model trained exactly so
      const std::optional<TrainRecord> rec = read_train_record(job.out);
      if (!rec)
        throw user_error(job.out,
                         ": exists without its training record (.train.json); "
                         "remove it or choose another --out");
      const std::string why = record_mismatch(
          nlohmann::json::parse(read_input_file(rec->file, "training record"), nullptr, false),
          job);
      if (!why.empty())
        throw user_error(rec->file, ": ", why, "; remove the model or choose another --out");
    }
    jobs.push_back(job);
  }

  // Training is not split over ranks: rank 0 trains what is missing, the others wait for it here.
  std::exception_ptr failure;
  if (root) {
    try {
      fs::create_directories(models_dir);
      for (size_t i = 0; i < jobs.size(); ++i) {
        if (fs::exists(jobs[i].out)) continue;
        if (a.on_training) a.on_training(i, jobs.size(), jobs[i].options.epochs);
        (void)train_to_files(jobs[i]);
        ++r.trained;
      }
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (a.over_ranks)
    dist::agree(failure);
  else if (failure)
    std::rethrow_exception(failure);
  r.reused = static_cast<int>(jobs.size()) - r.trained;

  DataRequest dr;
  dr.dataset = a.dataset;
  dr.data_dir = a.data_dir;
  dr.calibration = "holdout";
  dr.holdout = a.holdout;
  dr.holdout_seed = a.holdout_seed;
  dr.test_images = a.test_images;
  const ProtocolData d = load_protocol_data(dr);
  std::vector<PoolRequest> pools;
  for (size_t i = 0; i < jobs.size(); ++i) {
    PoolRequest pr;
    pr.model = jobs[i].out;
    const uint64_t s = a.seed + i;
    pr.units = parse_pool(a.chips, a.pool, a.mode, s, s);
    pr.eval.batch_size = a.batch_size;
    pr.eval.threads = a.threads;
    pr.cache_dir = cache_dir;
    pr.on_simulation = a.on_simulation;
    pr.on_cache_warning = a.on_simulation;  // a refused cache entry, simulated again
    pr.over_ranks = a.over_ranks;
    pools.push_back(std::move(pr));
  }
  // One queue for every model's simulations (models x units x parts).
  std::vector<PoolResult> pooled = pool_logits(pools, d);
  if (!root) {
    AnalogStudyResult none;
    none.root = false;
    return none;
  }
  std::vector<select::PoolLogits> runs;
  for (PoolResult& p : pooled) {
    r.simulated += p.simulated;
    r.cached += p.cached;
    runs.push_back(std::move(p.logits));
  }
  r.study = select::run_study(runs, so);
  r.status.origin = Origin::Measured;

  results::RaceStudyInfo& info = r.info;
  info.risk_target = so.race.risk;
  info.fallback = so.race.energy.fallback;
  std::string pool_names;
  for (const PoolUnit& u : units0) pool_names += (pool_names.empty() ? "" : ",") + u.name;
  const train::TrainOptions& o0 = jobs[0].options;
  info.provenance = {
      {"data", d.description},
      {"models", std::to_string(jobs.size()) + " x race_cnn, " + std::to_string(o0.epochs) +
                     " epochs, lr " + formats::number_g9(o0.lr) + ", seeds " +
                     std::to_string(a.seed) + ".." + std::to_string(a.seed + jobs.size() - 1) +
                     " (" + std::to_string(r.trained) + " trained now, " +
                     std::to_string(r.reused) + " reused from " + models_dir + ")"},
      {"chips", a.chips + ": " + pool_names + (a.mode.empty() ? "" : " (mode " + a.mode + ")") +
                    "; run i: chip and read seeds derived from seed + i - 1 and the unit name"},
      {"logits", "simulated (hetcim xbar, classifier layers on chip) " +
                     std::to_string(r.simulated) + " now, " + std::to_string(r.cached) +
                     " from the cache " + cache_dir},
      {"protocol", "r = " + formats::number_g9(so.race.risk) +
                       ", delta_C = " + formats::number_g9(so.race.certificate_delta) +
                       ", r_d = " + formats::number_g9(so.race.design_risk) +
                       ", delta_d = " + formats::number_g9(so.race.design_delta) +
                       ", H/P/C = " + std::to_string(so.race.splits.hardware) + "/" +
                       std::to_string(so.race.splits.policy) + "/" +
                       std::to_string(so.race.splits.certificate) + ", split seeds " +
                       std::to_string(so.race.split_seed) + "+i"},
      {"energy",
       "modelled: RACE-AIMC's component model, Table I energies, C 0.12 uJ, "
       "controller 0.003 uJ, 0.0002 uJ per class, fallback " +
           fallback_text(so.race.energy.fallback)},
      {"published values", r.paper.origin + " (the paper: CIFAR-10; markers in the figures)"},
      {"version", version_string()},
      {"machine", machine_description()}};
  nlohmann::json pool_json = nlohmann::json::array();
  for (const PoolUnit& u : units0) pool_json.push_back(u.name);
  r.options = {{"dataset", a.dataset},
               {"models", jobs.size()},
               {"epochs", o0.epochs},
               {"lr", o0.lr},
               {"seed", a.seed},
               {"holdout", a.holdout},
               {"holdout_seed", a.holdout_seed},
               {"preset", a.preset},
               {"train_limit", a.train_limit},  // 0: every training image not held out
               {"batch_size", a.batch_size},
               {"pool", pool_json},
               {"mode", a.mode.empty() ? "profiles" : a.mode},
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
  r.provenance = library_provenance();
  r.provenance.set("source", "logits simulated (hetcim xbar, classifier layers on chip) on " +
                                 d.description +
                                 "; models trained with libtorch; energies "
                                 "modelled (RACE-AIMC's component model)");
  r.provenance.set("cache", cache_dir + ": " + std::to_string(r.cached) + " cached, " +
                                std::to_string(r.simulated) + " simulated now");
  return r;
}

}  // namespace hetcim::api
