// Provenance of a result: what made it (command line, hetcim version and commit), when and where
// (UTC date, machine), and named facts a reader needs to trust its numbers (host source, solver,
// cache hits, seeds...). Plain data; report/ renders it as text, JSON and HTML.
//
// Reproducible outputs: when SOURCE_DATE_EPOCH is set (the reproducible-builds convention), the
// date is that instant, so two runs with the same inputs and seeds write the same bytes.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hetcim {

struct Provenance {
  std::string command_line;  // argv joined with spaces (arguments with spaces quoted)
  std::string version;       // HETCIM_VERSION
  std::string commit;        // HETCIM_GIT_COMMIT ("unknown" outside a checkout, "-dirty" suffix)
  std::string date_utc;      // ISO 8601, e.g. 2026-12-01T14:44:52Z
  std::string machine;       // CPU model name and logical CPU count of the machine that ran it
  std::vector<std::pair<std::string, std::string>> facts;  // in insertion order

  // Adds or replaces a named fact ("host source", "solver", "cache", "seed"...).
  void set(const std::string& key, const std::string& value);
  [[nodiscard]] const std::string* find(const std::string& key) const;
};

// The provenance of this process: command line from argv, version and commit of this build, the
// current date (or SOURCE_DATE_EPOCH) and this machine.
[[nodiscard]] Provenance make_provenance(int argc, const char* const* argv);

// "hetcim 0.1.0 (commit abc123def456)".
[[nodiscard]] std::string version_string();

// CPU model name from /proc/cpuinfo and the logical CPU count, e.g. "Intel(R) Xeon(R) ... x 2".
[[nodiscard]] std::string machine_description();

}  // namespace hetcim
