// The K-engine problem of a platform (build.h) written out whole as JSON, so that another solver
// can check or beat hetcim's answer: every operator's options (engine, duration, energy, capacity
// use, reprogramming, cycles) in the order the MILP's y<v>_<k> columns and the plans' `option`
// indices use, the edges (operator indices) with their bytes, the engines (capacity, one job at a
// time, powers), the exclusive groups, the links and the objective's weights. SI units throughout;
// a link of unlimited bandwidth and an engine without a capacity are null.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "platform/build.h"

namespace hetcim::platform {

[[nodiscard]] nlohmann::json problem_json(const PlatformProblem& pp, const std::string& model,
                                          const std::string& platform);

}  // namespace hetcim::platform
