// How a solved DSE point travels from the rank that solved it to rank 0 (dist::run_queue):
// "<cache key> <rank>\n<the point's cache-entry JSON>". Rank 0 checks the key against the one of
// the problem it built, reads the point from the JSON and writes the JSON as the cache entry.
// One format for the seed-000 grid (dse.cpp) and the platform grid (platform_dse.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace hetcim::dse {

[[nodiscard]] inline std::string point_message(const std::string& key, int rank,
                                               const std::string& json) {
  return key + " " + std::to_string(rank) + "\n" + json;
}

struct PointMessage {
  std::string key;
  int rank = 0;
  std::string json;
};

[[nodiscard]] inline PointMessage read_point_message(const std::string& m) {
  const size_t space = m.find(' '), newline = m.find('\n');
  return {m.substr(0, space), std::stoi(m.substr(space + 1, newline - space - 1)),
          m.substr(newline + 1)};
}

}  // namespace hetcim::dse
