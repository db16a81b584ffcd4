// What seed 002's study is beside its runs (select::StudyResult): the risk target, the fallback
// energy and the provenance lines (api::AnalogStudyResult::info), and a study read back from its
// study.json (formats/race_study_file.h). report/race_study.h renders both.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "select/study.h"

namespace hetcim::results {

struct RaceStudyInfo {
  double risk_target = 0.10;                                    // r (the line in Fig. 2a)
  double fallback = 4e-6;                                       // J, the operating point in Fig. 2d
  std::vector<std::pair<std::string, std::string>> provenance;  // (what, value), in order
};

struct RaceStudyFile {
  std::string origin;         // the file read
  select::StudyResult study;  // every variant's runs (the fallback sweep is not stored)
  RaceStudyInfo info;         // provenance lines as written
  nlohmann::json options;
};

}  // namespace hetcim::results
