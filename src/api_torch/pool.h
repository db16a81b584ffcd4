// The logits of a pool of simulated chips for seed 002's protocol, shared by `hetcim analog
// select`, `analog study` and `analog serve`: which images (calibration rows and the separate test
// set), which chip instances (units named after their profile, seeds derived from the unit name),
// and one simulation per (model, data, unit) kept in a content-addressed logit cache.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/holdout.h"
#include "select/race.h"
#include "train/evaluate.h"
#include "xbar/chip_profile.h"

namespace hetcim::api {

// One physical chip of the pool: a profile of the chips file and a unit name. `A0` is the unit A0
// of profile A0; `A0#2` is a second, distinct unit of profile A0 (a homogeneous pool: A0#1,A0#2).
// Its seeds depend on the unit name and the base seeds only, never on the pool position, so
// `--pool A1,A2` simulates the same A1 and A2 chips as the full pool.
struct PoolUnit {
  std::string name;
  xbar::ChipProfile profile;
  uint64_t chip_seed = 0;
  uint64_t read_seed = 0;
};

// chip_seed = Rng::derive(seed, "unit/<name>"), read_seed = Rng::derive(read_seed, "unit/<name>").
[[nodiscard]] uint64_t unit_seed(uint64_t base, const std::string& unit);

// `pool` is comma-separated unit names ("" = every profile of the file). A
// profile not in the file, a duplicate unit or a profile without energy is a UserError naming the
// file and the name. `mode` ("", "physical", "reference") overrides the profiles' mode.
[[nodiscard]] std::vector<PoolUnit> parse_pool(const std::string& chips_file,
                                               const std::string& pool, const std::string& mode,
                                               uint64_t seed, uint64_t read_seed);

// The images of the protocol and a text that identifies them for the cache.
struct ProtocolData {
  data::ImageDataset calibration;          // H, P, C (and T when `test` is empty)
  std::optional<data::ImageDataset> test;  // the separate descriptive test set
  std::string description;
};

struct DataRequest {
  std::string dataset = "fashion-mnist", data_dir;
  // "holdout": calibration = `holdout` training images held out with `holdout_seed`
  // (data/holdout.h), test = the official test set's first `test_images` (-1: all).
  // "test": calibration = the first `limit` images of `split` (0: all), no separate test set.
  std::string calibration = "holdout";
  int64_t holdout = 10000;
  uint64_t holdout_seed = 1;
  int64_t test_images = -1;
  std::string split = "test";
  int64_t limit = 0;  // first N calibration rows (both modes; 0: all)
};

[[nodiscard]] ProtocolData load_protocol_data(const DataRequest& r);

// The training record `hetcim train` writes beside a model (data/holdout.h, the one reader).
using data::read_train_record;
using data::TrainRecord;

// Every field of a profile that changes what it computes (not its name), as text.
[[nodiscard]] std::string profile_fingerprint(const xbar::ChipProfile& p);

// The read seed of the separate test set's evaluation.
[[nodiscard]] uint64_t test_read_seed(uint64_t read_seed);

// FNV-1a of the file's bytes, 16 hex digits.
[[nodiscard]] std::string file_hash(const std::string& path);

struct PoolRequest {
  std::string model;  // ONNX file
  std::vector<PoolUnit> units;
  train::EvalOptions eval;   // chip, seeds and limit are set per unit here
  std::string cache_dir;     // "" : no cache
  bool replay_only = false;  // true: every entry must be in the cache (no simulation)
  // Called before each simulation with what it is ("simulating A0 on 1000 calibration images...")
  // and after it with its measured wall time ("simulated A0 on 1000 calibration images (task 2,
  // model 1): 1.234 s wall"); the CLI prints both on stderr unless --quiet.
  std::function<void(const std::string& what)> on_simulation;
  // Told when a cached entry is refused (its first batch, simulated again, differs) and simulated
  // again; the CLI prints it as a warning, --quiet or not.
  std::function<void(const std::string& why)> on_cache_warning;
  // Split the simulations over the MPI ranks of this run (dist/dist.h) when an MPI launcher
  // started it: every rank calls pool_logits with the same request and data; rank 0 reads and
  // writes the cache and alone gets the logits (the other ranks an empty result).
  bool over_ranks = false;
};

struct PoolResult {
  select::PoolLogits logits;
  int64_t simulated = 0, cached = 0;  // entries computed now / read from the cache
};

// The digital model and every unit over the protocol's images. With a separate test set the test
// rows are a second evaluation of the same chip (same chip seed) with read seed
// test_read_seed(unit read seed), from the first test row, so `hetcim analog serve` on those images
// with the policy's seeds reproduces them exactly. UserError when a replay misses an entry, naming
// the cache directory and what it holds (another model, other units).
[[nodiscard]] PoolResult pool_logits(const PoolRequest& r, const ProtocolData& d);

// Several pools over the same images (`analog study`: one per model) in one queue: every
// simulation of every request is one task, the costliest first, so that MPI ranks share the
// models x units x parts. Result i is pool_logits(requests[i], d)'s. `over_ranks` must be the same
// in every request.
[[nodiscard]] std::vector<PoolResult> pool_logits(const std::vector<PoolRequest>& requests,
                                                  const ProtocolData& d);

}  // namespace hetcim::api
