// Why a swept platform parameter changed nothing visible (issue 36: `dse --platform seed001-cluster
// --sweep bus_width=32,64,128,256` printed rows that agree to the four digits shown, without a
// word). For every axis whose values move no model's latency, energy or objective by 1e-4 or more
// (relative) at any combination of the other axes, a note computed from the grid's problems and
// plans says how much it moves them and which term binds:
//   - the parameter changes no operator's cost on any engine at these values, or
//   - it changes the cost of some options (counted, with their engines) but no optimal plan maps
//     an operator to them (the plans' engines named, with their operator counts), or
//   - each plan runs only a few operators on such options (counted) and the others, on engines
//     it does not touch (named, with their counts), set the latency.
#pragma once

#include <string>
#include <vector>

#include "dse/platform_dse.h"
#include "platform/platform.h"
#include "platform/sweep.h"

namespace hetcim::dse {

// One note per axis of at least two values that changed no result ("" axes omitted). `points`
// are run_platform_dse's (grid order, with their plans); the problems are built again per point.
[[nodiscard]] std::vector<std::string> unchanged_axis_notes(
    const std::vector<PlatformDseModel>& models, const platform::Platform& base,
    const std::vector<platform::SweepAxis>& axes, const std::vector<PlatformDsePoint>& points,
    const std::string& objective);

}  // namespace hetcim::dse
