// JSON pieces of seed 002's selective inference shared by the files that hold them (the frozen
// policy of `analog select --policy-out`, api_torch/analog.cpp) and the reports
// (report/race_select.h).
#pragma once

#include <nlohmann/json.hpp>

#include "select/threshold.h"

namespace hetcim::formats {

// Finite numbers as numbers, +-inf (an infeasible threshold, a break-even that never comes) as
// null.
[[nodiscard]] nlohmann::json finite_or_null(double v);

// A selective split's counts and rates: rows, accepted, errors, correct, coverage, risk, accuracy.
[[nodiscard]] nlohmann::json selective_stats_json(const select::SelectiveStats& s);

}  // namespace hetcim::formats
