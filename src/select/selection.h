// Seed 002's accelerator selection rule, eq. (9): the coverage-per-energy utility
//   u_i = phi_i / (E_i + C_i),      i* = argmax_i u_i,
// with phi_i the coverage of accelerator i's fitted threshold on the policy split (0 when no
// threshold is feasible), E_i its activation energy and C_i its communication cost.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace hetcim::select {

struct Candidate {
  double coverage = 0.0;       // [0, 1]
  double energy = 0.0;         // E_i, J, > 0 (with communication)
  double communication = 0.0;  // C_i, J, >= 0
};

// UserError when coverage is outside [0, 1], E_i + C_i <= 0, or a value is not finite.
[[nodiscard]] double utility(const Candidate& c);

// The index of the largest utility (the first among equal ones); nullopt when the pool is empty
// or every utility is 0 (no accelerator answers anything: all inputs go to the fallback).
[[nodiscard]] std::optional<size_t> select_accelerator(std::span<const Candidate> pool);

}  // namespace hetcim::select
