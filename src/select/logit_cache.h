// A content-addressed cache of logits, so that one simulation per (model, data, chip profile,
// chip seed, read seed) serves every replay of seed 002's protocol (ablations, scores, sweeps).
//
// An entry is one file `DIR/<16 hex digits>.logits`, named by the FNV-1a hash of its key: a text
// that states everything the logits depend on (the CLI writes the model file's hash, the data
// set, the rows, the chip profile's every field, both seeds, the simulation options). The file
// repeats the key, so a lookup checks it in full, not only its hash:
//
//   "HETCIM-LOGITS 1\n", u64 key length, key bytes, i64 rows, i64 classes, rows label bytes,
//   rows x classes float32 logits (little-endian), u64 FNV-1a of all preceding bytes.
//
// Files are written atomically (util/files.h). A damaged or foreign file is a UserError naming
// it; a missing entry is not an error (nullopt), the caller decides whether to compute it.
//
// What the cache guarantees: the checksum finds damage, and the full key (written by the caller:
// the model file's digest, the images' digest, the chip profile's fields, both seeds, the
// simulation options) finds an entry made from other inputs. An entry edited on purpose with its
// checksum recomputed is data like any other: the checksum is no signature. The caller
// (api_torch/pool.cpp) re-simulates the first batch of every entry it reads and refuses one whose
// first rows differ; rows after the first batch are trusted as stored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetcim::select {

struct CachedLogits {
  std::string key;
  int64_t classes = 0;
  std::vector<uint8_t> labels;  // rows
  std::vector<float> logits;    // rows x classes
};

// "<16 hex digits of FNV-1a(key)>.logits".
[[nodiscard]] std::string logit_file_name(const std::string& key);

// Writes DIR/logit_file_name(key), creating DIR. UserError when the sizes disagree.
void store_logits(const std::string& dir, const CachedLogits& entry);

// The entry of `key` in DIR; nullopt when there is no such file. UserError naming the file when it
// is damaged (bad magic, truncated, checksum) or holds another key.
[[nodiscard]] std::optional<CachedLogits> load_logits(const std::string& dir,
                                                      const std::string& key);

// The keys of every entry in DIR (sorted by file name), for messages that say what a cache holds.
// UserError when DIR is not a directory or a file is damaged.
[[nodiscard]] std::vector<std::string> cached_keys(const std::string& dir);

// What differs between the key a lookup wanted and the closest of `cached` (the one with the
// fewest differing fields), for a miss message that names the options to change: keys are lines
// "NAME field=value field=value ..." or "NAME text"; a field that differs is named "NAME field"
// ("eval batch: 128 here, 64 in the cache"), a line of text by its NAME ("data: '...' here, '...'
// in the cache"), a line only one key has as such. "" when `cached` is empty.
[[nodiscard]] std::string closest_key_difference(const std::string& wanted,
                                                 const std::vector<std::string>& cached);

}  // namespace hetcim::select
