// Seed 002's certificate (Sec. III-D): the frozen policy (one accelerator, its bias correction
// and its threshold) is evaluated once on the certificate split C. With n_C accepted rows and
// e_C errors, it is certified when U(e_C, n_C; delta_C) <= r (U = 1 when n_C = 0).
//
// The guarantee, stated precisely: if the rows of C and the future inputs are i.i.d. draws from
// one distribution, and the policy was fixed without looking at C (it depends only on the
// hardware and policy splits and the chips), then, conditionally on the frozen policy and on
// n_C, the errors among the accepted rows are Binomial(n_C, R) with R the policy's true
// selective risk (eq. 3), so P[R <= U(e_C, n_C; delta_C)] >= 1 - delta_C. It is one statement for
// one frozen policy; rerunning with other seeds gives separate certificates, not a joint one.
// A rejected certificate is a result (certified = false), not an error.
#pragma once

#include <span>

#include "select/threshold.h"

namespace hetcim::select {

struct Certificate {
  double risk_target = 0.10;  // r
  double delta = 0.05;        // delta_C
  double threshold = 0.0;     // the frozen threshold that was evaluated
  SelectiveStats stats;       // on C
  double upper_bound = 1.0;   // U(stats.errors, stats.accepted; delta)
  bool certified = false;     // upper_bound <= risk_target
};

// UserError when risk or delta is outside (0, 1) or the spans differ in length.
[[nodiscard]] Certificate certify(std::span<const double> scores, std::span<const uint8_t> correct,
                                  double threshold, double risk, double delta);

}  // namespace hetcim::select
