// The loop every design-space exploration shares (seed 000's grid, dse.h; a platform's sweep,
// platform_dse.h): a cache key per point (FNV-1a over the problem, the commit of this build and
// every solver option), rank 0 reading the cache and checking each entry it finds, the missing
// points handed out costliest first over threads and MPI ranks (dist::run_queue), and each solved
// point travelling back to rank 0 as "<key> <rank>\n<its cache entry's JSON>", checked against the
// key of the problem rank 0 built, and written as the cache entry. What a point holds, how it is
// solved and how an entry is checked stay with the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "util/hash.h"

namespace hetcim::dse {

// FNV-1a over everything that determines a point's result; key() is its 16 hex digits.
struct KeyHasher : Fnv1a {
  void num(double d) { update(&d, sizeof d); }
  void num(int64_t v) { update(&v, sizeof v); }
  void str(const std::string& s) {
    num(static_cast<int64_t>(s.size()));
    update(s.data(), s.size());
  }
  // The start of every key: the format version, the commit of this build (a new commit, or a
  // dirty tree's commit, never reads older results), the operator count and the DAG's edges.
  void start(const std::string& version, size_t operators,
             const std::vector<std::pair<int, int>>& edges);
  [[nodiscard]] std::string key() const;
};

// The fields every cache entry starts with: the commit of this build and the point's key.
[[nodiscard]] nlohmann::json entry_header(const std::string& key);

struct GridRun {
  std::string what;       // names the run in messages: "dse", "platform dse"
  std::string files;      // what every rank must read alike: "model and host", "model and platform"
  std::string cache_dir;  // "" = no cache
  int threads = 1;
  bool over_ranks = false;  // split the points over the MPI ranks of this run (dist/dist.h)
  std::function<void(const std::string&)> on_cache_warning;
  std::function<void(size_t done, size_t total)> progress;  // rank 0 only, one call at a time
};

// What rank 0 knows of a point before solving it.
struct PreparedPoint {
  std::string key;
  double cost = 1.0;  // the queue hands out the costliest points first
  // Reads a cache entry into the point: "" when the entry answers it, otherwise why not (the point
  // is then solved again and the entry overwritten).
  std::function<std::string(const nlohmann::json& entry)> take_entry;
  std::string describe;  // the point in an error message: "resnet18, arm, 25 crossbars"
};

struct GridPoints {
  size_t count = 0;
  // Rank 0, in point order: the point's fields known before solving, its key and entry reader.
  std::function<PreparedPoint(size_t i)> prepare;
  // Any rank: solves point i and returns its cache entry (entry_header's fields included).
  std::function<nlohmann::json(size_t i)> solve;
  // Rank 0: a point solved on `rank`, its entry as solve returned it.
  std::function<void(size_t i, const nlohmann::json& entry, int rank)> take_solved;
};

// With `over_ranks` in an MPI run every rank calls this with the same points; only rank 0 calls
// `prepare` and `take_solved`. A point whose key from its solver differs from rank 0's is a
// UserError (the ranks read different files).
void run_grid(const GridRun& run, const GridPoints& points);

}  // namespace hetcim::dse
