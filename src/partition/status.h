// What a solver concluded, kept apart from whether the call worked. A time limit is a result (with
// the incumbent, the bound and the gap), not an error; invalid input and bugs are exceptions
// (UserError, InternalError); a third-party solver that gives up reports CallStatus::SolverFailed.
#pragma once

namespace hetcim::partition {

enum class SolveStatus {
  Optimal,     // incumbent proven optimal (bound == incumbent, up to the solver's tolerances)
  TimeLimit,   // stopped by the time limit; an incumbent exists (all-host is always feasible)
  NodeLimit,   // stopped by the deterministic node limit (exact solver); an incumbent exists
  Infeasible,  // proven infeasible (cannot happen for a validated problem: all-host is feasible)
  NoSolution,  // stopped without an incumbent
  Replayed,    // not solved: a given partition replayed by the simulator (no optimality claim)
};

enum class CallStatus {
  Ok,
  SolverFailed,  // the external solver abandoned the solve (numerical trouble); see the message
};

[[nodiscard]] constexpr const char* solve_status_name(SolveStatus s) {
  switch (s) {
    case SolveStatus::Optimal:
      return "optimal";
    case SolveStatus::TimeLimit:
      return "time-limit";
    case SolveStatus::NodeLimit:
      return "node-limit";
    case SolveStatus::Infeasible:
      return "infeasible";
    case SolveStatus::NoSolution:
      return "no-solution";
    case SolveStatus::Replayed:
      return "replayed";
  }
  return "?";
}

}  // namespace hetcim::partition
