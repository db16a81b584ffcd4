#include "api/status.h"

namespace hetcim::api {

std::string status_text(const Status& s) {
  if (s.call == partition::CallStatus::SolverFailed) return "solver-failed: " + s.message;
  std::string t = "ok";
  if (s.conclusion) t += std::string(", ") + partition::solve_status_name(*s.conclusion);
  return t + ", " + origin_name(s.origin);
}

}  // namespace hetcim::api
