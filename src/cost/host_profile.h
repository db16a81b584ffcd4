// Host profile files: per-operator host latencies measured by `hetcim profile` (on this machine
// or on another host running the same tool, e.g. an ARM board), or written from the analytical
// host model (host_model.h) and then marked as modelled. The partitioner reads them as the host
// column of its cost table, matching operators by name.
//
// Two encodings of the same content, chosen by the file extension (.csv or .json).
//
// CSV (format version 1):
//   # hetcim-host-profile v1                      <- first line, exactly
//   # key: value                                   <- header lines, any order, keys below
//   name,op_type,impl,median_s,min_s,p90_s,macs,gmacs   <- column line, exactly
//   /layer1/layer1.0/conv1/Conv,QLinearConv,...,1.234e-05,1.2e-05,1.3e-05,115605504,9368.4
//   ...one row per operator, in execution (topological) order
// Header keys: model, precision (fp32 | int8), batch, threads, warmup, runs, source (measured |
// modelled), machine, library, tool, date, command, seeds, quality, model_median_s, model_min_s,
// model_p90_s, op_median_sum_s. Unknown keys are an error; all keys are required except
// machine/library/tool/date/command/seeds/quality (free text). `quality` is written from
// profile_quality() below ("steady: ..." or "noisy: ..."); reading keeps it as text.
// Fields are RFC 4180 (a field with a comma, quote or newline is quoted, quotes doubled);
// numbers are plain decimal or exponent notation; gmacs = macs / median_s / 1e9 (0 when
// macs = 0).
//
// JSON: {"format": "hetcim-host-profile", "version": 1, the header keys above as members
// (numbers as numbers), "ops": [{"name", "op_type", "impl", "median_s", "min_s", "p90_s", "macs",
// "gmacs"}, ...]}.
//
// Times are seconds (SI, like the rest of hetcim). Reading validates everything once, at this
// boundary: a UserError names the file, the line (CSV) or member (JSON), and what was expected;
// times must be finite and >= 0 with min <= median <= p90, macs >= 0, operator names unique and
// non-empty, threads/runs >= 1, warmup >= 0, batch >= 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hetcim::cost {

struct HostProfileOp {
  std::string name;     // node name after passes::lower
  std::string op_type;  // as executed (QLinearConv, ...)
  std::string impl;     // kernels used (informative)
  double median_s = 0, min_s = 0, p90_s = 0;
  int64_t macs = 0;
  double gmacs = 0;  // achieved GMAC/s at the median
};

struct HostProfile {
  std::string model;
  std::string precision = "int8";
  int64_t batch = 1;
  int threads = 1;
  int warmup = 0;
  int runs = 1;
  bool modelled = false;  // source: measured (false) or modelled (true)
  std::string machine;
  std::string library;
  std::string tool;
  std::string date, command, seeds;  // provenance of a measurement (free text, optional)
  std::string quality;               // as read; writers use profile_quality()
  double model_median_s = 0, model_min_s = 0, model_p90_s = 0;  // whole model, measured apart
  double op_median_sum_s = 0;                                   // sum of the operator medians
  std::vector<HostProfileOp> ops;

  [[nodiscard]] const HostProfileOp* find(std::string_view name) const;
};

// Is the measurement steady enough to trust its medians? Noisy when the whole-model p90 exceeds
// 1.5x its median, or when the sum of the operator medians is more than 10 % off the whole-model
// median (they time the same work). `text` says which and by how much:
// "steady: whole-model p90/median 1.04, sum of operator medians/whole model +2.1 %" or
// "noisy: whole-model p90 is 7.3x the median; ...".
struct ProfileQuality {
  bool noisy = false;
  std::string text;
};
[[nodiscard]] ProfileQuality profile_quality(const HostProfile& p);

[[nodiscard]] std::string host_profile_csv(const HostProfile& p);
[[nodiscard]] std::string host_profile_json(const HostProfile& p);
[[nodiscard]] HostProfile parse_host_profile_csv(std::string_view text, std::string_view origin);
[[nodiscard]] HostProfile parse_host_profile_json(std::string_view text, std::string_view origin);

// By extension: ".csv" or ".json" (anything else is a UserError). write_host_profile replaces the
// file atomically (temporary file + rename).
[[nodiscard]] HostProfile read_host_profile(const std::string& path);
void write_host_profile(const std::string& path, const HostProfile& p);
// The text write_host_profile writes to `path` (CSV or JSON by its extension).
[[nodiscard]] std::string host_profile_text(const std::string& path, const HostProfile& p);

}  // namespace hetcim::cost
