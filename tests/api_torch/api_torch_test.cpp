// api_torch (<hetcim/analog.h>): every check of analog select that the CLI made now answers the
// same from C++ before any simulation (split sizes against the images, the training record against
// the request), and the frozen policy file round-trips through its reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "api_torch/analog.h"
#include "api_torch/drift.h"
#include "api_torch/serve.h"
#include "api_torch/study.h"
#include "data/fashion_mnist.h"
#include "onnxio/export.h"
#include "require_data.h"
#include "select/logit_cache.h"
#include "train/train.h"
#include "util/error.h"
#include "xbar/rng.h"

namespace hetcim::api {
namespace {

namespace fs = std::filesystem;

const std::string kChips = std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml";

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("hetcim_api_torch_" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

template <typename F>
std::string user_error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

bool have_fashion_mnist() {
  return fs::exists(std::string(data::kFashionMnistDir) + "/t10k-images-idx3-ubyte.gz");
}

// Two classes of 16x16 images (a bright square top-left or bottom-right on noise), seeded.
data::ImageDataset squares(int64_t n, uint64_t seed) {
  data::ImageDataset d;
  d.name = "squares";
  d.count = n;
  d.channels = 1;
  d.height = d.width = 16;
  d.classes = 2;
  xbar::Rng r(seed);
  d.images.resize(static_cast<size_t>(n * 256));
  d.labels.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int label = static_cast<int>(r.next_u64() & 1);
    d.labels[static_cast<size_t>(i)] = static_cast<uint8_t>(label);
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 16; ++x) {
        const int o = label == 0 ? 1 : 9;
        const bool in = y >= o && y < o + 6 && x >= o && x < o + 6;
        d.images[static_cast<size_t>(i * 256 + y * 16 + x)] =
            static_cast<uint8_t>(in ? 200 + r.next_u64() % 56 : r.next_u64() % 100);
      }
  }
  return d;
}

// Caches that lie (issue 35): a logit-cache entry edited with its checksum recomputed (A3's logits
// replaced by the digital model's, a chip that never errs) is refused: its first batch, simulated
// again, differs. With --cache it is simulated again (a warning) and overwritten; a --logits replay
// is an error. The key carries a digest of the input images and leaves the thread count out. What
// the check cannot see is pinned: an edit after the first batch is read as stored.
TEST(LogitCache, AnEditedEntryIsRefusedAndTheKeyCarriesTheInputs) {
  const Scratch s;
  train::TrainOptions o;
  o.epochs = 1;
  o.batch_size = 32;
  o.seed = 5;
  o.threads = 1;
  o.flip = false;
  const train::TrainResult trained = train::train_race_cnn(squares(128, 1), squares(32, 2), o);
  const std::string model = (s.dir / "squares.onnx").string();
  onnxio::export_onnx(trained.model, model);
  ProtocolData d;
  d.calibration = squares(64, 3);
  d.description = "squares n=64 seed=3";
  PoolRequest r;
  r.model = model;
  r.units = parse_pool(kChips, "A3", "", 1, 1);
  r.eval.batch_size = 16;
  r.eval.threads = 1;
  r.cache_dir = (s.dir / "cache").string();
  std::vector<std::string> warnings;
  r.on_cache_warning = [&](const std::string& w) { warnings.push_back(w); };
  const PoolResult truth = pool_logits(r, d);
  ASSERT_EQ(truth.simulated, 2);  // digital and A3
  const std::vector<float>& a3 = truth.logits.accelerators.at(0).logits;
  ASSERT_NE(a3, truth.logits.reference_logits);
  std::string key;
  for (const std::string& k : select::cached_keys(r.cache_dir))
    if (k.find("\nunit A3 ") != std::string::npos) key = k;
  ASSERT_FALSE(key.empty());
  EXPECT_NE(key.find("\ninputs digest="), std::string::npos) << key;
  EXPECT_EQ(key.find("threads"), std::string::npos) << key;
  const auto forge = [&](const std::function<void(std::vector<float>&)>& edit) {
    select::CachedLogits c = *select::load_logits(r.cache_dir, key);
    edit(c.logits);
    select::store_logits(r.cache_dir, c);  // the checksum recomputed
  };
  forge([&](std::vector<float>& l) { l = truth.logits.reference_logits; });
  const PoolResult again = pool_logits(r, d);
  EXPECT_EQ(again.simulated, 1);
  EXPECT_EQ(again.cached, 1);
  EXPECT_EQ(again.logits.accelerators.at(0).logits, a3);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("the logits of 'A3' on the first 16 images differ from a new "
                             "simulation"),
            std::string::npos)
      << warnings[0];
  EXPECT_EQ(select::load_logits(r.cache_dir, key)->logits, a3) << "overwritten by the truth";
  // A replay refuses it.
  forge([&](std::vector<float>& l) { l = truth.logits.reference_logits; });
  PoolRequest replay = r;
  replay.cache_dir = r.cache_dir;
  replay.replay_only = true;
  EXPECT_NE(
      user_error_of([&] { (void)pool_logits(replay, d); }).find("differ from a new simulation"),
      std::string::npos);
  // Another thread count replays the same entries (the logits do not depend on it).
  forge([&](std::vector<float>& l) { l = a3; });
  replay.eval.threads = 2;
  EXPECT_EQ(pool_logits(replay, d).cached, 2);
  // Other images under the same description: another inputs digest, a miss naming it.
  ProtocolData other = d;
  other.calibration.images[0] ^= 1;
  const std::string miss = user_error_of([&] { (void)pool_logits(replay, other); });
  EXPECT_NE(miss.find("no cached logits of 'digital'"), std::string::npos) << miss;
  EXPECT_NE(miss.find("inputs digest: '"), std::string::npos) << miss;
  // The limit of the check: an edit after the first batch is read as stored.
  forge([&](std::vector<float>& l) { l[20 * 2] += 1.0f; });
  const PoolResult fooled = pool_logits(replay, d);
  EXPECT_EQ(fooled.cached, 2);
  EXPECT_NE(fooled.logits.accelerators.at(0).logits, a3);
}

TEST(AnalogSelectRequest, BadRequestsGiveTheCommandLinesMessages) {
  const Scratch s;
  AnalogSelectRequest q;
  q.model = s.write("m.onnx", "not a model: the checks below come first");
  q.chips = kChips;
  q.pool = "A0";
  q.score = "margin";
  EXPECT_NE(
      user_error_of([&] { (void)analog_select(q); }).find("unknown confidence score 'margin'"),
      std::string::npos);
  q.score = "logit_margin";
  q.cache_dir = "c";
  q.replay_dir = "r";
  EXPECT_NE(user_error_of([&] { (void)analog_select(q); }).find("--cache and --logits: give one"),
            std::string::npos);
  q.cache_dir = q.replay_dir = "";
  q.pool = "A0,A9";
  EXPECT_NE(user_error_of([&] { (void)analog_select(q); }).find("has no profile 'A9'"),
            std::string::npos);
  q.pool = "A0,pcm_ima";  // named in the pool: pcm_ima has no energy
  EXPECT_NE(user_error_of([&] { (void)analog_select(q); }).find("'pcm_ima' has no 'energy'"),
            std::string::npos);
  q.pool = "";  // every profile with an energy, as --help says: the pool passes, the model fails
  EXPECT_EQ(user_error_of([&] { (void)analog_select(q); }).find("energy"), std::string::npos);
  q.pool = "A0";
  q.energy.fallback = -1e-6;
  EXPECT_NE(user_error_of([&] { (void)analog_select(q); }), "(no UserError)");
}

TEST(AnalogSelectRequest, TheTrainingRecordDecidesTheProtocolAndMustAgree) {
  const Scratch s;
  AnalogSelectRequest q;
  q.model = s.write("m.onnx", "x");
  q.chips = kChips;
  q.pool = "A0";
  // No record: holdout needs the held-out subset spelled out.
  q.calibration = "holdout";
  EXPECT_NE(user_error_of([&] { (void)analog_select(q); }).find("has no training record"),
            std::string::npos);
  (void)s.write("m.onnx.train.json",
                R"({"dataset": "fashion-mnist", "holdout": {"images": 1500, "seed": 3}})");
  q.holdout = 1000;
  EXPECT_NE(user_error_of([&] { (void)analog_select(q); })
                .find("--holdout 1000 disagrees with " + q.model +
                      ".train.json (field 'holdout.images' = 1500)"),
            std::string::npos);
  q.holdout.reset();
  q.holdout_seed = 4;
  EXPECT_NE(user_error_of([&] { (void)analog_select(q); }).find("field 'holdout.seed' = 3"),
            std::string::npos);
  q.holdout_seed.reset();
  q.dataset = "cifar10";
  EXPECT_NE(
      user_error_of([&] { (void)analog_select(q); }).find("field 'dataset' = 'fashion-mnist'"),
      std::string::npos);
}

TEST(AnalogSelectRequest, SplitsTheImagesCannotHoldFailBeforeAnySimulation) {
  HETCIM_REQUIRE_DATA_OR_SKIP(have_fashion_mnist(), "Fashion-MNIST");
  const Scratch s;
  AnalogSelectRequest q;
  q.model = s.write("m.onnx", "never read: the split check comes first");
  q.chips = kChips;
  q.pool = "A0";
  q.calibration = "test";
  q.limit = 1000;
  q.hardware_rows = 300;
  q.policy_rows = 500;
  q.certificate_rows = 500;
  q.test_rows = 0;  // 1300 > 1000
  EXPECT_NE(user_error_of([&] { (void)analog_select(q); }).find("the data has only 1000"),
            std::string::npos);
  // Unset sizes take the protocol's defaults for --calibration test: 2000 + 2000 + 4000 + 2000.
  q.hardware_rows.reset();
  q.certificate_rows.reset();
  q.test_rows.reset();
  q.policy_rows = 2000;
  EXPECT_NE(user_error_of([&] {
              (void)analog_select(q);
            }).find("hardware 2000 + policy 2000 + certificate 4000 + test 2000 = 10000 rows"),
            std::string::npos);
}

// Three classes; the digital model and the one unit answer every row correctly with a margin.
select::PoolLogits perfect_pool(int64_t rows) {
  select::PoolLogits p;
  p.classes = 3;
  select::AcceleratorLogits a;
  a.name = "A0";
  a.energy = 0.7e-6;
  for (int64_t i = 0; i < rows; ++i) {
    const auto label = static_cast<uint8_t>(i % 3);
    p.labels.push_back(label);
    for (int64_t k = 0; k < 3; ++k) {
      const float z = k == label ? 4.0f + static_cast<float>(i % 7) : 0.0f;
      p.reference_logits.push_back(z);
      a.logits.push_back(z);
    }
  }
  p.accelerators.push_back(a);
  return p;
}

TEST(PolicyFile, WhatPolicyJsonWritesLoadPolicyReadsBack) {
  const Scratch s;
  AnalogSelectRequest q;
  q.model = s.write("m.onnx", "model bytes");
  q.chips = kChips;
  AnalogSelectResult r;
  r.units = parse_pool(kChips, "A0", "", 5, 6);
  r.options.splits = {100, 200, 300, 200};
  r.race = select::run_race(perfect_pool(1000), r.options);
  r.classes = 3;
  r.data = "synthetic rows";
  ASSERT_TRUE(r.race.selected.has_value());
  ASSERT_TRUE(r.race.certificate.certified);
  const std::string file = s.write("policy.json", policy_json(q, r).dump(1));
  const LoadedPolicy lp = load_policy(file, "", "");
  const select::FrozenPolicy want = select::freeze(r.race, r.options, 3);
  EXPECT_EQ(lp.frozen.unit, "A0");
  EXPECT_EQ(lp.frozen.threshold, want.threshold);
  EXPECT_EQ(lp.frozen.bias, want.bias);
  EXPECT_EQ(lp.frozen.classes, 3);
  EXPECT_DOUBLE_EQ(lp.frozen.activation_energy, want.activation_energy);
  ASSERT_TRUE(lp.profile.has_value());
  EXPECT_EQ(lp.profile->name, "A0");
  // The unit's seeds derive from the base seeds and its name (pool.h).
  EXPECT_EQ(lp.chip_seed, xbar::Rng::derive(5, "unit/A0"));
  EXPECT_EQ(lp.test_read_seed, xbar::Rng::derive(xbar::Rng::derive(6, "unit/A0"), "test-set"));
  // Another model file: the policy refuses it by hash.
  const std::string other = s.write("other.onnx", "other bytes");
  EXPECT_NE(user_error_of([&] {
              (void)load_policy(file, other, "");
            }).find("the policy was certified for another model"),
            std::string::npos);
}

TEST(TrainRequest, FieldsOutOfRangeAreNamed) {
  TrainRequest q;
  EXPECT_NE(user_error_of([&] { q.validate(); }).find("out: required"), std::string::npos);
  q.out = "x.onnx";
  q.preset = "slow";
  EXPECT_NE(user_error_of([&] { q.validate(); }).find("preset: expected paper or fast"),
            std::string::npos);
  q.preset = "fast";
  q.epochs = 0;
  EXPECT_NE(user_error_of([&] { q.validate(); }).find("epochs: expected a whole number in [1,"),
            std::string::npos);
  q.epochs.reset();
  EXPECT_NO_THROW(q.validate());
  // The training options the table holds, checked in one format (bounds known from the table).
  q.options.batch_size = 0;
  EXPECT_EQ(user_error_of([&] { q.validate(); }),
            "batch_size: expected a whole number in [1, 1048576], got 0");
  q.options.batch_size = 128;
  q.dataset = "mnist";
  EXPECT_EQ(user_error_of([&] { q.validate(); }),
            "dataset: expected fashion-mnist, cifar10, images:DIR or "
            "npy:X.npy,Y.npy[,XTEST.npy,YTEST.npy], got 'mnist'");
  q.dataset = "cifar10";
  q.crop_padding = -2;  // -1 is "by the image size"
  EXPECT_EQ(user_error_of([&] { q.validate(); }),
            "crop_padding: expected a whole number in [-1, 64], got -2");
}

TEST(TrainRequest, TheTableWritesTheOptionsAndRoundTripsEveryDefault) {
  TrainRequest defaults;
  for (const auto& f : train_fields()) {
    const std::string text = value_text(f, f.ref(defaults));
    if (text.empty()) continue;  // out, data_dir; epochs and lr: the preset's
    TrainRequest other;
    set_from_text(f, f.ref(other), text);
    EXPECT_EQ(value_text(f, f.ref(other)), text) << f.name;
  }
  TrainRequest q;
  for (const auto& f : train_fields()) {
    if (f.name == "flip") set_from_text(f, f.ref(q), "false");
    if (f.name == "seed") set_from_text(f, f.ref(q), "9");
    if (f.name == "epochs") set_from_text(f, f.ref(q), "3");
  }
  EXPECT_FALSE(q.options.flip);  // nested: the training options' members
  EXPECT_EQ(q.options.seed, 9u);
  EXPECT_EQ(q.epochs, std::optional<int64_t>(3));
}

// Select, study, drift and serve check their fields through their tables (api/options.h): one
// message format naming the field, its bounds or choices (written here by hand from the tables).
TEST(AnalogRequests, TheTablesCheckRangesAndChoicesInOneFormat) {
  AnalogSelectRequest sel;
  sel.model = "m.onnx";
  sel.chips = kChips;
  sel.calibration = "train";
  EXPECT_EQ(user_error_of([&] { sel.validate(); }),
            "calibration: expected holdout or test, got 'train'");
  sel.calibration.reset();  // unset: the protocol decides
  sel.energy.fallback = -1e-6;
  EXPECT_EQ(user_error_of([&] { sel.validate(); }),
            "fallback_energy: expected an energy >= 0 J, got -1 uJ");
  sel.energy.fallback = 0;
  sel.test_rows = -1;
  EXPECT_EQ(user_error_of([&] { sel.validate(); }),
            "test_rows: expected a whole number in [0, 1099511627776], got -1");
  sel.test_rows = 0;
  sel.score = "logit-margin";  // the names with '-' for '_' stay accepted
  EXPECT_EQ(user_error_of([&] { sel.validate(); }), "(no UserError)");

  AnalogStudyRequest st;
  st.chips = kChips;
  st.out = "out";
  st.paper_data = "paper.yaml";
  st.mode = "fast";
  EXPECT_EQ(user_error_of([&] { st.validate(); }),
            "mode: expected '', physical or reference, got 'fast'");
  st.mode = "";
  st.epochs = 0;  // the preset's
  st.lr = 1e-13;  // neither 0 (the preset's) nor a learning rate
  EXPECT_EQ(user_error_of([&] { st.validate(); }),
            "lr: expected 0 (the preset's) or a number in [1e-12, 10], got 1e-13");
  st.lr = 0;
  st.design_risks = {0.1, 1.0};
  EXPECT_EQ(user_error_of([&] { st.validate(); }),
            "design_risks: expected numbers in (0, 1), got 1");
  EXPECT_EQ(parse_design_risks("0.05, 0.1"), (std::vector<double>{0.05, 0.1}));
  EXPECT_EQ(user_error_of([] { (void)parse_design_risks("0.1,x"); }),
            "design_risks: expected comma-separated numbers, got 'x'");

  AnalogDriftRequest dr;
  dr.model = "m.onnx";
  dr.compensation = "local";
  EXPECT_EQ(user_error_of([&] { dr.validate(); }),
            "compensation: expected none, global or both, got 'local'");
  dr.compensation = "none";
  dr.batch_size = 0;
  EXPECT_EQ(user_error_of([&] { dr.validate(); }),
            "batch_size: expected a whole number in [1, 1048576], got 0");

  AnalogServeRequest sv;
  sv.policy = "p.json";
  sv.dataset = "mnist";
  EXPECT_EQ(user_error_of([&] { sv.validate(); }),
            "dataset: expected fashion-mnist, cifar10, images:DIR or "
            "npy:X.npy,Y.npy[,XTEST.npy,YTEST.npy], got 'mnist'");
}

TEST(AnalogEvalRequest, NoChipAndNoDigitalRunIsRefused) {
  AnalogEvalRequest q;
  q.model = "m.onnx";
  EXPECT_EQ(user_error_of([&] { q.validate(); }), "analog eval: give --chip and/or --digital");
}

}  // namespace
}  // namespace hetcim::api
