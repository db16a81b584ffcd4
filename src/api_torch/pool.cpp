#include "api_torch/pool.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "data/holdout.h"
#include "dist/dist.h"
#include "onnxio/import.h"
#include "select/logit_cache.h"
#include "util/error.h"
#include "util/files.h"
#include "util/hash.h"
#include "xbar/chips_yaml.h"
#include "xbar/rng.h"

namespace hetcim::api {
namespace {

namespace fs = std::filesystem;

std::string g17(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// Every field of a profile that changes what it computes (the name does not).
}  // namespace

std::string profile_fingerprint(const xbar::ChipProfile& p) {
  std::ostringstream s;
  s << "g_min=" << g17(p.g_min) << " g_max=" << g17(p.g_max) << " device_bits=" << p.device_bits
    << " write_noise=" << g17(p.write_noise) << " read_noise=" << g17(p.read_noise)
    << " stuck=" << g17(p.stuck_fraction) << " stuck_high=" << g17(p.stuck_high_share)
    << " dac=" << p.dac_bits << " adc=" << p.adc_bits
    << " adc_ranging=" << xbar::adc_ranging_name(p.adc_ranging)
    << " adc_full_scale=" << g17(p.adc_full_scale) << " array=" << p.array_rows << "x"
    << p.array_cols << " mode=" << xbar::sim_mode_name(p.mode);
  return s.str();
}

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// The first line of a key that names the model ("model <hash>").
std::string model_line(const std::string& key) {
  return key.substr(0, key.find('\n'));
}

// FNV-1a of the images a simulation reads: their shape, pixels and labels (16 hex digits).
std::string images_digest(const data::ImageDataset& images) {
  Fnv1a h;
  for (int64_t v : {images.count, images.channels, images.height, images.width, images.classes})
    h.update(&v, sizeof v);
  h.update(images.images.data(), images.images.size());
  h.update(images.labels.data(), images.labels.size());
  char b[20];
  std::snprintf(b, sizeof b, "%016" PRIx64, h.h);
  return b;
}

// The key of a simulation's cache entry: everything its logits depend on, one "name k=v ..." line
// per part, so that a miss can name the differing fields (select::closest_key_difference). The
// libtorch thread count is not in it: the logits are the same bits at any count (tested in
// tests/train, LogitsDoNotDependOnThreads).
std::string entry_key(const std::string& model_hash, const ProtocolData& d,
                      const data::ImageDataset& images, const PoolUnit* u,
                      const train::EvalOptions& e) {
  std::ostringstream k;
  k << "model " << model_hash << "\n"
    << "data " << d.description << "\n"
    << "inputs digest=" << images_digest(images) << " rows=" << images.count << "\n";
  if (u)
    k << "unit " << u->name << " chip_seed=" << u->chip_seed << " read_seed=" << u->read_seed << " "
      << profile_fingerprint(u->profile) << "\n";
  else
    k << "unit digital\n";
  k << "eval batch=" << e.batch_size << " analog_layers=" << join(e.analog_layers, ",") << "\n";
  // Drift (read after t0) changes the logits; at t0 (every pool command) the key is unchanged.
  if (u && u->profile.drifts() && e.read_time > u->profile.drift_t0)
    k << "drift read_time=" << g17(e.read_time) << " compensation=" << e.drift_compensation
      << " drift_nu=" << g17(u->profile.drift_nu) << " drift_nu_sd=" << g17(u->profile.drift_nu_sd)
      << " drift_t0=" << g17(u->profile.drift_t0) << "\n";
  if (u && u->profile.read_noise_growth && e.read_time > u->profile.drift_t0)
    k << "read_noise_growth t_read=" << g17(u->profile.read_noise_t_read)
      << " read_time=" << g17(e.read_time) << " drift_t0=" << g17(u->profile.drift_t0) << "\n";
  return k.str();
}

}  // namespace

uint64_t unit_seed(uint64_t base, const std::string& unit) {
  return xbar::Rng::derive(base, "unit/" + unit);
}

std::vector<PoolUnit> parse_pool(const std::string& chips_file, const std::string& pool,
                                 const std::string& mode, uint64_t seed, uint64_t read_seed) {
  std::vector<xbar::ChipProfile> profiles = xbar::load_chip_profiles(chips_file);
  for (auto& c : profiles) {
    if (mode == "reference") c.mode = xbar::SimMode::Reference;
    if (mode == "physical") c.mode = xbar::SimMode::Physical;
    xbar::validate_profile(c, chips_file);
  }
  std::vector<std::string> names;
  if (pool.empty()) {  // every profile with an energy (eq. 9 needs one), as --help says
    for (const auto& c : profiles)
      if (c.energy) names.push_back(c.name);
    if (names.empty())
      throw user_error(chips_file,
                       ": no chip profile has an 'energy' (activation energy E of eq. 9), so the "
                       "default pool (every profile with an energy) is empty");
  } else {
    std::stringstream ss(pool);
    for (std::string n; std::getline(ss, n, ',');)
      if (!n.empty()) names.push_back(n);
    if (names.empty())
      throw user_error("--pool: expected comma-separated profile names, got '", pool, "'");
  }
  std::vector<PoolUnit> units;
  std::set<std::string> seen;
  for (const std::string& unit : names) {
    if (!seen.insert(unit).second)
      throw user_error("--pool: unit '", unit,
                       "' is listed twice (name distinct units of one "
                       "profile PROFILE#1, PROFILE#2)");
    const std::string profile = unit.substr(0, unit.find('#'));
    auto it = std::find_if(profiles.begin(), profiles.end(),
                           [&](const xbar::ChipProfile& c) { return c.name == profile; });
    if (it == profiles.end())
      throw user_error("--pool: ", chips_file, " has no profile '", profile, "'");
    if (!it->energy)
      throw user_error(chips_file, ": chip profile '", profile,
                       "' has no 'energy' (activation energy E of eq. 9); "
                       "choose the pool with --pool, e.g. --pool A0,A1,A2,A3,A4,A5");
    units.push_back({unit, *it, unit_seed(seed, unit), unit_seed(read_seed, unit)});
  }
  return units;
}

ProtocolData load_protocol_data(const DataRequest& r) {
  ProtocolData d;
  std::ostringstream desc;
  if (r.calibration == "holdout") {
    const data::ImageDataset train = data::load_dataset(r.dataset, data::Split::Train, r.data_dir);
    const data::Holdout h = data::make_holdout(train.count, r.holdout, r.holdout_seed);
    std::vector<int64_t> rows = h.held_out;
    if (r.limit > 0 && r.limit < static_cast<int64_t>(rows.size()))
      rows.resize(static_cast<size_t>(r.limit));
    if (rows.empty())
      throw user_error("--holdout: no held-out training images to calibrate on (--holdout ",
                       r.holdout, ")");
    d.calibration = data::gather(train, rows, train.name + " (held out)");
    data::ImageDataset test = data::load_dataset(r.dataset, data::Split::Test, r.data_dir);
    if (r.test_images > test.count)
      throw user_error("--test: ", r.test_images, " test images requested, but ", test.name,
                       " has ", test.count);
    if (r.test_images >= 0) test = data::slice(test, 0, r.test_images);
    desc << r.dataset << " calibration=held-out training images n=" << r.holdout
         << " seed=" << r.holdout_seed << " first=" << rows.size() << " of " << train.count
         << "; test=first " << test.count << " official test images";
    if (test.count > 0) d.test = std::move(test);
  } else if (r.calibration == "test") {
    d.calibration = data::load_dataset(r.dataset, data::parse_split(r.split), r.data_dir);
    if (r.limit > 0 && r.limit < d.calibration.count)
      d.calibration = data::slice(d.calibration, 0, r.limit);
    desc << r.dataset << " calibration=" << r.split << " split first=" << d.calibration.count;
  } else {
    throw user_error("--calibration: expected 'holdout' or 'test', got '", r.calibration, "'");
  }
  // A user's own files may change under the same name: their content names them in the cache key.
  if (data::is_user_dataset(r.dataset))
    desc << "; content " << data::content_hash(d.calibration)
         << (d.test ? " test " + data::content_hash(*d.test) : std::string());
  d.description = desc.str();
  return d;
}

std::string file_hash(const std::string& path) {
  const std::string bytes =
      read_input_file(path, "ONNX model", std::numeric_limits<int32_t>::max());
  Fnv1a h;
  h.update(bytes.data(), bytes.size());
  char b[20];
  std::snprintf(b, sizeof b, "%016" PRIx64, h.h);
  return b;
}

uint64_t test_read_seed(uint64_t read_seed) {
  return xbar::Rng::derive(read_seed, "test-set");
}

PoolResult pool_logits(const PoolRequest& r, const ProtocolData& d) {
  std::vector<PoolResult> out = pool_logits(std::vector<PoolRequest>{r}, d);
  if (out.empty()) return {};
  return std::move(out.front());
}

std::vector<PoolResult> pool_logits(const std::vector<PoolRequest>& requests,
                                    const ProtocolData& d) {
  if (requests.empty()) return {};
  const bool over_ranks = requests.front().over_ranks;
  for (const PoolRequest& r : requests)
    HETCIM_ASSERT(r.over_ranks == over_ranks, "pool requests disagree on over_ranks");
  const bool root = !over_ranks || dist::is_root();
  const int64_t K = d.calibration.classes;
  std::vector<PoolResult> outs(requests.size());
  std::vector<std::string> model_hashes;
  std::vector<graph::Graph> models;
  for (const PoolRequest& r : requests) {
    model_hashes.push_back(file_hash(r.model));
    models.push_back(onnxio::import_onnx(r.model));
  }
  // One simulation per (request, unit or the digital model, part), one cache entry each: the
  // calibration rows with the unit's read seed, the test rows with test_read_seed(read seed), each
  // from its first row, so that `analog serve` on the same test images reproduces the test part
  // exactly.
  struct Simulation {
    size_t request;
    const PoolUnit* unit;  // null: the digital model
    const data::ImageDataset* images;
    bool test_part;
    std::vector<float>* logits;
    train::EvalOptions eval;
    std::string key;
  };
  std::vector<Simulation> sims;
  for (size_t q = 0; q < requests.size(); ++q) {
    const PoolRequest& r = requests[q];
    select::PoolLogits& p = outs[q].logits;
    p.classes = K;
    p.labels = d.calibration.labels;
    if (d.test) p.test_labels = d.test->labels;
    for (const PoolUnit& u : r.units) {
      select::AcceleratorLogits a;
      a.name = u.name;
      a.energy = *u.profile.energy;
      p.accelerators.push_back(std::move(a));
    }
    const auto add = [&](const PoolUnit* u, const data::ImageDataset& images, bool test_part,
                         std::vector<float>& logits) {
      train::EvalOptions e = r.eval;
      e.limit = 0;
      e.chip.reset();
      if (u) {
        e.chip = u->profile;
        e.chip_seed = u->chip_seed;
        e.read_seed = test_part ? test_read_seed(u->read_seed) : u->read_seed;
      }
      const std::string key = entry_key(model_hashes[q], d, images, u, e) +
                              (test_part ? "part test\n" : "part calibration\n");
      sims.push_back({q, u, &images, test_part, &logits, e, key});
    };
    add(nullptr, d.calibration, false, p.reference_logits);
    if (d.test) add(nullptr, *d.test, true, p.test_reference_logits);
    for (size_t i = 0; i < r.units.size(); ++i) {
      add(&r.units[i], d.calibration, false, p.accelerators[i].logits);
      if (d.test) add(&r.units[i], *d.test, true, p.accelerators[i].test_logits);
    }
  }
  // Rank 0 (the only process without MPI) reads the cache and queues what it lacks.
  std::vector<dist::Task> tasks;
  std::exception_ptr failure;
  try {
    for (size_t i = 0; root && i < sims.size(); ++i) {
      const Simulation& s = sims[i];
      const PoolRequest& r = requests[s.request];
      const char* who = s.unit ? s.unit->name.c_str() : "digital";
      if (!r.cache_dir.empty())
        if (auto c = select::load_logits(r.cache_dir, s.key)) {
          const std::string file = r.cache_dir + "/" + select::logit_file_name(s.key);
          if (c->labels != s.images->labels || c->classes != K)
            throw user_error(file, ": cached labels differ from the data set's; delete the entry");
          // The first batch simulated again: an entry whose logits were edited (its checksum
          // recomputed) or swapped for another chip's is refused, not trusted.
          const int64_t n = std::min(s.eval.batch_size, s.images->count);
          train::EvalOptions first = s.eval;
          first.limit = n;
          const std::vector<float> fresh =
              n > 0 ? train::evaluate_race_cnn(models[s.request], *s.images, first).logits
                    : std::vector<float>{};
          if (std::equal(fresh.begin(), fresh.end(), c->logits.begin(),
                         [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; })) {
            ++outs[s.request].cached;
            *s.logits = std::move(c->logits);
            continue;
          }
          const std::string why = file + ": the logits of '" + who + "' on the first " +
                                  std::to_string(n) +
                                  " images differ from a new simulation of them (the entry was "
                                  "edited or made by other code)";
          if (r.replay_only)
            throw user_error("--logits ", why, "; delete the entry or use --cache DIR");
          if (r.on_cache_warning) r.on_cache_warning(why + "; simulating it again");
        }
      if (r.replay_only) {
        std::vector<std::string> keys;
        std::error_code ec;
        if (fs::is_directory(r.cache_dir, ec)) keys = select::cached_keys(r.cache_dir);
        if (keys.empty())
          throw user_error("--logits ", r.cache_dir,
                           ": no logit cache there (write one with "
                           "`hetcim analog select --cache DIR` or `hetcim analog study`)");
        const std::string& model_hash = model_hashes[s.request];
        bool same_model = false;
        for (const std::string& k : keys) same_model |= model_line(k) == "model " + model_hash;
        if (!same_model)
          throw user_error("--logits ", r.cache_dir, ": the cache holds logits of another model (",
                           model_line(keys.front()), "), not of ", r.model, " (model ", model_hash,
                           ")");
        throw user_error("--logits ", r.cache_dir, ": no cached logits of '", who,
                         "' for these data, seeds and options (", keys.size(),
                         " entries there; the closest differs in ",
                         select::closest_key_difference(s.key, keys),
                         "); drop --logits or use --cache DIR to simulate them");
      }
      // A chip costs a few times the digital model; images in proportion.
      tasks.push_back({i, static_cast<double>(s.images->count) * (s.unit ? 4.0 : 1.0)});
    }
  } catch (...) {
    failure = std::current_exception();
  }
  if (over_ranks) {
    dist::agree(failure);
  } else if (failure) {
    std::rethrow_exception(failure);
  }
  // The simulations, over the MPI ranks of the run with `over_ranks`; each returns its logits as
  // bytes (the same bits on every rank of one build).
  (over_ranks ? dist::run_queue : dist::run_local)(
      tasks, 1,
      [&](size_t i) {
        const Simulation& s = sims[i];
        const PoolRequest& r = requests[s.request];
        const std::string what = std::string(s.unit ? s.unit->name : "digital") + " on " +
                                 std::to_string(s.images->count) + " " +
                                 (s.test_part ? "test" : "calibration") + " images";
        if (r.on_simulation) r.on_simulation("simulating " + what + "...");
        const auto start = std::chrono::steady_clock::now();
        const train::EvalResult ev = train::evaluate_race_cnn(models[s.request], *s.images, s.eval);
        if (r.on_simulation) {
          // The task's measured wall time (bench/dist/study_scaling.sh models more ranks from it).
          char line[160];
          std::snprintf(
              line, sizeof line, "simulated %s (task %zu, model %zu): %.3f s wall", what.c_str(), i,
              s.request + 1,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
          r.on_simulation(line);
        }
        return std::string(reinterpret_cast<const char*>(ev.logits.data()),
                           ev.logits.size() * sizeof(float));
      },
      [&](size_t i, std::string&& bytes) {
        const Simulation& s = sims[i];
        const PoolRequest& r = requests[s.request];
        HETCIM_ASSERT(bytes.size() == static_cast<size_t>(s.images->count * K) * sizeof(float),
                      "logits of ", bytes.size(), " bytes");
        s.logits->resize(bytes.size() / sizeof(float));
        std::memcpy(s.logits->data(), bytes.data(), bytes.size());
        ++outs[s.request].simulated;
        if (!r.cache_dir.empty())
          select::store_logits(r.cache_dir, {s.key, K, s.images->labels, *s.logits});
      });
  return outs;
}

}  // namespace hetcim::api
