// The status every api result carries, in three parts kept apart (STYLE.md, HiGHS):
//   call        did the call work? Bad input and bugs are exceptions (UserError, InternalError), so
//               a returned result is Ok, or SolverFailed when an external solver (CBC) gave up;
//   conclusion  what a solver concluded (optimal, time limit, infeasible, no solution), empty when
//               the job solves nothing (inspect, run) or replays a given answer;
//   origin      where the figures come from: computed now, solved now, replayed from a file,
//               read from a cache, or measured on this machine.
#pragma once

#include <optional>
#include <string>

#include "partition/status.h"

namespace hetcim::api {

enum class Origin { Computed, Solved, Replayed, Cached, Measured };

[[nodiscard]] constexpr const char* origin_name(Origin o) {
  switch (o) {
    case Origin::Computed:
      return "computed";
    case Origin::Solved:
      return "solved";
    case Origin::Replayed:
      return "replayed";
    case Origin::Cached:
      return "cached";
    case Origin::Measured:
      return "measured";
  }
  return "?";
}

struct Status {
  partition::CallStatus call = partition::CallStatus::Ok;
  std::optional<partition::SolveStatus> conclusion;  // never SolveStatus::Replayed: see origin
  Origin origin = Origin::Computed;
  std::string message;  // why the call failed (SolverFailed), else empty
};

// "ok, optimal, solved" / "ok, replayed" / "solver-failed: <message>".
[[nodiscard]] std::string status_text(const Status& s);

}  // namespace hetcim::api
