// The exact solver a K-engine problem's shape calls for (issue 33: specialised solvers are chosen
// by the platform's shape, not by the user's flag): a problem of the two-device shape
// (multi_convert.h's two_device_form: seed 000's host + crossbar accelerator + one bus, latency
// objective) goes to the two-device exact solver (exact.h), so `partition --platform seed000-arm`
// returns the plan `partition --preset seed000-arm` returns; any other to the K-engine exact
// solver (multi_exact.h).
#pragma once

#include "partition/multi_convert.h"
#include "partition/multi_exact.h"

namespace hetcim::partition {

// The K-engine result of the two-device solver on `form` (two_device_form(p)): the assignment
// mapped to p's options, the jobs listed by the two-device schedule's start times and replayed by
// multi_simulate and multi_check (an InternalError if the replay's makespan differs from the
// two-device schedule's, or the checker objects); status, bound, incumbent and search counts are
// the two-device solver's (bound and objective scaled by p.latency_weight). The limits map to
// ExactOptions' time and node limits.
[[nodiscard]] MultiExactResult solve_two_device_form(const MultiProblem& p,
                                                     const TwoDeviceForm& form,
                                                     const MultiExactOptions& opt = {});

// solve_two_device_form where the problem has the two-device shape, solve_multi_exact otherwise;
// MultiExactResult::solver says which ran.
[[nodiscard]] MultiExactResult solve_by_shape(const MultiProblem& p,
                                              const MultiExactOptions& opt = {});

}  // namespace hetcim::partition
