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

}  // namespace hetcim::select
