// study.json, both directions: written by `hetcim analog study` (race_study_json), read back by
// `hetcim reproduce seed002 --study DIR` (read_race_study).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "results/race_study.h"
#include "select/study.h"

namespace hetcim::formats {

// study.json: format version, the options the study ran with (`options`, written by the caller:
// risk, design_risk, dataset, pool, ...), the provenance lines, the base protocol, the ablations
// (per run and mean +- sd) and the break-even. Written by `hetcim analog study`, read back by
// `hetcim reproduce seed002 --study DIR`.
inline constexpr int kRaceStudyFormat = 1;
[[nodiscard]] nlohmann::json race_study_json(const select::StudyResult& s,
                                             const results::RaceStudyInfo& info,
                                             const nlohmann::json& options);

// Reads a study.json; UserError naming the file and the field that is missing, of the wrong type
// or from another format version.
[[nodiscard]] results::RaceStudyFile read_race_study(const std::string& path);

}  // namespace hetcim::formats
