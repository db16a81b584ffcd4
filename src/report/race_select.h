// `hetcim analog select` (seed 002's RACE-AIMC on a pool of chips, api::analog_select): the
// per-chip table with the selection, the certificate, the test-split accuracies and the modelled
// energies as text, and the same as JSON (with the options, the seeds per unit, the images and the
// logits' source and the provenance).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/select_json.h"
#include "select/race.h"
#include "util/provenance.h"

namespace hetcim::report {

[[nodiscard]] std::string race_select_text(const select::RaceResult& r,
                                           const select::RaceOptions& o);

// Where the logits came from: simulated now, read from `cache` ("" = no cache).
struct LogitsSource {
  int64_t simulated = 0, cached = 0;
  std::string cache;
};

[[nodiscard]] nlohmann::json race_select_json(const select::RaceResult& r,
                                              const select::RaceOptions& o,
                                              const std::vector<uint64_t>& chip_seeds,
                                              const std::vector<uint64_t>& read_seeds,
                                              const Provenance& prov, const std::string& data,
                                              const LogitsSource& logits);

}  // namespace hetcim::report
