// Crossbar reprogramming (issue 12, scope 3): what writing an operator's weights into a crossbar
// engine costs, per engine of a platform, and the literature figures of PCM and RRAM it is
// preset with. An engine with an enabled `reprogramming` block offers every crossbar operator a
// second, reprogrammed option (platform/build.cpp): its weights are written before it runs, at
// every inference, into an area all reprogrammed operators of the engine share
// (partition/multi_problem.h); the duration adds the write time, the energy the cells' write
// energy (the engine's peripheral power during the write is not charged: a simplification).
//
//   reprogramming: pcm            # a literature preset (below), enabled
//   reprogramming:                # or the figures (a preset as base, fields override it)
//     preset: rram                # optional
//     write_time_per_row: 100ns   # exactly one of per_row (a row's cells in parallel), per_cell,
//                                 # per_array (a whole crossbar at once)
//     write_energy_per_cell: 10pJ
//     endurance: 1e6              # writes a cell survives (>= 1)
//     source: "..."               # where the figures come from (printed with the lifetime)
//     enabled: true               # default true; false keeps the figures but not the option
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hetcim::platform {

struct ReprogrammingSpec {
  bool enabled = true;
  std::optional<double> write_time_per_row;    // s per crossbar row written
  std::optional<double> write_time_per_cell;   // s per cell
  std::optional<double> write_time_per_array;  // s per crossbar
  double write_energy_per_cell = 0.0;          // J
  double endurance = 0.0;                      // writes per cell (>= 1)
  std::string source;                          // the figures' origin, for reports
};

// What one operator's footprint writes.
struct WriteFootprint {
  int64_t rows = 0;    // crossbar rows written (summed over its tiles)
  int64_t cells = 0;   // cells written
  int64_t arrays = 0;  // crossbars written
};

struct WriteCost {
  double seconds = 0.0;
  double joules = 0.0;
};

[[nodiscard]] WriteCost write_cost(const ReprogrammingSpec& r, const WriteFootprint& f);

// "pcm", "rram": literature figures (reprogramming_constants lists them with their sources).
[[nodiscard]] std::vector<std::string> reprogramming_preset_names();
[[nodiscard]] ReprogrammingSpec reprogramming_preset(const std::string& name);

// Every figure of the presets: preset, field, value with unit, source (literature / assumed /
// derived), reference. docs/platforms.md prints the same table; a test keeps the two in step.
struct ReprogrammingConstant {
  std::string preset, field, value, source, reference;
};
[[nodiscard]] std::vector<ReprogrammingConstant> reprogramming_constants();

// UserError naming `field` (e.g. "file.yaml: field 'engines[1].reprogramming'"): exactly one
// write time, finite and >= 0 figures, endurance >= 1.
void validate(const ReprogrammingSpec& r, const std::string& field);

}  // namespace hetcim::platform
