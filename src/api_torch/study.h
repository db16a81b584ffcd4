// Seed 002's experiments end to end (`hetcim analog study`): train or reuse N models with a
// held-out calibration subset of the training set, simulate each chip of the pool once per model
// into a logit cache, replay the protocol and its ablations (select/study.h). The result is what
// report/race_study.h renders (Table II / III, ablations, Fig. 2 a-d, report.html, study.json).
//
//   hetcim::api::AnalogStudyRequest q;
//   q.chips = "data/chips.yaml";
//   q.pool = "A0,A1,A2";
//   q.out = "study";                         // models/ and cache/ live here
//   const hetcim::api::AnalogStudyResult r = hetcim::api::analog_study(q);
//   // r.study.base.runs ..., report::race_study_text(r.study, r.info)
//
// Under MPI (`over_ranks`, dist/): rank 0 trains the missing models (the other ranks wait; --out
// must be on a file system every rank sees), then the simulations of every model and unit
// (models x units x parts) go through one dist::run_queue, costliest first; rank 0 stores each in
// the cache and alone replays the protocol. The result is the same as one process's.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/status.h"
#include "api_torch/pool.h"
#include "formats/paper_data.h"
#include "results/race_study.h"
#include "select/study.h"
#include "util/provenance.h"

namespace hetcim::api {

struct AnalogStudyRequest {
  std::string dataset = "fashion-mnist";  // fashion-mnist | cifar10
  std::string data_dir;
  int models = 5;  // independently trained models (runs); run i trains with seed + i - 1
  std::string preset = "paper";  // paper: 30 epochs, lr 2e-3; fast: 2 epochs
  int epochs = 0;                // 0: the preset's
  double lr = 0.0;               // 0: the preset's
  int64_t train_limit = 0;       // train on the first N images not held out (0: all)
  int64_t holdout = 10000;       // training images held out: the calibration pool
  uint64_t holdout_seed = 1;
  std::string chips;  // chip profiles file, required
  std::string pool;   // comma-separated units, mildest first; "" = every profile with an energy
  std::string mode;   // "" | physical | reference
  uint64_t seed = 1;  // run i: training seed and base chip/read seeds seed + i - 1
  // H/P/C sizes, split seed (run i: split_seed + i - 1), risks, energy.fallback (the fallback
  // cost F, J); splits.test is not used (T is the first `test_images` official test images).
  select::RaceOptions race = [] {
    select::RaceOptions o;
    o.splits = select::SplitSizes{3000, 2000, 5000, 0};
    return o;
  }();
  int64_t test_images = -1;                                                 // -1: all
  std::vector<double> design_risks = {0.05, 0.06, 0.07, 0.08, 0.09, 0.10};  // Fig. 2b
  int availability = 3;  // drop the first 1..N units (Fig. 2c)
  int64_t batch_size = 128;
  int threads = 1;  // libtorch threads
  std::string out;  // output directory, required: models/ and cache/ are written here
  // The published values; "": the shipped data/paper/seed002.yaml (util/shipped_data.h).
  std::string paper_data;
  // Split the simulations over the MPI ranks of this run; rank 0 alone gets the result.
  bool over_ranks = false;
  // "training model 1 of 5 (30 epochs)..." before each training, and each simulation.
  std::function<void(size_t index, size_t count, int epochs)> on_training;
  std::function<void(const std::string& what)> on_simulation;

  void validate() const;  // UserError naming the field
};

// The table of AnalogStudyRequest (api/options.h): every field but design_risks (a list:
// parse_design_risks), over_ranks and the callbacks; race's split_seed, splits (but test) and
// energy.fallback under the names split_seed, hardware_rows, policy_rows, certificate_rows and
// fallback_energy.
[[nodiscard]] const FieldTable<AnalogStudyRequest>& analog_study_fields();

// "0.05,0.1" -> {0.05, 0.1}: the CLI's and Python's text of design_risks; UserError naming the
// field otherwise.
[[nodiscard]] std::vector<double> parse_design_risks(const std::string& text);

struct AnalogStudyResult {
  bool root = true;  // false on an MPI rank other than 0: every other field is empty
  Status status;     // origin: measured (trained and simulated now, or reused from --out)
  Provenance provenance;
  select::StudyResult study;
  results::RaceStudyInfo info;  // risk target, fallback and the provenance lines of the report
  formats::PaperData paper;     // the published values drawn as markers
  nlohmann::json options;       // study.json's "options"
  int trained = 0, reused = 0;
  int64_t simulated = 0, cached = 0;
};

// Checks everything (pool, protocol, paper data, models already in out/models) before the first
// training; trains the missing models into out/models, fills out/cache.
[[nodiscard]] AnalogStudyResult analog_study(const AnalogStudyRequest& request);

}  // namespace hetcim::api
