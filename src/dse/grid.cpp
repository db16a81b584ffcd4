#include "dse/grid.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "dist/dist.h"
#include "util/build_version.h"
#include "util/error.h"
#include "util/files.h"

namespace hetcim::dse {
namespace {

// "<key> <rank>\n<entry JSON>": how a solved point travels to rank 0.
std::string point_message(const std::string& key, int rank, const std::string& json) {
  return key + " " + std::to_string(rank) + "\n" + json;
}

struct PointMessage {
  std::string key;
  int rank = 0;
  std::string json;
};

PointMessage read_point_message(const std::string& m) {
  const size_t space = m.find(' '), newline = m.find('\n');
  return {m.substr(0, space), std::stoi(m.substr(space + 1, newline - space - 1)),
          m.substr(newline + 1)};
}

// Why the entry at `path` does not answer the point ("" when it does; "-" when there is none).
std::string read_entry(const std::string& path, const PreparedPoint& p) {
  const CacheFile entry = read_cache_file(path, "DSE cache entry");
  if (!entry.found) return "-";
  if (!entry.usable) return entry.problem;  // replaced by the write after solving
  try {
    return p.take_entry(nlohmann::json::parse(entry.text));
  } catch (const nlohmann::json::exception& e) {
    return e.what();  // a damaged cache entry is solved again and overwritten
  }
}

}  // namespace

void KeyHasher::start(const std::string& version, size_t operators,
                      const std::vector<std::pair<int, int>>& edges) {
  str(version);
  str(build_commit());
  num(static_cast<int64_t>(operators));
  for (auto [u, v] : edges) {
    num(static_cast<int64_t>(u));
    num(static_cast<int64_t>(v));
  }
}

std::string KeyHasher::key() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

nlohmann::json entry_header(const std::string& key) {
  return {{"commit", build_commit()}, {"key", key}};
}

void run_grid(const GridRun& run, const GridPoints& points) {
  const bool root = !run.over_ranks || dist::is_root();
  if (root && !run.cache_dir.empty()) std::filesystem::create_directories(run.cache_dir);
  // Rank 0 (the only process of a run without MPI) prepares every point, reads the cache and
  // queues the points it lacks.
  const size_t n = root ? points.count : 0;
  std::vector<std::string> keys(n), names(n);
  std::vector<dist::Task> tasks;
  size_t done = 0;
  for (size_t i = 0; i < n; ++i) {
    const PreparedPoint p = points.prepare(i);
    keys[i] = p.key;
    names[i] = p.describe;
    if (!run.cache_dir.empty()) {
      const std::string path = join_path(run.cache_dir, p.key + ".json");
      const std::string why = read_entry(path, p);
      if (why.empty()) {
        if (run.progress) run.progress(++done, points.count);
        continue;
      }
      if (why != "-" && run.on_cache_warning)
        run.on_cache_warning("cache entry '" + path + "' ignored (" + why + "); solving again");
    }
    tasks.push_back({i, p.cost});
  }
  (run.over_ranks ? dist::run_queue : dist::run_local)(
      tasks, run.threads,
      [&](size_t i) {
        const nlohmann::json entry = points.solve(i);
        return point_message(entry.at("key").get<std::string>(), run.over_ranks ? dist::rank() : 0,
                             entry.dump());
      },
      [&](size_t i, std::string&& result) {
        const PointMessage m = read_point_message(result);
        if (m.key != keys[i])
          throw user_error(run.what, ": point ", i, " (", names[i],
                           ") was solved for a different problem than rank 0 built: every rank "
                           "must read the same ",
                           run.files, " files");
        points.take_solved(i, nlohmann::json::parse(m.json), m.rank);
        if (!run.cache_dir.empty())
          write_cache_file(join_path(run.cache_dir, keys[i] + ".json"), m.json + "\n");
        if (run.progress) run.progress(++done, points.count);
      });
}

}  // namespace hetcim::dse
