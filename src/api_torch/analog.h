// <hetcim/analog.h>: the front door of seed 002's libtorch jobs (library hetcim_api_torch, linked
// into hetcim-torch; installed as hetcim::api_torch, libhetcim_torch.so, by
// find_package(hetcim COMPONENTS torch); hetcim and libhetcim.so never load libtorch). Like every
// api job: a request with validate() (UserError naming the field, the same message from C++ and the
// CLI), one call, a result with a Status and a Provenance. Rendering is report/'s
// (report/race_select.h).
//
//   #include <hetcim/analog.h>
//   hetcim::api::AnalogSelectRequest q;
//   q.model = "cnn.onnx";                  // from hetcim::api::train_race_cnn or `hetcim train`
//   q.chips = "data/chips.yaml";
//   const hetcim::api::AnalogSelectResult r = hetcim::api::analog_select(q);
//   // r.race.selected, r.race.certificate.certified, r.race.energy ...
//
//   analog_eval     accuracy of seed 002's CNN with its classifier layers on simulated chips
//   analog_select   RACE-AIMC: thresholds per chip of a pool, the selection, the certificate
//   train_race_cnn  training seed 002's CNN to an ONNX file and its training record
// The pool, protocol data and logit cache (pool.h), the frozen policy file (policy.h) and the
// training files (training.h) are the pieces these jobs and `analog study/serve/drift` share.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/analog_chip.h"
#include "api/options.h"
#include "api/status.h"
#include "api_torch/policy.h"
#include "api_torch/pool.h"
#include "api_torch/training.h"
#include "results/analog.h"
#include "select/race.h"
#include "train/evaluate.h"
#include "train/train.h"
#include "util/provenance.h"

namespace hetcim::api {

struct AnalogEvalRequest {
  std::string model;                      // ONNX file (race_cnn with weights), required
  std::string dataset = "fashion-mnist";  // fashion-mnist | cifar10
  std::string data_dir;                   // "" = the data set's default directory
  std::string split = "test";             // test | train
  std::string chip;                   // FILE:PROFILE (one chip) or FILE (every profile); "" = none
  bool digital = false;               // also the clean digital model (first)
  std::string mode;                   // "" (the profiles') | physical | reference
  std::string layers = "classifier";  // api::analog_layers
  uint64_t chip_seed = 1;             // the persistent programmed state
  uint64_t read_seed = 1;
  train::EvalOptions eval;  // batch_size, limit, threads (chip and seeds are set per run)
  // The caller keeps one run's logits (`--logits`): UserError before any evaluation when the
  // request makes more than one run.
  bool one_run = false;

  void validate() const;  // UserError naming the field: no chip and no digital run
};

// The table of AnalogEvalRequest (api/options.h): every field but the model file and one_run.
[[nodiscard]] const FieldTable<AnalogEvalRequest>& analog_eval_fields();

struct AnalogEvalRun {
  std::optional<xbar::ChipProfile> chip;  // nullopt: the digital model
  train::EvalResult result;               // accuracy, count, logits, seconds
};

struct AnalogEvalResult {
  Status status;  // origin: measured (accuracy on the data set, seconds on this machine)
  Provenance provenance;
  int64_t classes = 0;
  std::vector<AnalogEvalRun> runs;  // digital first, then the chips in file order
};

// `progress(done, total)` after each run.
[[nodiscard]] AnalogEvalResult analog_eval(
    const AnalogEvalRequest& request,
    const std::function<void(size_t done, size_t total)>& progress = {});

// The runs as report/analog.h renders them (text and JSON): chip name or "digital", mode.
[[nodiscard]] std::vector<results::AnalogEvalRow> analog_eval_rows(const AnalogEvalResult& result);

struct AnalogSelectRequest {
  std::string model;       // ONNX file (race_cnn with weights), required
  std::string chips;       // chip profiles file, required
  std::string pool;        // comma-separated units (A0, A0#2); "" = every profile with an energy
  std::string mode;        // "" | physical | reference
  uint64_t chip_seed = 1;  // base seeds; a unit's seeds derive from them and its name
  uint64_t read_seed = 1;
  // The images (api/pool.h DataRequest): the model's training record (`<model>.train.json`)
  // decides the default protocol and explicit values must agree with it.
  std::string dataset = "fashion-mnist";
  std::string data_dir;
  std::optional<std::string> calibration;  // holdout | test; nullopt: holdout when `holdout` is
                                           // given or the record holds one, else test
  std::optional<int64_t> holdout;          // nullopt: the record's
  std::optional<uint64_t> holdout_seed;    // nullopt: the record's
  std::string split = "test";              // --calibration test: the split of the four roles
  int64_t limit = 0;                       // first N calibration images (0: all)
  // The protocol (select::RaceOptions); split sizes left unset take the protocol's defaults:
  // hardware 3000 / 2000, certificate 5000 / 4000 (holdout / test), test all official images /
  // 2000.
  double risk = select::RaceOptions{}.risk;
  double certificate_delta = select::RaceOptions{}.certificate_delta;
  double design_risk = select::RaceOptions{}.design_risk;
  double design_delta = select::RaceOptions{}.design_delta;
  std::string score = "logit_margin";  // select::parse_confidence_score
  bool bias_correction = true;
  int64_t policy_rows = select::SplitSizes{}.policy;
  std::optional<int64_t> hardware_rows, certificate_rows, test_rows;
  uint64_t split_seed = 1;
  select::EnergyModel energy;  // J
  train::EvalOptions eval;     // batch_size, threads
  std::string cache_dir;       // logit cache: reuse and store ("" = none)
  std::string replay_dir;      // replay from this cache only (no simulation); excludes cache_dir
  // Under MPI (dist/), split the simulations over the ranks; rank 0 alone gets the result.
  bool over_ranks = false;
  std::function<void(const std::string& what)> on_simulation;    // "simulating A0 on 1000 ..."
  std::function<void(const std::string& why)> on_cache_warning;  // PoolRequest::on_cache_warning

  void validate() const;  // UserError naming the field
};

// The table of AnalogSelectRequest (api/options.h): every field but the model file, over_ranks and
// the callback.
[[nodiscard]] const FieldTable<AnalogSelectRequest>& analog_select_fields();

struct AnalogSelectResult {
  bool root = true;  // false on an MPI rank other than 0: every other field is empty
  Status status;     // origin: measured (logits simulated now) or cached (replayed)
  Provenance provenance;
  std::vector<PoolUnit> units;
  select::RaceOptions options;  // as resolved (split sizes, score, energies)
  select::RaceResult race;
  int64_t classes = 0;
  std::string data;       // the images, as described in the cache keys
  std::string cache_dir;  // the cache used ("" = none)
  int64_t simulated = 0, cached = 0;
};

// UserError naming the field or file: a profile without energy, a unit not in the file, split
// sizes the data cannot hold (before any simulation), a record the request contradicts, a replay
// that misses an entry.
[[nodiscard]] AnalogSelectResult analog_select(const AnalogSelectRequest& request);

// The frozen policy (`--policy-out`, read back by api::load_policy): model hash, chip unit,
// profile fingerprint and seeds, bias, score, threshold, certificate, energies.
[[nodiscard]] nlohmann::json policy_json(const AnalogSelectRequest& request,
                                         const AnalogSelectResult& result);

struct TrainRequest {
  std::string dataset = "fashion-mnist";  // fashion-mnist | cifar10
  std::string data_dir;
  std::string out;                // ONNX file, required; the record goes to out + ".train.json"
  std::string preset = "paper";   // paper: 30 epochs, lr 2e-3; fast: 2 epochs, lr 2e-3
  std::optional<int64_t> epochs;  // nullopt: the preset's; 1..100000
  std::optional<double> lr;       // nullopt: the preset's; [1e-12, 10]
  int64_t holdout = 10000;        // training images held out (0: train on all), 0..2^40
  uint64_t holdout_seed = 1;
  int64_t crop_padding = -1;  // random-crop padding per side, -1..64; -1: 2 for 28x28, 4 for 32x32
  // Hardware-aware training (train/noise_injection.h): a chip profile FILE:PROFILE (or a shipped
  // profile's name, e.g. A3) whose noise the classifier's forward pass injects; '' off.
  std::string hardware_aware;
  double hardware_aware_time = 0.0;  // s after programming the injected chips are read at (drift)
  // batch_size, weight_decay, flip, seed, train_limit, eval_limit, threads, and the progress /
  // epoch_done callbacks; epochs, lr and crop_padding are set from the fields above.
  train::TrainOptions options;

  void validate() const;  // UserError naming the field: out required, the table's checks
};

// The fields of a training request: its own and those of its options the user sets (the
// callbacks aside).
[[nodiscard]] const FieldTable<TrainRequest>& train_fields();

struct TrainResult {
  Status status;  // origin: measured (trained and evaluated now)
  Provenance provenance;
  TrainOutcome outcome;  // held-out (or test, with holdout 0) and test accuracy
  std::string eval_set;  // "held-out accuracy" | "test accuracy"
};

// Trains seed 002's CNN and writes request.out and its training record.
[[nodiscard]] TrainResult train_race_cnn(const TrainRequest& request);

}  // namespace hetcim::api
