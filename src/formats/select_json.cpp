#include "formats/select_json.h"

#include <cmath>

namespace hetcim::formats {

nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json selective_stats_json(const select::SelectiveStats& s) {
  return {{"rows", s.size},           {"accepted", s.accepted},
          {"errors", s.errors},       {"correct", s.correct},
          {"coverage", s.coverage()}, {"selective_risk", s.selective_risk()},
          {"accuracy", s.accuracy()}};
}

}  // namespace hetcim::formats
