// The logit cache: a stored entry comes back bit for bit under its key; another key misses; a
// damaged, truncated or foreign file is a UserError naming the file.
#include "select/logit_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace hetcim::select {
namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  const fs::path d = fs::temp_directory_path() / ("hetcim_logit_cache_" + std::to_string(getpid()));
  fs::remove_all(d);
  return d;
}

CachedLogits entry(const std::string& key) {
  CachedLogits c;
  c.key = key;
  c.classes = 3;
  c.labels = {0, 2, 1, 1};
  for (int i = 0; i < 12; ++i) c.logits.push_back(0.25f * static_cast<float>(i) - 1.0f / 3.0f);
  return c;
}

void expect_error(const std::string& dir, const std::string& key, const std::string& needle) {
  try {
    (void)load_logits(dir, key);
    FAIL() << "expected a UserError containing " << needle;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(LogitCache, RoundTripMissAndDamage) {
  const fs::path dir = scratch();
  const CachedLogits a = entry("model=abc\nunit=A0 chip_seed=1\n");
  store_logits(dir.string(), a);
  const auto back = load_logits(dir.string(), a.key);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->key, a.key);
  EXPECT_EQ(back->classes, 3);
  EXPECT_EQ(back->labels, a.labels);
  EXPECT_EQ(back->logits, a.logits);  // bit for bit
  EXPECT_FALSE(load_logits(dir.string(), "model=abc\nunit=A0 chip_seed=2\n").has_value());
  EXPECT_EQ(cached_keys(dir.string()), std::vector<std::string>{a.key});

  const fs::path file = dir / logit_file_name(a.key);
  // One flipped byte in the logits: the checksum catches it.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    f.put('\x7f');
  }
  expect_error(dir.string(), a.key, "checksum");
  expect_error(dir.string(), a.key, file.string());
  // Truncated, and not a cache file at all.
  fs::resize_file(file, 20);
  expect_error(dir.string(), a.key, "not a hetcim logit cache entry");
  std::ofstream(file) << "hello";
  expect_error(dir.string(), a.key, "not a hetcim logit cache entry");
  // A valid entry renamed to another key's file name.
  store_logits(dir.string(), a);
  const std::string other = "model=xyz\n";
  fs::rename(file, dir / logit_file_name(other));
  expect_error(dir.string(), other, "holds another key");
  // Mismatched sizes are refused before anything is written.
  CachedLogits bad = entry("k");
  bad.logits.pop_back();
  EXPECT_THROW(store_logits(dir.string(), bad), UserError);
  EXPECT_FALSE(fs::exists(dir / logit_file_name("k")));
  EXPECT_THROW((void)cached_keys((dir / "missing").string()), UserError);
  fs::remove_all(dir);
}

// A replay miss names what differs from the closest cached key (issue 36: `--threads` was in the
// key and the message named nothing): fields of "name k=v" lines, a unit's own name, text lines,
// lines only one side has; the closest key is the one with the fewest differences.
TEST(LogitCache, MissNamesTheDifferingFieldsOfTheClosestKey) {
  const std::string want =
      "model 00ab\ndata fashion-mnist calibration=test split first=100\n"
      "unit A2 chip_seed=7 read_seed=9 g_min=0.1\neval batch=128 analog_layers=a,b\n"
      "part calibration\n";
  const std::string same_unit_other_batch =
      "model 00ab\ndata fashion-mnist calibration=test split first=100\n"
      "unit A2 chip_seed=7 read_seed=9 g_min=0.1\neval batch=64 analog_layers=a,b\n"
      "part calibration\n";
  const std::string other_unit =
      "model 00ab\ndata fashion-mnist calibration=test split first=100\n"
      "unit A0 chip_seed=3 read_seed=4 g_min=0.1\neval batch=128 analog_layers=a,b\n"
      "part calibration\n";
  EXPECT_EQ(closest_key_difference(want, {other_unit, same_unit_other_batch}),
            "eval batch: '128' here, '64' in the cache");
  EXPECT_EQ(closest_key_difference(want, {other_unit}),
            "unit: 'A2' here, 'A0' in the cache; unit chip_seed: '7' here, '3' in the cache; unit "
            "read_seed: '9' here, '4' in the cache");
  // A text line (the data description) as a whole; a line only one side has.
  std::string other_data = want;
  other_data.replace(other_data.find("first=100"), 9, "first=50");
  other_data += "drift read_time=1 compensation=0\n";
  EXPECT_EQ(closest_key_difference(want, {other_data}),
            "data: 'fashion-mnist calibration=test split first=100' here, 'fashion-mnist "
            "calibration=test split first=50' in the cache; 'drift' only in the cache");
  EXPECT_EQ(closest_key_difference(want, {}), "");
  EXPECT_EQ(closest_key_difference(want, {want}), "");
}

}  // namespace
}  // namespace hetcim::select
